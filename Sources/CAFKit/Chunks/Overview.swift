import BinaryIO

/// One overview point: the smallest and largest sample in a span of frames.
public struct OverviewSample: Equatable, Hashable, Sendable {
    /// The smallest sample value.
    public var minValue: Int16
    /// The largest sample value.
    public var maxValue: Int16

    /// Creates a point.
    public init(minValue: Int16, maxValue: Int16) {
        self.minValue = minValue
        self.maxValue = maxValue
    }
}

/// The `ovvw` chunk: a waveform overview for drawing.
public struct Overview: Equatable, Hashable, Sendable {
    /// The `data` edit count the overview belongs to.
    public var editCount: UInt32
    /// Frames summarised by each point.
    public var framesPerSample: UInt32
    /// The points.
    public var samples: [OverviewSample]
    /// Bytes after the last whole point, kept for a rewrite.
    public var trailing: [UInt8]

    /// Creates an overview.
    public init(editCount: UInt32, framesPerSample: UInt32, samples: [OverviewSample], trailing: [UInt8] = []) {
        self.editCount = editCount
        self.framesPerSample = framesPerSample
        self.samples = samples
        self.trailing = trailing
    }

    /// Reads an `ovvw` body.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        editCount = try cursor.readUInt32(.big)
        framesPerSample = try cursor.readUInt32(.big)
        samples = []
        while cursor.remaining >= 4 {
            samples.append(OverviewSample(minValue: try cursor.readInt16(.big), maxValue: try cursor.readInt16(.big)))
        }
        trailing = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(editCount, .big)
        writer.write(framesPerSample, .big)
        for sample in samples {
            writer.write(sample.minValue, .big)
            writer.write(sample.maxValue, .big)
        }
        writer.write(bytes: trailing)
    }
}

import BinaryIO

/// The peak of one channel: its largest absolute sample value and where it is.
public struct ChannelPeak: Equatable, Hashable, Sendable {
    /// The size of one peak in bytes.
    public static let size = 12

    /// The peak value.
    public var value: Float
    /// The frame of the peak.
    public var framePosition: Int64

    /// Creates a peak.
    public init(value: Float, framePosition: Int64) {
        self.value = value
        self.framePosition = framePosition
    }
}

/// The `peak` chunk: the audio's edit count when measured, then one peak per channel.
public struct PeakChunk: Equatable, Hashable, Sendable {
    /// The `data` edit count the peaks belong to.
    public var editCount: UInt32
    /// One peak per channel.
    public var peaks: [ChannelPeak]
    /// Bytes after the last whole peak, kept for a rewrite.
    public var trailing: [UInt8]

    /// Creates a chunk.
    public init(editCount: UInt32, peaks: [ChannelPeak], trailing: [UInt8] = []) {
        self.editCount = editCount
        self.peaks = peaks
        self.trailing = trailing
    }

    /// Reads a `peak` body.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        editCount = try cursor.readUInt32(.big)
        peaks = []
        while cursor.remaining >= ChannelPeak.size {
            peaks.append(ChannelPeak(value: try cursor.readFloat32(.big), framePosition: try cursor.readInt64(.big)))
        }
        trailing = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(editCount, .big)
        for peak in peaks {
            writer.write(peak.value, .big)
            writer.write(peak.framePosition, .big)
        }
        writer.write(bytes: trailing)
    }
}

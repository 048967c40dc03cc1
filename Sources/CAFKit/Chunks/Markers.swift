import BinaryIO

/// A SMPTE time as stored in markers (Apple's `CAF_SMPTE_Time`, 8 bytes).
public struct SMPTETime: Equatable, Hashable, Sendable {
    /// Hours.
    public var hours: Int8
    /// Minutes.
    public var minutes: Int8
    /// Seconds.
    public var seconds: Int8
    /// Frames.
    public var frames: Int8
    /// Sample offset within the frame.
    public var subFrameSampleOffset: UInt32

    /// Creates a time; all zero by default.
    public init(hours: Int8 = 0, minutes: Int8 = 0, seconds: Int8 = 0, frames: Int8 = 0, subFrameSampleOffset: UInt32 = 0) {
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
        self.subFrameSampleOffset = subFrameSampleOffset
    }

    /// Reads 8 bytes.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        hours = Int8(bitPattern: try cursor.readUInt8())
        minutes = Int8(bitPattern: try cursor.readUInt8())
        seconds = Int8(bitPattern: try cursor.readUInt8())
        frames = Int8(bitPattern: try cursor.readUInt8())
        subFrameSampleOffset = try cursor.readUInt32(.big)
    }

    /// Appends 8 bytes.
    public func write(to writer: inout ByteWriter) {
        for value in [hours, minutes, seconds, frames] { writer.write(UInt8(bitPattern: value)) }
        writer.write(subFrameSampleOffset, .big)
    }
}

/// One marker: a typed, numbered position in the audio (Apple's `CAFMarker`, 28 bytes).
public struct Marker: Equatable, Hashable, Sendable {
    /// The size of one marker in bytes.
    public static let size = 28

    /// The marker type (`kCAFMarkerType_...` four-character codes such as `rbeg`).
    public var type: FourCC
    /// The position in frames from the start of the audio.
    public var framePosition: Double
    /// The marker ID, which `strg` may name.
    public var markerID: Int32
    /// The SMPTE time of the marker.
    public var smpteTime: SMPTETime
    /// The channel the marker applies to, 0 for all.
    public var channel: UInt32

    /// Creates a marker.
    public init(type: FourCC, framePosition: Double, markerID: Int32, smpteTime: SMPTETime = SMPTETime(), channel: UInt32 = 0) {
        self.type = type
        self.framePosition = framePosition
        self.markerID = markerID
        self.smpteTime = smpteTime
        self.channel = channel
    }

    /// Reads 28 bytes.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        type = try cursor.readFourCC()
        framePosition = try cursor.readFloat64(.big)
        markerID = try cursor.readInt32(.big)
        smpteTime = try SMPTETime(parsing: &cursor)
        channel = try cursor.readUInt32(.big)
    }

    /// Appends 28 bytes.
    public func write(to writer: inout ByteWriter) {
        writer.write(type)
        writer.write(framePosition, .big)
        writer.write(markerID, .big)
        smpteTime.write(to: &writer)
        writer.write(channel, .big)
    }
}

/// The `mark` chunk: a SMPTE time type and a list of markers.
public struct MarkerChunk: Equatable, Hashable, Sendable {
    /// The SMPTE time type of the markers' times (0 when unused).
    public var smpteTimeType: UInt32
    /// The number of markers the chunk declares.
    public var declaredCount: UInt32
    /// The markers present (at most `declaredCount`).
    public var markers: [Marker]
    /// Bytes after the last marker, kept for a rewrite.
    public var trailing: [UInt8]

    /// Creates a chunk whose declared count is the number of markers.
    public init(smpteTimeType: UInt32 = 0, markers: [Marker], trailing: [UInt8] = []) {
        self.smpteTimeType = smpteTimeType
        self.declaredCount = UInt32(truncatingIfNeeded: markers.count)
        self.markers = markers
        self.trailing = trailing
    }

    /// Reads a `mark` body; markers the body cannot hold are left out, never allocated.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        smpteTimeType = try cursor.readUInt32(.big)
        declaredCount = try cursor.readUInt32(.big)
        markers = []
        let fitting = min(Int(declaredCount), cursor.remaining / Marker.size)
        for _ in 0..<fitting { markers.append(try Marker(parsing: &cursor)) }
        trailing = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(smpteTimeType, .big)
        writer.write(declaredCount, .big)
        for marker in markers { marker.write(to: &writer) }
        writer.write(bytes: trailing)
    }
}

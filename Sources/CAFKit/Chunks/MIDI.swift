import BinaryIO

/// The `midi` chunk: a standard MIDI file, kept raw.
public struct MIDIChunk: Equatable, Hashable, Sendable {
    /// The body bytes.
    public var bytes: [UInt8]

    /// Wraps body bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads a whole `midi` body.
    public init(parsing cursor: inout ByteCursor) { bytes = cursor.readRest() }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) { writer.write(bytes: bytes) }
}

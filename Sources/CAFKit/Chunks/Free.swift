import BinaryIO

/// The `free` chunk: padding whose bytes (normally zero) mean nothing.
public struct FreeChunk: Equatable, Hashable, Sendable {
    /// The body bytes.
    public var bytes: [UInt8]

    /// Wraps body bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads a whole `free` body.
    public init(parsing cursor: inout ByteCursor) { bytes = cursor.readRest() }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) { writer.write(bytes: bytes) }
}

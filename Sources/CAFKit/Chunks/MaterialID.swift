import BinaryIO

/// The `umid` chunk: a SMPTE unique material identifier (normally 64 bytes), kept raw.
public struct MaterialIdentifier: Equatable, Hashable, Sendable {
    /// The body bytes.
    public var bytes: [UInt8]

    /// Wraps body bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Reads a whole `umid` body.
    public init(parsing cursor: inout ByteCursor) { bytes = cursor.readRest() }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) { writer.write(bytes: bytes) }
}

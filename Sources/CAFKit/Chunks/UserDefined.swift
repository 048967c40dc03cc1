import BinaryIO

/// The `uuid` chunk: a 16-byte UUID naming the payload's format, then the payload.
public struct UserDefinedChunk: Equatable, Hashable, Sendable {
    /// The UUID bytes (16).
    public var uuid: [UInt8]
    /// The payload.
    public var payload: [UInt8]

    /// Creates a chunk; `uuid` is padded with zeros or cut to 16 bytes.
    public init(uuid: [UInt8], payload: [UInt8]) {
        self.uuid = Array((uuid + [UInt8](repeating: 0, count: 16)).prefix(16))
        self.payload = payload
    }

    /// Reads a `uuid` body.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        uuid = try cursor.readBytes(16)
        payload = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(bytes: uuid)
        writer.write(bytes: payload)
    }
}

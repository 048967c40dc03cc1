import BinaryIO

extension ByteCursor {
    /// Reads the bytes up to a NUL byte and consumes the NUL; throws when no NUL remains.
    mutating func readNULTerminated() throws(ByteError) -> [UInt8] {
        var result: [UInt8] = []
        let start = offset
        while true {
            guard !isAtEnd else {
                throw .truncated(offset: start, needed: UInt64(result.count + 1), available: UInt64(result.count))
            }
            let byte = try readUInt8()
            if byte == 0 { return result }
            result.append(byte)
        }
    }

    /// Reads a NUL-terminated UTF-8 string; throws ``CAFError`` when the bytes are not UTF-8.
    mutating func readCString(in chunk: FourCC) throws -> String {
        let start = offset
        let bytes = try readNULTerminated()
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CAFError(.malformedChunk(chunk), at: start, "'\(chunk)' holds a string that is not valid UTF-8")
        }
        return text
    }
}

extension ByteWriter {
    /// Appends the UTF-8 bytes of `text` and a NUL byte.
    mutating func writeCString(_ text: String) {
        write(bytes: text.utf8)
        write(UInt8(0))
    }
}

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
}

extension ByteWriter {
    /// Appends the UTF-8 bytes of `text` and a NUL byte.
    mutating func writeCString(_ text: String) {
        write(bytes: text.utf8)
        write(UInt8(0))
    }
}

import BinaryIO
import Inspection
import Testing

/// `info`'s own warnings are values with their data; the report shows their sentence.
@Suite("info warnings: values, one sentence each")
struct InfoWarningTests {
    /// An RF64 file whose `ds64` declares `dataSize` bytes of audio, with 32 real ones.
    static func rf64(dataSize: UInt64) -> [UInt8] {
        var bytes = Array("RF64".utf8) + le(UInt32.max) + Array("WAVEds64".utf8) + le(UInt32(28))
        bytes += le(UInt64(0)) + le(dataSize) + le(UInt64(16)) + le(UInt32(0))
        bytes += Array("fmt ".utf8) + le(UInt32(16)) + le(UInt16(1)) + le(UInt16(1)) + le(UInt32(8000))
        bytes += le(UInt32(16000)) + le(UInt16(2)) + le(UInt16(16))
        bytes += Array("data".utf8) + le(UInt32.max) + [UInt8](repeating: 1, count: 32)
        let riff = le(UInt64(bytes.count - 8))
        bytes.replaceSubrange(20..<28, with: riff)
        return bytes
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    @Test("a chunk declaring 2^63 bytes or more: a chunkTooLarge warning with its type, offset and size")
    func chunkTooLarge() {
        let size = UInt64(1) << 63
        let info = Inspector.inspect(MemoryByteSource(Self.rf64(dataSize: size)), path: "huge.wav")
        let warning = InfoWarning.chunkTooLarge(type: "data", offset: 72, declared: size)
        #expect(info.warnings.contains(warning), "\(info.warnings)")
        #expect(warning.message == "chunk 'data' at byte 72 declares 9223372036854775808 bytes, more than any file holds")
    }
}

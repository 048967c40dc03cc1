import BinaryIO
import Testing

@Suite("Byte transforms: swap and sign flip, aligned or not")
struct ByteTransformsTests {
    /// The reference: reverse each whole `width`-byte group, one byte at a time.
    static func reference(_ bytes: [UInt8], width: Int) -> [UInt8] {
        var result = bytes
        var start = 0
        while start + width <= bytes.count {
            for position in 0..<width { result[start + position] = bytes[start + width - 1 - position] }
            start += width
        }
        return result
    }

    @Test("swap matches a byte-by-byte reversal", arguments: [2, 3, 4, 8])
    func swap(width: Int) {
        let source = (0..<1037).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        // Offsets 0...7 make the buffer start unaligned for every word size; odd lengths leave a partial sample.
        for offset in 0..<8 {
            for count in [0, 1, width - 1, width, 3 * width + 1, 1000] where offset + count <= source.count {
                var buffer = source
                buffer.withUnsafeMutableBytes { raw in
                    ByteTransforms.swap(width: width, UnsafeMutableRawBufferPointer(rebasing: raw[offset..<offset + count]))
                }
                let slice = Array(source[offset..<offset + count])
                let expected = Self.reference(slice, width: width)
                #expect(Array(buffer[offset..<offset + count]) == expected, "offset \(offset), count \(count)")
                #expect(buffer[..<offset] == source[..<offset], "bytes before the range are untouched")
                #expect(buffer[(offset + count)...] == source[(offset + count)...], "bytes after the range are untouched")
            }
        }
    }

    @Test("swapping twice gives the input back", arguments: [2, 3, 4, 8])
    func swapTwice(width: Int) {
        let source = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var buffer = source
        buffer.withUnsafeMutableBytes { ByteTransforms.swap(width: width, $0) }
        #expect(buffer != source)
        buffer.withUnsafeMutableBytes { ByteTransforms.swap(width: width, $0) }
        #expect(buffer == source)
    }

    @Test("sign flip maps unsigned 8-bit to signed, any alignment and length")
    func flipSign() {
        let source = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
        for offset in 0..<8 {
            for count in [0, 1, 7, 8, 9, 255, 292] {
                var buffer = source
                buffer.withUnsafeMutableBytes { raw in
                    ByteTransforms.flipSign(UnsafeMutableRawBufferPointer(rebasing: raw[offset..<offset + count]))
                }
                let expected = source[offset..<offset + count].map { UInt8(bitPattern: Int8(Int($0) - 128)) }
                #expect(Array(buffer[offset..<offset + count]) == expected, "offset \(offset), count \(count)")
                #expect(buffer[(offset + count)...] == source[(offset + count)...])
            }
        }
    }
}

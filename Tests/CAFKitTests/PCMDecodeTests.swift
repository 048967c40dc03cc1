import BinaryIO
import CAFKit
import TestSupport
import Testing

@Suite("PCM decoding: every width and byte order against a byte-at-a-time reference")
struct PCMDecodeTests {
    static let bytes: [UInt8] = {
        var random = SplitMix64(seed: 0xCAF)
        return (0..<4099).map { _ in UInt8.random(in: 0...255, using: &random) }
    }()

    /// Assembles each sample from its bytes one at a time and sign-extends it.
    static func reference(_ bytes: [UInt8], bits: Int, order: ByteOrder, unsigned8: Bool) -> [Int32] {
        let width = bits / 8
        return stride(from: 0, through: bytes.count - width, by: width).map { start in
            var value: Int64 = 0
            for position in 0..<width {
                let byte = Int64(bytes[start + (order == .big ? position : width - 1 - position)])
                value = value << 8 | byte
            }
            if width == 1 && unsigned8 { return Int32(value - 128) }
            let top = Int64(1) << (bits - 1)
            return Int32(value >= top ? value - 2 * top : value)
        }
    }

    @Test("integers", arguments: [8, 16, 24, 32], [ByteOrder.little, .big])
    func integers(bits: Int, order: ByteOrder) {
        for unsigned8 in bits == 8 ? [false, true] : [false] {
            let layout = PCMLayout(bits: bits, isFloat: false, byteOrder: order, channels: 1, isUnsigned8Bit: unsigned8)
            // A slice that starts at an odd index: loads must not assume alignment.
            let slice = Self.bytes[1...]
            #expect(layout.decodeIntegers(slice) == Self.reference(Array(slice), bits: bits, order: order, unsigned8: unsigned8))
        }
    }

    @Test("floats", arguments: [32, 64], [ByteOrder.little, .big])
    func floats(bits: Int, order: ByteOrder) {
        let layout = PCMLayout(bits: bits, isFloat: true, byteOrder: order, channels: 2)
        let slice = Self.bytes[3...]
        var cursor = ByteCursor(Array(slice))
        var expected: [UInt64] = []
        while cursor.remaining >= bits / 8 {
            if bits == 32, let value = try? cursor.readFloat32(order) { expected.append(Double(value).bitPattern) }
            if bits == 64, let value = try? cursor.readFloat64(order) { expected.append(value.bitPattern) }
        }
        #expect(layout.decodeFloats(slice).map(\.bitPattern) == expected)
    }
}

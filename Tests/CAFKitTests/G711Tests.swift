import CAFKit
import TestSupport
import Testing

@Suite("G.711 µ-law and A-law codec")
struct G711Tests {
    @Test("levels of ITU-T G.711, on the 16-bit scale")
    func knownLevels() {
        // Reconstruction values of the standard (µ-law 8159 and A-law 4032 full scale, x4 and x8).
        let mu: [UInt8: Int16] = [
            0x00: -32124, 0x80: 32124, 0x0F: -16764, 0x8F: 16764, 0x7E: -8, 0xFE: 8, 0x7F: 0, 0xFF: 0,
            0x70: -120, 0xF0: 120, 0x6F: -132, 0xEF: 132,
        ]
        for (code, level) in mu { #expect(G711Law.muLaw.decode(code) == level, "µ-law \(code)") }
        let a: [UInt8: Int16] = [
            0x2A: -32256, 0xAA: 32256, 0x55: -8, 0xD5: 8, 0x54: -24, 0xD4: 24, 0x45: -264, 0xC5: 264,
            0x75: -528, 0xF5: 528,
        ]
        for (code, level) in a { #expect(G711Law.aLaw.decode(code) == level, "A-law \(code)") }
    }

    @Test("128 levels per sign, growing with the level index, mirrored", arguments: G711Law.allCases)
    func levelOrder(law: G711Law) {
        for index in 0..<128 {
            let positive = law.code(levelIndex: index, negative: false)
            let negative = law.code(levelIndex: index, negative: true)
            #expect(!law.isNegative(positive) && law.isNegative(negative))
            #expect(law.levelIndex(positive) == index && law.levelIndex(negative) == index)
            #expect(law.decode(negative) == -law.decode(positive))
            if index > 0 { #expect(law.levelMagnitude(index) > law.levelMagnitude(index - 1)) }
        }
        #expect(Set((0...255).map { law.decode(UInt8($0)) }).count == (law == .muLaw ? 255 : 256))
    }

    @Test("full scale keeps its sign: -32768 is the most negative level", arguments: G711Law.allCases)
    func fullScale(law: G711Law) {
        let (lowest, highest): (UInt8, UInt8) = law == .muLaw ? (0x00, 0x80) : (0x2A, 0xAA)
        #expect(law.encode(Int16.min) == lowest)
        #expect(law.encode(Int16(-32767)) == lowest)
        #expect(law.encode(Int16.max) == highest)
        #expect(law.encode(leftJustified: Int32.min) == lowest)
        #expect(law.encode(leftJustified: Int32.max) == highest)
        #expect(law.encode(-8_388_608, bits: 24) == lowest)
        #expect(law.encode(8_388_607, bits: 24) == highest)
        #expect(law.encode(float: -1.0) == lowest)
        #expect(law.encode(float: -1.5) == lowest)
        #expect(law.encode(float: -.infinity) == lowest)
        #expect(law.encode(float: 1.0) == highest)
        #expect(law.encode(float: .infinity) == highest)
        // Zero, -0.0 and NaN are positive: µ-law +0 (0xFF), A-law +8 (0xD5).
        let zero: UInt8 = law == .muLaw ? 0xFF : 0xD5
        #expect(law.encode(Int16(0)) == zero)
        #expect(law.encode(float: -0.0) == zero)
        #expect(law.encode(float: .nan) == zero)
        // The smallest negative values keep their sign (µ-law -0 is 0x7F).
        #expect(law.encode(Int16(-1)) == (law == .muLaw ? 0x7F : 0x55))
        #expect(law.encode(leftJustified: -1) == (law == .muLaw ? 0x7F : 0x55))
    }

    @Test("every 16-bit value codes to the nearest level of its sign", arguments: G711Law.allCases)
    func every16BitValue(law: G711Law) {
        var wrong: [Int] = []
        for value in -32768...32767 {
            let expected = G711Referee.code(law, Double(value))
            let sample = Int16(value)
            if law.encode(sample) != expected || law.encode(leftJustified: Int32(value) << 16) != expected
                || law.encode(float: Double(value) / 32768) != expected || !law.follows(expected, for: Double(value))
            {
                wrong.append(value)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) values, first \(wrong.prefix(5))")
    }

    /// Values a hair either side of every decision threshold (and on it), on the 16-bit scale.
    static func aroundThresholds(_ law: G711Law) -> [Double] {
        var values: [Double] = []
        for index in 1..<128 {
            let threshold = Double(law.levelMagnitude(index - 1) + law.levelMagnitude(index)) / 2
            for offset in [-1.0, -1.0 / 256, -1.0 / 65536, 0, 1.0 / 65536, 1.0 / 256, 1.0] {
                values += [threshold + offset, -(threshold + offset)]
            }
        }
        return values + [32256.5, 32767.99, -32767.99, 40000, -40000, 1.0 / 65536, -1.0 / 65536]
    }

    @Test("24-bit, 32-bit and float values code by their exact value, not rounded to 16 bits", arguments: G711Law.allCases)
    func beyond16Bits(law: G711Law) {
        for value in Self.aroundThresholds(law) {
            let expected = G711Referee.code(law, value)
            #expect(law.follows(expected, for: value))
            #expect(law.encode(float: value / 32768) == expected, "float \(value)")
            let wide = value * 65536
            if wide >= -2_147_483_648, wide < 2_147_483_648, wide == wide.rounded() {
                #expect(law.encode(leftJustified: Int32(wide)) == expected, "32-bit \(value)")
            }
            let deep = value * 256
            if deep >= -8_388_608, deep < 8_388_608, deep == deep.rounded() {
                #expect(law.encode(Int32(deep), bits: 24) == expected, "24-bit \(value)")
            }
        }
    }

    @Test("the rule check rejects every other code", arguments: G711Law.allCases)
    func followsRejects(law: G711Law) {
        for value in Self.aroundThresholds(law) + [-32768, 32767, 0, -1, 1] {
            let expected = G711Referee.code(law, value)
            for code in 0...255 where UInt8(code) != expected {
                #expect(!law.follows(UInt8(code), for: value), "\(law) \(code) for \(value)")
            }
        }
    }

    @Test("block encoders match the sample encoders", arguments: G711Law.allCases)
    func blocks(law: G711Law) {
        let ints: [Int32] = [Int32.min, -1, 0, 1, Int32.max, 123_456_789, -987_654_321]
        var codes = [UInt8](repeating: 0, count: ints.count)
        ints.withUnsafeBufferPointer { samples in
            codes.withUnsafeMutableBufferPointer { law.encode(leftJustified: samples, into: $0) }
        }
        #expect(codes == ints.map { law.encode(leftJustified: $0) })
        let floats: [Double] = [-1, -0.5, 0, .nan, 0.25, 1.25, -1e-9]
        floats.withUnsafeBufferPointer { samples in codes.withUnsafeMutableBufferPointer { law.encode(floats: samples, into: $0) }
        }
        #expect(codes == floats.map { law.encode(float: $0) })
    }
}

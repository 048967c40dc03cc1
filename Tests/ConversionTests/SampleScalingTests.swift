import Testing
@testable import Transcoding

/// Samples narrowed to single-precision floats for an encoder or a comparison
/// (``SampleScaling/floats(from:_:count:into:)``).
@Suite("Sample scaling")
struct SampleScalingTests {
    @Test("integers narrow exactly as x / 2^31 narrowed, doubles as Float(x)")
    func floats() {
        var state: UInt32 = 3
        var ints: [Int32] = [.min, .max, 0, 1, -1, 0x7FFF_0000, -0x8000_0000 + 0x100, 0x0123_4567, 0x7FFF_FFC0]
        for _ in 0..<4096 {
            state = state &* 1_664_525 &+ 1_013_904_223
            ints.append(Int32(bitPattern: state))
            ints.append((Int32(bitPattern: state) >> 16) << 16)
        }
        var out = [Float](repeating: .nan, count: ints.count + 1)
        SampleScaling.floats(from: ints, [], count: ints.count, into: &out)
        for (index, value) in ints.enumerated() {
            #expect(out[index].bitPattern == Float(SampleScaling.float(value)).bitPattern, "sample \(index): \(value)")
        }
        #expect(out[ints.count].isNaN)
        let doubles = [0.1, -1, 1, 1e-40, 0.3333333333333333, -0.75]
        SampleScaling.floats(from: nil, doubles, count: doubles.count, into: &out)
        for (index, value) in doubles.enumerated() { #expect(out[index].bitPattern == Float(value).bitPattern) }
    }
}

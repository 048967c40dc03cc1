import ConversionModel
import Testing

@testable import Transcoding

/// The transform stage with `--loudness`'s gain alone (a matrix that only scales each channel):
/// its frames come straight from each chunk, whatever a caller reads at a time, and are exactly
/// what the general matrix gives, `0 + gain x sample`, rounded and dithered as before.
@Suite("Gain-only transform")
struct GainTransformTests {
    static let frames = 10_000
    static let channels = 2
    /// Two channels of a ramp, not a multiple of the stage's 4096-frame chunks.
    static let samples = (0..<(frames * channels)).map { Double(($0 * 7919) % 4001 - 2000) / 2048 }
    static let gains = [0.7071, 1.25]

    static func plan(integerBits: Int?) -> TransformPlan {
        let matrix = ChannelMatrix(gains: [[gains[0], 0], [0, gains[1]]], name: "gain")
        return TransformPlan(
            matrix: matrix, rate: nil, quality: .vhq, dither: integerBits == nil ? .none : .tpdf, integerBits: integerBits,
            requantizes: true, inputChannels: channels, outputChannels: channels, inputRate: 48_000, outputRate: 48_000)
    }

    /// Every frame of the stage, read `block` frames at a time.
    static func read(_ plan: TransformPlan, block: Int) throws -> (ints: [Int32], doubles: [Double]) {
        let audio = try TransformedAudio(source: MemoryFrames(samples, channels: channels, sampleRate: 48_000), plan: plan)
        var ints = [Int32](repeating: 0, count: block * channels)
        var doubles = [Double](repeating: 0, count: block * channels)
        var allInts: [Int32] = []
        var allDoubles: [Double] = []
        while true {
            let got = try audio.read(ints: &ints, doubles: &doubles, frames: block)
            if got == 0 { break }
            allInts += ints[0..<(got * channels)]
            allDoubles += doubles[0..<(got * channels)]
        }
        return (allInts, allDoubles)
    }

    @Test("floats: 0 + gain x sample, every frame, read 1, 1000, 4096 or 65 536 frames at a time")
    func floats() throws {
        let expected = Self.samples.indices.map { 0 + Self.gains[$0 % Self.channels] * Self.samples[$0] }
        for block in [1, 1000, 4096, 65_536] {
            let got = try Self.read(Self.plan(integerBits: nil), block: block).doubles
            #expect(got == expected, "block \(block): \(got.count) samples")
        }
    }

    @Test("16-bit integers: the scaled samples TPDF-dithered in order, the same noise sequence whatever the block")
    func integers() throws {
        var noise = TPDFNoise()
        let expected = Self.samples.indices.map { index -> Int32 in
            let value = ((0 + Self.gains[index % Self.channels] * Self.samples[index]) * 32768 + noise.next()).rounded(.toNearestOrEven)
            return Int32(min(max(value, -32768), 32767)) << 16
        }
        for block in [1, 1000, 65_536] {
            let got = try Self.read(Self.plan(integerBits: 16), block: block).ints
            #expect(got == expected, "block \(block): \(got.count) samples")
        }
    }
}

import Loudness
import SystemLayer
import Testing

/// cafconv's own BS.1770 integrated loudness (``KWeightedLoudness``), which re-measures the
/// outputs of `convert --loudness`, against the oracle (48 kHz) and libebur128 (every rate).
@Suite(.enabled(if: libebur128, "libebur128 cannot be loaded (Debian libebur128-dev)"))
struct KWeightedLoudnessTests {
    /// `samples` (interleaved) measured in blocks of `block` frames.
    static func own(_ samples: [Double], channels: Int, rate: Int = Signals.rate, block: Int = 4096) throws -> KWeightedLoudness {
        let meter = try KWeightedLoudness(channels: channels, sampleRate: rate)
        let frames = samples.count / channels
        var start = 0
        while start < frames {
            let count = min(block, frames - start)
            samples[(start * channels)..<((start + count) * channels)].withUnsafeBufferPointer { meter.add($0, frames: count) }
            start += count
        }
        return meter
    }

    @Test("Noise changing level every second (both gates at work): within 0.01 LU of the oracle, stereo and 5.0")
    func oracle() throws {
        for (channels, weights) in [(2, [1.0, 1]), (5, [1, 1, 1, 1.41, 1.41])] {
            let samples = Signals.noise(seconds: 12, channels: channels, levels: [-12, -30, -18, -80, -24, -9])
            let expected = try #require(Oracle.integrated(samples, channels: channels, weights: weights))
            let measured = try Self.own(samples, channels: channels, block: 1000).integratedLoudness()
            #expect(near(measured, expected, 0.01), "\(channels) channels: \(String(describing: measured)) vs \(expected)")
        }
    }

    @Test(
        "Within 0.01 LU of libebur128 from 8 kHz to 192 kHz, mono to 5.1 (its LFE left out), short clips included",
        arguments: [(8_000, 1), (22_050, 1), (44_100, 2), (48_000, 6), (96_000, 2), (192_000, 3)])
    func libebur128(rate: Int, channels: Int) throws {
        // The level changes every 48 000 frames: at other rates the gates still have work.
        let long = Signals.noise(seconds: 6, channels: channels, levels: [-14, -40, -22, -75])
        for frames in [long.count / channels, rate / 3, rate / 50] {
            let samples = Array(long[0..<(frames * channels)])
            let reference = try measure(samples, channels: channels, rate: rate).integrated
            let meter = try Self.own(samples, channels: channels, rate: rate, block: 777)
            let measured = meter.integratedLoudness()
            #expect(meter.isShortClip == (frames * 10 < rate * 4), "\(rate) Hz, \(frames) frames")
            #expect(near(measured, try #require(reference), 0.01), "\(rate) Hz, \(frames) frames: \(String(describing: measured)) vs \(String(describing: reference))")
        }
    }

    @Test("The block size frames come in does not change the result; integers read as their doubles; silence reads nil")
    func blocksIntegersSilence() throws {
        let samples = Signals.noise(seconds: 3, channels: 2, levels: [-20, -26, -14]).map { ($0 * 32768).rounded() / 32768 }
        let whole = try #require(try Self.own(samples, channels: 2, block: samples.count).integratedLoudness())
        for block in [1, 441, 65_536] {
            #expect(near(try Self.own(samples, channels: 2, block: block).integratedLoudness(), whole, 1e-9), "block \(block)")
        }
        let integers = samples.map { Int32($0 * 32768) << 16 }
        let meter = try KWeightedLoudness(channels: 2, sampleRate: Signals.rate)
        var scratch: [Double] = []
        integers.withUnsafeBufferPointer { meter.add(leftJustified: $0, frames: integers.count / 2, scratch: &scratch) }
        #expect(near(meter.integratedLoudness(), whole, 1e-9))
        #expect(try Self.own(Signals.silence(seconds: 2), channels: 2).integratedLoudness() == nil)
        #expect(try Self.own(Signals.tones([(-80, 1)]), channels: 2).integratedLoudness() == nil)
        #expect(try KWeightedLoudness(channels: 1, sampleRate: 48_000).integratedLoudness() == nil)
        #expect(throws: LoudnessError.self) { try KWeightedLoudness(channels: 0, sampleRate: 48_000) }
    }

    @Test("A tone then 10 s of silence: the silent blocks gated out, the filter's tail (decaying past the subnormals) changes nothing")
    func longSilenceAfterAudio() throws {
        let samples = Signals.tones([(-20, 2)]) + Signals.silence(seconds: 10)
        // Only the 2 s of tone (and the blocks that overlap it) pass the relative gate.
        let measured = try Self.own(samples, channels: 2).integratedLoudness()
        let reference = try measure(samples, channels: 2).integrated
        #expect(near(measured, try #require(reference), 0.01), "\(String(describing: measured)) vs \(String(describing: reference))")
    }

    @Test("libebur128 takes left-justified integers as the doubles x / 2^31: every reading the same, fed in any blocks")
    func libebur128Integers() throws {
        let doubles = Signals.noise(seconds: 5, channels: 2, levels: [-20, -35, -12]).map { ($0 * 32768).rounded() / 32768 }
        let integers = doubles.map { Int32($0 * 32768) << 16 }
        let expected = try measure(doubles, channels: 2)
        for block in [1, 999, integers.count / 2] {
            let meter = try LoudnessMeter(channels: 2, sampleRate: Signals.rate)
            var start = 0
            while start < integers.count / 2 {
                let count = min(block, integers.count / 2 - start)
                try integers[(start * 2)..<((start + count) * 2)].withUnsafeBufferPointer { try meter.add(leftJustified: $0, frames: count) }
                start += count
            }
            #expect(meter.finish() == expected, "block \(block)")
        }
    }

    @Test("A group member's meter (no 3 s window, no momentary readings, no true peak) keeps the full meter's gating blocks, loudness and sample peak")
    func groupExtent() throws {
        let samples = Signals.noise(seconds: 7, channels: 2, levels: [-20, -45, -12, -30])
        for frames in [samples.count / 2, 9_000] {
            let part = Array(samples[0..<(frames * 2)])
            let full = try LoudnessMeter(channels: 2, sampleRate: Signals.rate)
            let group = try LoudnessMeter(channels: 2, sampleRate: Signals.rate, extent: .group)
            for meter in [full, group] {
                var start = 0
                while start < frames {
                    let count = min(1_234, frames - start)
                    try part[(start * 2)..<((start + count) * 2)].withUnsafeBufferPointer { try meter.add($0, frames: count) }
                    start += count
                }
            }
            // The same sums, but over a ring of another length (libebur128's window): equal to
            // the last bits, not bit for bit.
            let (blocks, expected) = (group.gatingBlocks, full.gatingBlocks)
            #expect(blocks.count == expected.count && !blocks.isEmpty, "\(frames) frames")
            #expect(zip(blocks, expected).allSatisfy { abs($0 - $1) <= 1e-12 * $1 }, "\(frames) frames")
            let (a, b) = (group.finish(), full.finish())
            #expect(near(a.integrated, try #require(b.integrated), 1e-9), "\(frames) frames")
            #expect(a.samplePeak == b.samplePeak && a.truePeak == nil, "\(frames) frames")
            #expect(a.isShortClip == b.isShortClip && a.maxShortTerm == nil)
        }
    }
}

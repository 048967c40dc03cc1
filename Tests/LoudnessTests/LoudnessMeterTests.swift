import Loudness
import SystemLayer
import Testing

/// Measures `samples` (interleaved) in blocks of `block` frames.
func measure(
    _ samples: [Double], channels: Int = 2, rate: Int = Signals.rate, block: Int = 4096,
    kinds: [LoudnessMeter.ChannelKind]? = nil
) throws -> LoudnessMeasurement {
    let meter = try LoudnessMeter(channels: channels, sampleRate: rate, kinds: kinds)
    let frames = samples.count / channels
    var start = 0
    while start < frames {
        let count = min(block, frames - start)
        try samples[(start * channels)..<((start + count) * channels)].withUnsafeBufferPointer { buffer in
            try meter.add(buffer, frames: count)
        }
        start += count
    }
    return meter.finish()
}

func near(_ value: Double?, _ expected: Double, _ tolerance: Double) -> Bool {
    guard let value else { return false }
    return abs(value - expected) <= tolerance
}

let libebur128 = LoudnessMeter.unavailableReason == nil

/// EBU Tech 3341 (2016/2023) Table 1 and Tech 3342 Table 1, the cases that are signals rather
/// than programme recordings, generated here; expected values and tolerances are the documents'.
@Suite(.enabled(if: libebur128, "libebur128 cannot be loaded (Debian libebur128-dev)"))
struct EBUConformanceTests {
    @Test("Tech 3341 cases 1 and 2: stereo 1 kHz at -23 and -33 dBFS read -23 and -33 LUFS (M, S, I)")
    func steadySines() throws {
        for level in [-23.0, -33.0] {
            let result = try measure(Signals.tones([(level, 20)]))
            #expect(near(result.integrated, level, 0.1), "\(level): \(String(describing: result.integrated))")
            #expect(near(result.maxMomentary, level, 0.1))
            #expect(near(result.maxShortTerm, level, 0.1))
            #expect(!result.isShortClip)
        }
    }

    @Test("Tech 3341 cases 3 to 5: gating leaves the quiet parts out (-23.0 ±0.1 LUFS)")
    func gating() throws {
        let cases: [[(Double, Double)]] = [
            [(-36, 10), (-23, 60), (-36, 10)],
            [(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)],
            [(-26, 20), (-20, 20.1), (-26, 20)],
        ]
        for segments in cases {
            let result = try measure(Signals.tones(segments))
            #expect(near(result.integrated, -23, 0.1), "\(segments): \(String(describing: result.integrated))")
        }
    }

    @Test("Tech 3341 case 6: 5.0 channels (L R -28, C -24, Ls Rs -30 dBFS) read -23.0 LUFS: surround weights 1.41")
    func surround() throws {
        let samples = Signals.sine(dBFS: [-28, -28, -24, -30, -30], seconds: 20)
        let result = try measure(samples, channels: 5)
        #expect(near(result.integrated, -23, 0.1), "\(String(describing: result.integrated))")
        // 5.1 in WAVE order: the LFE (channel 4) is left out, whatever it holds.
        let withLFE = Signals.sine(dBFS: [-28, -28, -24, 0, -30, -30], seconds: 20)
        let lfe = try measure(withLFE, channels: 6)
        #expect(near(lfe.integrated, -23, 0.1), "\(String(describing: lfe.integrated))")
    }

    @Test("Tech 3341 case 10: each 3 s tone at -23 dBFS after i x 0.15 s of silence has a maximum short-term of -23.0")
    func maxShortTerm() throws {
        for index in 0..<20 {
            let samples =
                Signals.silence(seconds: Double(index) * 0.15) + Signals.tones([(-23, 3)]) + Signals.silence(seconds: 1)
            let result = try measure(samples)
            #expect(near(result.maxShortTerm, -23, 0.1), "segment \(index): \(String(describing: result.maxShortTerm))")
        }
    }

    @Test("Tech 3341 case 13: each 400 ms tone at -23 dBFS after i x 20 ms of silence has a maximum momentary of -23.0")
    func maxMomentary() throws {
        for index in 0..<20 {
            let samples =
                Signals.silence(seconds: Double(index) * 0.02) + Signals.tones([(-23, 0.4)]) + Signals.silence(seconds: 1)
            let result = try measure(samples)
            #expect(near(result.maxMomentary, -23, 0.1), "segment \(index): \(String(describing: result.maxMomentary))")
        }
    }

    @Test("Tech 3341 cases 15 to 19: true peak within +0.2/-0.4 dB of -6.0 (and +3.0) dBTP")
    func truePeak() throws {
        let rate = Double(Signals.rate)
        // (frequency, amplitude, phase in degrees, expected dBTP)
        let cases: [(Double, Double, Double, Double)] = [
            (rate / 4, 0.5, 0, -6), (rate / 4, 0.5, 45, -6), (rate / 6, 0.5, 60, -6), (rate / 8, 0.5, 67.5, -6),
            (rate / 4, 1.41, 45, 3),
        ]
        for (frequency, amplitude, phase, expected) in cases {
            let level = 20 * log10(amplitude)
            var samples = Signals.sine(dBFS: [level, level], frequency: frequency, seconds: 1, phase: phase)
            Signals.taper(&samples, channels: 2, seconds: 0.01)
            let result = try measure(samples)
            let peak = try #require(result.truePeak)
            #expect(peak >= expected - 0.4 && peak <= expected + 0.2, "\(frequency) Hz, \(phase)°: \(peak) dBTP")
            // The sample peak of case 16 sits 3 dB below: true peak is not the sample peak.
            if frequency == rate / 4 && phase == 45 && amplitude == 0.5 {
                #expect(near(result.samplePeak, -9.03, 0.05), "\(String(describing: result.samplePeak))")
            }
        }
    }

    @Test("Tech 3342 cases 1 to 4: loudness range within ±1 LU of 10, 5, 20 and 15 LU")
    func loudnessRange() throws {
        let cases: [([(Double, Double)], Double)] = [
            ([(-20, 20), (-30, 20)], 10),
            ([(-20, 20), (-15, 20)], 5),
            ([(-40, 20), (-20, 20)], 20),
            ([(-50, 20), (-35, 20), (-20, 20), (-35, 20), (-50, 20)], 15),
        ]
        for (segments, expected) in cases {
            let result = try measure(Signals.tones(segments))
            #expect(abs(result.range - expected) <= 1, "\(segments): \(result.range) LU")
        }
    }
}

/// The meter against an independent BS.1770 computation (``Oracle``), on signals the EBU
/// documents do not cover.
@Suite(.enabled(if: libebur128, "libebur128 cannot be loaded (Debian libebur128-dev)"))
struct LoudnessOracleTests {
    @Test("Noise changing level every second: integrated and maximum momentary within 0.05 LU of the oracle")
    func noise() throws {
        let samples = Signals.noise(seconds: 12, channels: 2, levels: [-12, -30, -18, -80, -24, -9])
        let result = try measure(samples, block: 1000)
        let weights = [1.0, 1.0]
        let integrated = try #require(Oracle.integrated(samples, channels: 2, weights: weights))
        #expect(near(result.integrated, integrated, 0.05), "\(String(describing: result.integrated)) vs \(integrated)")
        let momentary = Oracle.maxWindow(samples, channels: 2, weights: weights, window: 19_200, hop: 480)
        #expect(near(result.maxMomentary, momentary, 0.05), "\(String(describing: result.maxMomentary)) vs \(momentary)")
        let shortTerm = Oracle.maxWindow(samples, channels: 2, weights: weights, window: 144_000, hop: 480)
        #expect(near(result.maxShortTerm, shortTerm, 0.05), "\(String(describing: result.maxShortTerm)) vs \(shortTerm)")
    }

    @Test(
        "A clip shorter than 400 ms reads its ungated K-weighted loudness over exactly its own frames, flagged short",
        arguments: [481, 4_801, 9_000, 19_199])
    func shortClip(frames: Int) throws {
        // A fade-in makes the start matter: a window one frame off would read differently.
        var samples = Signals.noise(seconds: 1, channels: 2, levels: [-14])
        samples.removeLast(samples.count - frames * 2)
        for frame in 0..<frames {
            let gain = Double(frame) / Double(frames)
            samples[2 * frame] *= gain
            samples[2 * frame + 1] *= gain
        }
        let result = try measure(samples, block: 97)
        #expect(result.isShortClip)
        let expected = Oracle.whole(samples, channels: 2, weights: [1, 1])
        #expect(near(result.integrated, expected, 0.01), "\(frames) frames: \(String(describing: result.integrated)) vs \(expected)")
    }

    @Test("One gating block or more is not a short clip; silence and levels below -70 LUFS read as silent (nil)")
    func boundaries() throws {
        let block = try measure(Signals.tones([(-20, 0.4)]))
        #expect(!block.isShortClip)
        #expect(near(block.integrated, -20, 0.1))
        let silent = try measure(Signals.silence(seconds: 2))
        #expect(silent.integrated == nil && silent.truePeak == nil && silent.samplePeak == nil)
        let quietClip = try measure(Signals.tones([(-75, 0.1)]))
        #expect(quietClip.isShortClip && quietClip.integrated == nil)
        let empty = try measure([])
        #expect(empty.integrated == nil && empty.frames == 0)
    }

    @Test("The result does not depend on the block size frames are fed in")
    func blockSizes() throws {
        let samples = Signals.noise(seconds: 4, channels: 2, levels: [-20, -26, -14, -30])
        let whole = try measure(samples, block: samples.count)
        for block in [1, 441, 65_536] {
            let result = try measure(samples, block: block)
            #expect(result == whole, "block \(block)")
        }
    }

    @Test("Meters refuse what they cannot measure, saying so")
    func refusals() {
        #expect(throws: LoudnessError.self) { try LoudnessMeter(channels: 0, sampleRate: 48_000) }
        #expect(throws: LoudnessError.self) { try LoudnessMeter(channels: 2, sampleRate: 0) }
        #expect(throws: LoudnessError.self) { try LoudnessMeter(channels: 2, sampleRate: 48_000, kinds: [.left]) }
    }
}

/// Group loudness (album gain) and the static gain that normalises a programme.
@Suite(.enabled(if: libebur128, "libebur128 cannot be loaded (Debian libebur128-dev)"))
struct LoudnessGroupAndGainTests {
    static func meter(_ samples: [Double]) throws -> LoudnessMeter {
        let meter = try LoudnessMeter(channels: 2, sampleRate: Signals.rate)
        try meter.add(samples, frames: samples.count / 2)
        return meter
    }

    @Test("A group of one programme reads its own integrated loudness")
    func groupOfOne() throws {
        let meter = try Self.meter(Signals.noise(seconds: 6, channels: 2, levels: [-20, -35, -14]))
        let own = try #require(meter.integratedLoudness())
        let group = try #require(LoudnessMeter.integrated(ofBlocks: [meter.gatingBlocks]))
        #expect(abs(group - own) < 0.001, "\(group) vs \(own)")
    }

    @Test("Two programmes gated together match the oracle's gating of their blocks together, not the mean of their levels")
    func groupOfTwo() throws {
        let loud = Signals.noise(seconds: 10, channels: 2, levels: [-16])
        let quiet = Signals.noise(seconds: 5, channels: 2, levels: [-40], seed: 7)
        let group = try #require(LoudnessMeter.integrated(ofBlocks: [try Self.meter(loud).gatingBlocks, try Self.meter(quiet).gatingBlocks]))
        // The oracle: each file's 400 ms blocks every 100 ms, gated together.
        func blocks(_ samples: [Double]) -> [Double] {
            let sums = Oracle.prefix(Oracle.weightedPower(samples, channels: 2, weights: [1, 1]))
            return stride(from: 19_200, to: sums.count, by: 4_800).map { (sums[$0] - sums[$0 - 19_200]) / 19_200 }
        }
        let union = (blocks(loud) + blocks(quiet)).filter { Oracle.loudness($0) > -70 }
        let relative = Oracle.loudness(union.reduce(0, +) / Double(union.count)) - 10
        let gated = union.filter { Oracle.loudness($0) > relative }
        let expected = Oracle.loudness(gated.reduce(0, +) / Double(gated.count))
        #expect(abs(group - expected) < 0.05, "\(group) vs \(expected)")
        // The quiet file falls under the relative gate: the group reads the loud one's level.
        #expect(abs(group - (try #require(try Self.meter(loud).integratedLoudness()))) < 0.05)
    }

    @Test("The gain reaches the target, or stops at the true-peak ceiling and names the shortfall")
    func gain() {
        let plain = LoudnessGain.plan(loudness: -23, truePeak: -10, target: -16, ceiling: -1)
        #expect(plain.decibels == 7 && plain.reached == -16 && !plain.isCapped && plain.truePeak == -3)
        let capped = LoudnessGain.plan(loudness: -23, truePeak: -4, target: -16, ceiling: -1)
        #expect(capped.decibels == 3 && capped.reached == -20 && capped.isCapped && capped.shortfall == 4)
        #expect(capped.truePeak == -1)
        let down = LoudnessGain.plan(loudness: -9, truePeak: 0.5, target: -16, ceiling: -1)
        #expect(down.decibels == -7 && !down.isCapped)
        let group = LoudnessGain.plan(group: -20, truePeaks: [-6, nil, -2], target: -16, ceiling: -1)
        #expect(group.decibels == 1 && group.shortfall == 3)
        let silent = LoudnessMeasurement(
            integrated: nil, isShortClip: false, range: 0, truePeak: nil, samplePeak: nil, maxMomentary: nil,
            maxShortTerm: nil, frames: 100, sampleRate: 48_000, channels: 1)
        #expect(LoudnessGain.plan(silent, target: -16, ceiling: -1) == nil)
    }

    @Test("An uncapped gain reaches the target exactly: no shortfall from rounding (-54.17... LUFS to -19.7)")
    func uncappedIsExact() {
        // loudness + (target - loudness) rounds to -19.700000000000003 here.
        let gain = LoudnessGain.plan(loudness: -54.172358499456294, truePeak: -60, target: -19.7, ceiling: -1)
        #expect(!gain.isCapped && gain.reached == -19.7 && gain.shortfall == 0, "\(gain)")
    }

    @Test("Applying the planned gain to the samples and measuring again reads the target within 0.1 LU")
    func gainApplied() throws {
        let samples = Signals.noise(seconds: 8, channels: 2, levels: [-30, -26, -34])
        let before = try measure(samples)
        let gain = try #require(LoudnessGain.plan(before, target: -16, ceiling: -1))
        let after = try measure(samples.map { $0 * gain.factor })
        #expect(near(after.integrated, gain.reached, 0.1), "\(String(describing: after.integrated)) vs \(gain.reached)")
        #expect(after.truePeak.map { $0 <= -1 + 0.01 } == true, "\(String(describing: after.truePeak))")
    }
}

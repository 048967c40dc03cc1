import SystemLayer

/// One static gain that brings a measured programme to a loudness target without taking its
/// true peak above a ceiling: never a limiter, never anything dynamic. Gain is linear, so the
/// programme's loudness and true peak both move by exactly the gain in dB (BS.1770's
/// K-weighting and gating and the oversampling true-peak meter are linear and scale-invariant
/// above the gates); what the output really reaches is measured again from its own decoding.
public struct LoudnessGain: Sendable, Equatable, Codable {
    /// The gain to apply, dB (negative: quieter).
    public var decibels: Double
    /// The loudness asked, LUFS.
    public var target: Double
    /// The loudness the gain brings the programme to, LUFS: `target`, or less when the
    /// true-peak ceiling caps the gain.
    public var reached: Double
    /// The true-peak ceiling, dBTP.
    public var ceiling: Double
    /// The true peak after the gain, dBTP.
    public var truePeak: Double

    /// Whether the ceiling capped the gain (``reached`` is below ``target``).
    public var isCapped: Bool { shortfall > 0 }
    /// How far ``reached`` falls short of ``target``, LU (0 when not capped).
    public var shortfall: Double { max(0, target - reached) }

    /// The gain as a factor on the samples.
    public var factor: Double { pow(10, decibels / 20) }

    /// The gain for `measurement`; `nil` when it is silent (no integrated loudness: no gain
    /// reaches a target from silence).
    public static func plan(
        _ measurement: LoudnessMeasurement, target: Double, ceiling: Double, headroom: Double = 0
    ) -> LoudnessGain? {
        guard let loudness = measurement.integrated else { return nil }
        return plan(loudness: loudness, truePeak: measurement.truePeak, target: target, ceiling: ceiling, headroom: headroom)
    }

    /// The gain that takes `loudness` to `target`, capped so that `truePeak` (dBTP; `nil` for
    /// none) stays at or below `ceiling` less `headroom` (``codingHeadroom(bits:companded:ceiling:)``).
    public static func plan(
        loudness: Double, truePeak: Double?, target: Double, ceiling: Double, headroom: Double = 0
    ) -> LoudnessGain {
        var gain = target - loudness
        // Exactly the target when not capped (`loudness + gain` may round a hair below it, which
        // would read as a shortfall).
        var reached = target
        if let truePeak, truePeak + gain > ceiling - headroom {
            gain = ceiling - headroom - truePeak
            reached = loudness + gain
        }
        return LoudnessGain(
            decibels: gain, target: target, reached: reached, ceiling: ceiling,
            truePeak: (truePeak ?? -Double.infinity) + gain)
    }

    /// One gain for a group whose files keep their relative levels (as album gain): the group's
    /// loudness (``LoudnessMeter/integrated(ofBlocks:)``) to `target`, capped by the loudest true peak
    /// of any file.
    public static func plan(
        group loudness: Double, truePeaks: [Double?], target: Double, ceiling: Double, headroom: Double = 0
    ) -> LoudnessGain {
        plan(loudness: loudness, truePeak: truePeaks.compactMap { $0 }.max(), target: target, ceiling: ceiling, headroom: headroom)
    }

    /// How far below `ceiling` (dBTP) a capped gain must leave the true peak so that the output's
    /// own coding cannot take it over: rounding with TPDF dither moves an integer sample of `bits`
    /// bits by less than 1.5 steps, and µ-law or A-law (`companded`) by half its coarsest step,
    /// 1/64 of full scale; the true-peak meter's interpolator raises such an error by its
    /// overshoot (at most 1.865 times, see ``interpolatorOvershoot(sampleRate:)``). Floats
    /// (`bits` nil) round by a part in 2^24 of the sample. dB, 0.0001 at least.
    public static func codingHeadroom(bits: Int?, companded: Bool, ceiling: Double) -> Double {
        let ceilingLevel = pow(10, ceiling / 20)
        let error: Double
        if companded {
            error = 1.0 / 64 * 1.865
        } else if let bits, bits > 1 {
            error = 1.5 * pow(2, -Double(bits - 1)) * 1.865
        } else {
            error = ceilingLevel * pow(2, -24) * 1.865
        }
        return max(0.0001, 20 * log10(1 + error / ceilingLevel))
    }

    /// How far above a programme's sample peak libebur128's true-peak meter can read, dB: its
    /// interpolator (below 96 kHz 4x, below 192 kHz 2x oversampling, by a 49-tap Hann-windowed
    /// sinc split into one sub-filter per phase) makes each oversampled value a weighted sum of
    /// input samples, so no value exceeds the sample peak times the largest sum of |coefficients|
    /// of any phase: 1.86418 (+5.41 dB) at 4x, 2.30683 (+7.26 dB) at 2x; from 192 kHz it does not
    /// oversample. Rounded up (and a hair more for its float arithmetic).
    public static func interpolatorOvershoot(sampleRate: Int) -> Double {
        sampleRate < 96_000 ? 5.411 : sampleRate < 192_000 ? 7.261 : 0.001
    }

    /// Whether the true peak could cap the gain that takes `loudness` to `target`: only when the
    /// sample peak (dBFS) plus that gain plus ``interpolatorOvershoot(sampleRate:)`` could pass
    /// `ceiling`. When it cannot, the true peak need not be measured (its oversampling is most of
    /// libebur128's work) and the gain is the uncapped one.
    public static func truePeakCouldDecide(
        loudness: Double, samplePeak: Double?, sampleRate: Int, target: Double, ceiling: Double
    ) -> Bool {
        guard let samplePeak else { return false }
        return samplePeak + (target - loudness) + interpolatorOvershoot(sampleRate: sampleRate) > ceiling
    }

    public init(decibels: Double, target: Double, reached: Double, ceiling: Double, truePeak: Double) {
        self.decibels = decibels
        self.target = target
        self.reached = reached
        self.ceiling = ceiling
        self.truePeak = truePeak
    }
}

import SystemLayer

/// BS.1770-4 integrated loudness computed by cafconv itself, not by libebur128: the K-weighting
/// filter (a high-shelf and a high-pass biquad, designed at the file's rate from BS.1770's
/// analogue parameters), 400 ms gating blocks every 100 ms, the -70 LUFS absolute and -10 LU
/// relative gates; a clip shorter than one gating block reads its ungated K-weighted loudness
/// over exactly its own frames (``LoudnessMeasurement/isShortClip``), the same rule as
/// ``LoudnessMeter``.
///
/// `convert --loudness` re-measures its outputs with it: the gain is planned from libebur128's
/// measurement of the source, and checked by a second implementation, so that no library grades
/// its own work. It measures only the integrated loudness, which makes it cheap: each filter
/// step depends on the previous output through one multiply-add (the other terms are summed
/// first), where a direct transcription of the fourth-order filter chains five.
///
/// Memory: the filter states and one number per 100 ms of programme above the absolute gate.
public final class KWeightedLoudness {
    /// Channels per frame.
    public let channels: Int
    /// Frames per second.
    public let sampleRate: Int
    /// Frames added so far.
    public private(set) var frames: Int64 = 0
    /// BS.1770's weight of each channel (0: not measured, LFE).
    private let weights: [Double]
    private let shelf: Biquad
    private let highPass: Biquad
    /// The filters' states, two channels to a vector.
    private var filters: [FilterState]
    /// 100 ms in frames, rounded as libebur128 and BS.1770 implementations round it.
    private let stepFrames: Int
    private var framesInStep = 0
    private var stepEnergy = 0.0
    /// The weighted energy sums of the last three whole 100 ms steps, oldest first.
    private var previousSteps = (0.0, 0.0, 0.0)
    private var wholeSteps = 0
    /// The weighted energy sum of every frame (the short-clip fallback).
    private var totalEnergy = 0.0
    /// The mean weighted energies of the gating blocks at or above the absolute gate.
    private var blocks: [Double] = []

    /// A meter for `channels` channels at `sampleRate` Hz, their kinds (weights) `kinds`, or as
    /// ``LoudnessMeter/ChannelKind/standard(channels:)`` says when `nil` (or not one a channel).
    public init(channels: Int, sampleRate: Int, kinds: [LoudnessMeter.ChannelKind]? = nil) throws(LoudnessError) {
        guard (1...64).contains(channels) else { throw LoudnessError("cannot measure \(channels) channels (1 to 64)") }
        guard (8...2_822_400).contains(sampleRate) else {
            throw LoudnessError("cannot measure at \(sampleRate) Hz (8 Hz to 2.8224 MHz)")
        }
        self.channels = channels
        self.sampleRate = sampleRate
        let kinds = kinds.flatMap { $0.count == channels ? $0 : nil } ?? LoudnessMeter.ChannelKind.standard(channels: channels)
        weights = kinds.map(\.weight)
        let rate = Double(sampleRate)
        shelf = .highShelf(rate: rate)
        highPass = .highPass(rate: rate)
        filters = [FilterState](repeating: FilterState(), count: (channels + 1) / 2)
        stepFrames = (sampleRate + 5) / 10
    }

    /// Adds `frameCount` interleaved frames from `samples`, each sample times `scale` (1 for
    /// full scale ±1.0; 2^-31 for left-justified 32-bit integers).
    public func add(_ samples: UnsafeBufferPointer<Double>, frames frameCount: Int, scale: Double = 1) {
        var done = 0
        while done < frameCount {
            let count = min(frameCount - done, stepFrames - framesInStep)
            var energy = 0.0
            for pair in filters.indices {
                let energies = filter(samples, from: done, count: count, pair: pair, scale: scale)
                energy += weights[2 * pair] * energies.x + (2 * pair + 1 < channels ? weights[2 * pair + 1] * energies.y : 0)
            }
            stepEnergy += energy
            framesInStep += count
            done += count
            if framesInStep == stepFrames { endStep() }
        }
        frames += Int64(frameCount)
    }

    /// Adds `frameCount` interleaved frames of left-justified 32-bit integers (full scale 2^31).
    public func add(leftJustified samples: UnsafeBufferPointer<Int32>, frames frameCount: Int, scratch: inout [Double]) {
        let count = frameCount * channels
        if scratch.count < count { scratch = [Double](repeating: 0, count: count) }
        for index in 0..<count { scratch[index] = Double(samples[index]) }
        scratch.withUnsafeBufferPointer { add($0, frames: frameCount, scale: 0x1p-31) }
    }

    /// Runs `count` frames of a pair of channels (`pair * 2` and the next, when there is one)
    /// through the K-weighting filter, the two side by side in one vector; their energies.
    private func filter(
        _ samples: UnsafeBufferPointer<Double>, from start: Int, count: Int, pair: Int, scale: Double
    ) -> SIMD2<Double> {
        let s = shelf
        let h = highPass
        let first = pair * 2
        let hasSecond = first + 1 < channels
        var filter = filters[pair]
        var energy = SIMD2<Double>()
        var index = start * channels + first
        for _ in 0..<count {
            let x = SIMD2(samples[index], hasSecond ? samples[index + 1] : 0) * scale
            index += channels
            // The terms that do not depend on the last output first, then the one that does.
            let y = (s.b0 * x + s.b1 * filter.x1 + s.b2 * filter.x2 - s.a2 * filter.y2) - s.a1 * filter.y1
            (filter.x2, filter.x1, filter.y2, filter.y1) = (filter.x1, x, filter.y1, y)
            let z = (h.b0 * y + h.b1 * filter.w1 + h.b2 * filter.w2 - h.a2 * filter.z2) - h.a1 * filter.z1
            (filter.w2, filter.w1, filter.z2, filter.z1) = (filter.w1, y, filter.z1, z)
            energy += z * z
        }
        filters[pair] = filter.flushed()
        return energy
    }

    /// A whole 100 ms step ended: from the fourth on, the gating block of the last four is kept
    /// when it passes the absolute gate.
    private func endStep() {
        totalEnergy += stepEnergy
        wholeSteps += 1
        if wholeSteps >= 4 {
            let mean = (previousSteps.0 + previousSteps.1 + previousSteps.2 + stepEnergy) / Double(4 * stepFrames)
            if mean >= Self.energy(LoudnessMeter.absoluteGate) { blocks.append(mean) }
        }
        previousSteps = (previousSteps.1, previousSteps.2, stepEnergy)
        stepEnergy = 0
        framesInStep = 0
    }

    /// Whether the frames so far are fewer than one 400 ms gating block.
    public var isShortClip: Bool { frames < Int64(4 * stepFrames) }

    /// The integrated loudness of the frames so far, LUFS (for a short clip, the ungated
    /// K-weighted loudness of its frames); `nil` for silence or below -70 LUFS.
    public func integratedLoudness() -> Double? {
        let value: Double
        if isShortClip {
            guard frames > 0 else { return nil }
            value = Self.loudness((totalEnergy + stepEnergy) / Double(frames))
        } else {
            guard !blocks.isEmpty else { return nil }
            let relative = blocks.reduce(0, +) / Double(blocks.count) * Self.energy(-10 - 0.691)
            let gated = blocks.filter { $0 >= relative }
            guard !gated.isEmpty else { return nil }
            value = Self.loudness(gated.reduce(0, +) / Double(gated.count))
        }
        return value.isFinite && value >= LoudnessMeter.absoluteGate ? value : nil
    }

    private static func energy(_ loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }
    private static func loudness(_ energy: Double) -> Double { -0.691 + 10 * log10(energy) }
}

/// The K-weighting filter's state for two channels: the shelf's last inputs (x) and outputs
/// (y), the high-pass's last inputs (w, the shelf's outputs) and outputs (z).
struct FilterState {
    var x1 = SIMD2<Double>(), x2 = SIMD2<Double>(), y1 = SIMD2<Double>(), y2 = SIMD2<Double>()
    var w1 = SIMD2<Double>(), w2 = SIMD2<Double>(), z1 = SIMD2<Double>(), z2 = SIMD2<Double>()

    /// Values this small add nothing a -70 LUFS gate could see: flushed to zero, so that a
    /// filter decaying after the audio never reaches the CPU's slow subnormal arithmetic.
    func flushed() -> FilterState {
        func flush(_ value: SIMD2<Double>) -> SIMD2<Double> {
            value.replacing(with: 0, where: value .< SIMD2(repeating: 1e-150) .& value .> SIMD2(repeating: -1e-150))
        }
        return FilterState(
            x1: flush(x1), x2: flush(x2), y1: flush(y1), y2: flush(y2), w1: flush(w1), w2: flush(w2), z1: flush(z1),
            z2: flush(z2))
    }
}

/// One biquad's coefficients, normalised (a0 = 1).
struct Biquad {
    var b0, b1, b2, a1, a2: Double

    /// BS.1770's first stage, the high shelf that models the head (+4 dB above about 1.7 kHz),
    /// bilinear-transformed at `rate` from its analogue parameters.
    static func highShelf(rate: Double) -> Biquad {
        let frequency = 1681.974450955533
        let gain = 3.999843853973347
        let q = 0.7071752369554196
        let k = tan(Double.pi * frequency / rate)
        let high = pow(10, gain / 20)
        let band = pow(high, 0.4996667741545416)
        let a0 = 1 + k / q + k * k
        return Biquad(
            b0: (high + band * k / q + k * k) / a0, b1: 2 * (k * k - high) / a0, b2: (high - band * k / q + k * k) / a0,
            a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
    }

    /// BS.1770's second stage, the RLB high-pass (about 38 Hz), at `rate`: numerator 1, -2, 1.
    static func highPass(rate: Double) -> Biquad {
        let frequency = 38.13547087602444
        let q = 0.5003270373238773
        let k = tan(Double.pi * frequency / rate)
        let a0 = 1 + k / q + k * k
        return Biquad(b0: 1, b1: -2, b2: 1, a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
    }
}

extension LoudnessMeter.ChannelKind {
    /// BS.1770's weight of a channel of this kind: 1.0 for left, right and centre, 1.41 for
    /// surrounds, 2.0 for a mono channel counted twice, 0 for one not measured.
    var weight: Double {
        switch self {
        case .unused: return 0
        case .left, .right, .centre: return 1
        case .leftSurround, .rightSurround: return 1.41
        case .dualMono: return 2
        }
    }
}

import SystemLayer

/// Test signals of EBU Tech 3341 and 3342, generated here (interleaved, full scale ±1.0).
enum Signals {
    static let rate = 48_000

    /// `seconds` of a sine of `frequency` Hz whose peak is `dBFS`, the same in each of `channels`
    /// channels (or per channel levels), starting at phase `phase` (degrees).
    static func sine(
        dBFS levels: [Double], frequency: Double = 1000, seconds: Double, phase: Double = 0, rate: Int = rate
    ) -> [Double] {
        let frames = Int((seconds * Double(rate)).rounded())
        let amplitudes = levels.map { pow(10, $0 / 20) }
        var samples = [Double](repeating: 0, count: frames * levels.count)
        let step = 2 * Double.pi * frequency / Double(rate)
        let start = phase * Double.pi / 180
        for frame in 0..<frames {
            let value = sin(start + step * Double(frame))
            for (channel, amplitude) in amplitudes.enumerated() { samples[frame * levels.count + channel] = amplitude * value }
        }
        return samples
    }

    /// A stereo 1 kHz sine: one (level, seconds) segment after another, each starting at phase 0.
    static func tones(_ segments: [(Double, Double)], channels: Int = 2) -> [Double] {
        segments.flatMap { level, seconds in sine(dBFS: Array(repeating: level, count: channels), seconds: seconds) }
    }

    /// Stereo silence.
    static func silence(seconds: Double, channels: Int = 2) -> [Double] {
        [Double](repeating: 0, count: Int((seconds * Double(rate)).rounded()) * channels)
    }

    /// Raised-cosine fades of `seconds` at both ends (Tech 3341's true-peak signals have 10 ms
    /// tapers), in place.
    static func taper(_ samples: inout [Double], channels: Int, seconds: Double) {
        let frames = samples.count / channels
        let length = Int(seconds * Double(rate))
        for index in 0..<min(length, frames / 2) {
            let gain = 0.5 - 0.5 * cos(Double.pi * Double(index) / Double(length))
            for channel in 0..<channels {
                samples[index * channels + channel] *= gain
                samples[(frames - 1 - index) * channels + channel] *= gain
            }
        }
    }

    /// Deterministic noise (xorshift), `seconds` long, in `channels` channels, its level changing
    /// every second through `levels` (dB).
    static func noise(seconds: Double, channels: Int, levels: [Double], seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Double] {
        var state = seed
        let frames = Int(seconds * Double(rate))
        var samples = [Double](repeating: 0, count: frames * channels)
        for frame in 0..<frames {
            let gain = pow(10, levels[(frame / rate) % levels.count] / 20)
            for channel in 0..<channels {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let uniform = Double(state >> 11) / Double(UInt64(1) << 53)
                samples[frame * channels + channel] = gain * (2 * uniform - 1)
            }
        }
        return samples
    }
}

/// An independent BS.1770-4 loudness computation, written from the recommendation's own
/// coefficients for 48 kHz (Annex 1, Tables 1 and 2) and its gating rules: the oracle the
/// meter (libebur128) is checked against. Not libebur128's code, nor derived from it.
enum Oracle {
    /// The two biquads of the K-weighting filter at 48 kHz (b0 b1 b2, a1 a2).
    static let shelf = (1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585)
    static let highPass = (1.0, -2.0, 1.0, -1.99004745483398, 0.99007225036621)

    /// Per frame, the weighted sum over channels of the K-weighted squares.
    static func weightedPower(_ samples: [Double], channels: Int, weights: [Double]) -> [Double] {
        let frames = samples.count / channels
        var power = [Double](repeating: 0, count: frames)
        for channel in 0..<channels {
            var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
            var (u1, u2, z1, z2) = (0.0, 0.0, 0.0, 0.0)
            for frame in 0..<frames {
                let x = samples[frame * channels + channel]
                let y = shelf.0 * x + shelf.1 * x1 + shelf.2 * x2 - shelf.3 * y1 - shelf.4 * y2
                (x2, x1, y2, y1) = (x1, x, y1, y)
                let z = highPass.0 * y + highPass.1 * u1 + highPass.2 * u2 - highPass.3 * z1 - highPass.4 * z2
                (u2, u1, z2, z1) = (u1, y, z1, z)
                power[frame] += weights[channel] * z * z
            }
        }
        return power
    }

    static func loudness(_ energy: Double) -> Double { -0.691 + 10 * log10(energy) }

    /// Prefix sums of `power`: the energy of frames [a, b) is (p[b] - p[a]).
    static func prefix(_ power: [Double]) -> [Double] {
        var sums = [Double](repeating: 0, count: power.count + 1)
        for index in power.indices { sums[index + 1] = sums[index] + power[index] }
        return sums
    }

    /// The gated integrated loudness (400 ms blocks, 100 ms steps, -70 LUFS absolute gate, -10 LU
    /// relative gate), or `nil` when no block passes.
    static func integrated(_ samples: [Double], channels: Int, weights: [Double]) -> Double? {
        let sums = prefix(weightedPower(samples, channels: channels, weights: weights))
        let frames = sums.count - 1
        let block = 19_200
        let step = 4_800
        var energies: [Double] = []
        var start = 0
        while start + block <= frames {
            energies.append((sums[start + block] - sums[start]) / Double(block))
            start += step
        }
        let absolute = energies.filter { $0 > 0 && loudness($0) > -70 }
        guard !absolute.isEmpty else { return nil }
        let relative = loudness(absolute.reduce(0, +) / Double(absolute.count)) - 10
        let gated = absolute.filter { loudness($0) > relative }
        guard !gated.isEmpty else { return nil }
        return loudness(gated.reduce(0, +) / Double(gated.count))
    }

    /// The ungated loudness of the whole clip.
    static func whole(_ samples: [Double], channels: Int, weights: [Double]) -> Double {
        let power = weightedPower(samples, channels: channels, weights: weights)
        return loudness(power.reduce(0, +) / Double(power.count))
    }

    /// The largest loudness of a `window`-frame window ending every `hop` frames (the time before
    /// the start counts as silence).
    static func maxWindow(_ samples: [Double], channels: Int, weights: [Double], window: Int, hop: Int) -> Double {
        let sums = prefix(weightedPower(samples, channels: channels, weights: weights))
        var best = -Double.infinity
        var end = hop
        while end < sums.count {
            best = max(best, loudness((sums[end] - sums[max(0, end - window)]) / Double(window)))
            end += hop
        }
        return best
    }
}

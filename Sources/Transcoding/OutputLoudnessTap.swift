import CAFKit
import Loudness

/// `--loudness`: the output's loudness measured from the proof's own decoding of the output (the
/// frames the proof reads back and compares anyway), so the re-measurement decodes nothing of its
/// own. An integrated-only meter (``LoudnessMeter/Extent/integrated``): no true-peak oversampling.
/// A proof whose decoder has no tap (G.711, IMA4, AAC, Opus) leaves it unfed, and the output is
/// then measured from a decoding of its own (``LoudnessScan/check(_:reaches:tap:)``).
package final class OutputLoudnessTap {
    private var meter: LoudnessMeter?
    private var doubles: [Double] = []
    /// Why the meter could not take the output (it is then measured again on its own).
    private var failure: String?

    package init() {}

    /// The measurement of every frame fed, when the proof fed it the whole output without a
    /// failure; `nil` otherwise.
    package func measurement() -> LoudnessMeasurement? {
        guard failure == nil, let meter else { return nil }
        return meter.finish()
    }

    /// Starts (once) a meter of `channels` channels at `sampleRate` Hz.
    func begin(channels: Int, sampleRate: Int) {
        guard meter == nil, failure == nil else { return }
        do { meter = try LoudnessMeter(channels: channels, sampleRate: sampleRate, extent: .integrated) } catch {
            failure = error.message
        }
    }

    /// Feeds `samples` samples of the output's bytes as CAFKit decodes them under `layout`.
    func add(_ layout: PCMLayout, bytes: ArraySlice<UInt8>, samples: Int) {
        if layout.isFloat {
            add(layout.decodeFloats(bytes), samples: samples)
            return
        }
        let scale = 1 / Double(Int64(1) << (layout.bits - 1))
        let integers = layout.decodeIntegers(bytes)
        if doubles.count < samples { doubles = [Double](repeating: 0, count: samples) }
        for index in 0..<min(samples, integers.count) { doubles[index] = Double(integers[index]) * scale }
        add(doubles, samples: samples)
    }

    /// Feeds `samples` left-justified 32-bit samples (libsndfile's decoding of the output).
    func add(leftJustified samples: [Int32], count: Int) {
        if doubles.count < count { doubles = [Double](repeating: 0, count: count) }
        for index in 0..<count { doubles[index] = Double(samples[index]) * 0x1p-31 }
        add(doubles, samples: count)
    }

    private func add(_ values: [Double], samples: Int) {
        guard let meter, failure == nil else { return }
        let count = min(samples, values.count)
        if let bad = values[0..<count].first(where: { !$0.isFinite }) {
            failure = "the output holds a sample that is not a finite number (\(bad))"
            return
        }
        do { try meter.add(values, frames: count / meter.channels) } catch { failure = error.message }
    }
}

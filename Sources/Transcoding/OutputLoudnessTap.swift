import CAFKit
import Loudness

/// `--loudness`: the output's loudness measured from the proof's own decoding of the output (the
/// frames the proof reads back and compares anyway), so the re-measurement decodes nothing of its
/// own. The meter is cafconv's own BS.1770 integrated loudness (``KWeightedLoudness``), not
/// libebur128, which measured the source the gain was planned from: the check that the output
/// reaches its level is a second implementation's. A proof whose decoder has no tap (G.711,
/// IMA4, AAC, Opus) leaves it unfed, and the output is then measured from a decoding of its own
/// (``LoudnessScan/check(_:reaches:tap:)``).
package final class OutputLoudnessTap {
    private var meter: KWeightedLoudness?
    /// Decoded samples, a small block at a time (below the allocator's threshold for mapping
    /// fresh pages, so that it is reused from one block to the next).
    private var scratch: [Double] = []
    /// Why the meter could not take the output (it is then measured again on its own).
    private var failure: String?

    /// Samples decoded from the output's bytes at a time.
    static let chunkSamples = 4096

    /// The weights the source's meter gave the channels (from where they play), so that the
    /// output is weighed as its plan was; `nil`: by their count.
    package let kinds: [LoudnessMeter.ChannelKind]?

    package init(kinds: [LoudnessMeter.ChannelKind]? = nil) { self.kinds = kinds }

    /// The measurement of every frame fed, when the proof fed it the whole output without a
    /// failure; `nil` otherwise.
    package func measurement() -> LoudnessMeasurement? {
        guard failure == nil, let meter else { return nil }
        return LoudnessMeasurement(
            integrated: meter.integratedLoudness(), isShortClip: meter.isShortClip, range: 0, truePeak: nil,
            samplePeak: nil, maxMomentary: nil, maxShortTerm: nil, frames: meter.frames, sampleRate: meter.sampleRate,
            channels: meter.channels)
    }

    /// Starts (once) a meter of `channels` channels at `sampleRate` Hz.
    func begin(channels: Int, sampleRate: Int) {
        guard meter == nil, failure == nil else { return }
        do { meter = try KWeightedLoudness(channels: channels, sampleRate: sampleRate, kinds: kinds) } catch {
            failure = error.message
        }
    }

    /// Feeds `samples` samples of the output's bytes as CAFKit decodes them under `layout`.
    func add(_ layout: PCMLayout, bytes: ArraySlice<UInt8>, samples: Int) {
        guard let meter, failure == nil, layout.channels == meter.channels else { return }
        let width = layout.bytesPerSample
        let chunk = max(1, Self.chunkSamples / meter.channels) * meter.channels
        var done = 0
        while done < samples, failure == nil {
            let count = min(chunk, samples - done)
            let start = bytes.startIndex + done * width
            guard start < bytes.endIndex else { break }
            let part = bytes[start..<min(bytes.endIndex, start + count * width)]
            if layout.isFloat {
                add(layout.decodeFloats(part), samples: count, scale: 1)
            } else {
                let integers = layout.decodeIntegers(part)
                if scratch.count < count { scratch = [Double](repeating: 0, count: chunk) }
                for index in 0..<min(count, integers.count) { scratch[index] = Double(integers[index]) }
                add(scratch, samples: min(count, integers.count), scale: 1 / Double(Int64(1) << (layout.bits - 1)))
            }
            done += count
        }
    }

    /// Feeds `samples` left-justified 32-bit samples (libsndfile's decoding of the output).
    func add(leftJustified samples: [Int32], count: Int) {
        guard let meter, failure == nil else { return }
        samples.withUnsafeBufferPointer { buffer in
            meter.add(leftJustified: UnsafeBufferPointer(rebasing: buffer[0..<count]), frames: count / meter.channels, scratch: &scratch)
        }
    }

    private func add(_ values: [Double], samples: Int, scale: Double) {
        guard let meter, failure == nil else { return }
        let count = min(samples, values.count)
        if let bad = values[0..<count].first(where: { !$0.isFinite }) {
            failure = "the output holds a sample that is not a finite number (\(bad))"
            return
        }
        values.withUnsafeBufferPointer { meter.add($0, frames: count / meter.channels, scale: scale) }
    }
}

extension OutputLoudnessTap {
    /// Feeds every frame `source` yields from where it stands (an output decoded on its own).
    func measure(_ source: some FrameSource) throws(SourceError) {
        begin(channels: source.channels, sampleRate: source.sampleRate)
        let blockFrames = LoudnessScan.blockFrames
        var ints = [Int32](repeating: 0, count: source.isFloat ? 0 : blockFrames * source.channels)
        var doubles = [Double](repeating: 0, count: source.isFloat ? blockFrames * source.channels : 0)
        while true {
            let got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames)
            guard got > 0 else { return }
            if source.isFloat {
                add(doubles, samples: got * source.channels, scale: 1)
            } else {
                add(leftJustified: ints, count: got * source.channels)
            }
        }
    }
}

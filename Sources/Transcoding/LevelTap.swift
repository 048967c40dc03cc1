import BinaryIO
import ConversionModel
import Loudness
import SoundLevels
import SystemLayer

/// The report's meters on a decoding that is read anyway: every block a `SourceAudio` (or the
/// proof's decoding of an output) hands out also goes into a `SoundMeter` (envelope, sample and
/// true peak) and libebur128's `LoudnessMeter` (integrated loudness, true peak), so that `convert
/// --report` draws its page without decoding any file again. `cafconv report` measures each file
/// through the same tap (``measure(_:)``): the same file gives the same levels either way.
/// Memory: the envelope's columns and one block of scratch.
package final class LevelTap {
    private var meter: SoundMeter?
    private var loudness: LoudnessMeter?
    private var unmeasured: String?
    private var scratch: [Double] = []
    private var sampleRate = 0.0
    private var decoderName = ""
    /// Whether a decoding feeds it already (a tap is fed by one decoding, from its first frame).
    package private(set) var isAttached = false
    /// Whether that decoding reached its end: only then are the levels the whole file's.
    package private(set) var isComplete = false

    package init() {}

    /// Frames read per block by ``measure(_:)``.
    package static let blockFrames = 16_384

    /// Gets ready for a decoding of `channels` channels at `rate` Hz (`expectedFrames`, when
    /// known, spreads the envelope's columns over the file at once).
    package func start(channels: Int, rate: Int, exactRate: Double, expectedFrames: Int64?, decoder: String) {
        isAttached = true
        sampleRate = exactRate
        decoderName = decoder
        do { loudness = try LoudnessMeter(channels: channels, sampleRate: rate) } catch {
            unmeasured = "cannot measure its loudness: \(error.message)"
        }
        // libebur128 measures the true peak: the meter's own interpolator only without it.
        meter = SoundMeter(channels: channels, expectedFrames: expectedFrames, measuresTruePeak: loudness == nil)
    }

    /// Adds `frames` interleaved frames: `doubles` (full scale ±1.0) when `isFloat`, else `ints`
    /// left-justified in 32 bits.
    package func add(ints: [Int32], doubles: [Double], frames: Int, isFloat: Bool) {
        guard frames > 0, var meter else { return }
        let count = frames * meter.channelCount
        if isFloat {
            meter.add(doubles: doubles, frames: frames)
        } else {
            meter.add(ints: ints, frames: frames)
        }
        self.meter = meter
        guard let loudness else { return }
        if isFloat {
            if let bad = doubles[0..<count].firstIndex(where: { !$0.isFinite }) {
                stopLoudness("frame \(loudness.frames + Int64(bad / meter.channelCount)) is not a finite number")
                return
            }
            do { try loudness.add(doubles, frames: frames) } catch { stopLoudness(error.message) }
        } else {
            if scratch.count < count { scratch = [Double](repeating: 0, count: count) }
            for index in 0..<count { scratch[index] = Double(ints[index]) * 0x1p-31 }
            do { try loudness.add(scratch, frames: frames) } catch { stopLoudness(error.message) }
        }
    }

    private func stopLoudness(_ reason: String) {
        loudness = nil
        unmeasured = "cannot measure its loudness: \(reason)"
    }

    /// The decoding reached its end.
    package func finish() { isComplete = isAttached }

    /// Gives `other`'s levels from now on: a file whose samples are another's, not decoded itself.
    package func mirror(_ other: LevelTap) { same = other }
    private var same: LevelTap?

    /// What was measured, once the decoding reached its end; `nil` before.
    package var levels: SoundLevels? {
        if let same { return same.levels }
        guard isComplete, let meter else { return nil }
        let measured = loudness?.finish()
        // libebur128's true peak (dBTP) when it measured one; silence has none.
        var truePeak = meter.truePeakValue
        if let measured { truePeak = measured.truePeak.map { pow(10, $0 / 20) } ?? 0 }
        return SoundLevels(
            envelope: meter.envelope, samplePeak: meter.samplePeak, truePeak: truePeak, loudness: measured?.integrated,
            loudnessUnmeasured: measured == nil ? (unmeasured ?? "not measured") : nil, sampleRate: sampleRate,
            decoderName: decoderName)
    }

    /// Every frame of `audio` from its start, measured (what `cafconv report` does to each file,
    /// and `convert --report` to the files a run did not decode).
    package static func measure(_ audio: SourceAudio) throws(SourceError) -> SoundLevels {
        let tap = LevelTap()
        audio.attach(tap)
        let samples = blockFrames * max(1, audio.channels)
        var ints = [Int32](repeating: 0, count: audio.isFloat ? 0 : samples)
        var doubles = [Double](repeating: 0, count: audio.isFloat ? samples : 0)
        while try audio.read(ints: &ints, doubles: &doubles, frames: blockFrames) > 0 {}
        guard let levels = tap.levels else { throw SourceError("the decoding ended early") }
        return levels
    }
}

extension SourceAudio {
    /// Feeds every block this decoding reads from now on into `tap` (a tap already fed by
    /// another decoding is left alone).
    package func attach(_ tap: LevelTap) {
        guard !tap.isAttached, position == 0 else { return }
        tap.start(channels: channels, rate: sampleRate, exactRate: exactSampleRate, expectedFrames: limit, decoder: decoderName)
        self.tap = tap
    }
}

/// The proof's output bytes of a block, decoded as `SourceAudio` decodes that file (cafconv's
/// reader, `WAVESamples`) into a `LevelTap`: the bytes the proof read, not read again.
struct OutputMeter {
    let tap: LevelTap
    /// The output's layout, its audio at offset 0 of each block's bytes.
    private let layout: WAVESamples?
    private var ints: [Int32] = []
    private var doubles: [Double] = []

    init(tap: LevelTap, layout: WAVESamples?) {
        self.tap = tap
        var layout = layout
        layout?.offset = 0
        self.layout = layout
    }

    mutating func add(bytes: [UInt8], frames: Int) throws(SourceError) {
        guard let layout, frames > 0 else { return }
        let count = frames * layout.channels
        if layout.isFloat {
            if doubles.count < count { doubles = [Double](repeating: 0, count: count) }
        } else if ints.count < count {
            ints = [Int32](repeating: 0, count: count)
        }
        try layout.decode(MemoryByteSource(bytes), from: 0, count: frames, ints: &ints, doubles: &doubles)
        tap.add(ints: ints, doubles: doubles, frames: frames, isFloat: layout.isFloat)
    }
}

import ConversionModel
import Loudness
import SndFile
import Synchronization

/// A file's loudness (BS.1770 / EBU R 128, libebur128's meter), measured from its decoding as
/// `convert` decodes it (``SourceAudio/open(_:)``, the source table): every format convert reads.
/// Frames go to the meter in blocks of ``blockFrames``: memory is one block and the meter's 3 s
/// window, whatever the file's length.
package enum LoudnessScan {
    /// Frames decoded and measured at a time: small enough that the block's buffers (up to
    /// stereo) stay below glibc's threshold for mapping fresh pages, so that each file's are
    /// reused from the heap rather than mapped and zero-filled again.
    package static let blockFrames = 4096

    /// How many outputs were decoded a second time to re-measure them (their proof's decoder has
    /// no ``OutputLoudnessTap``): the work the tap saves, counted for the tests.
    package static let outputsDecodedAgain = Atomic<Int>(0)

    /// How many `--loudness` sources were measured a second time for their true peak (its 4x
    /// oversampling), because their sample peak could not rule out that it caps the gain: counted
    /// for the tests.
    package static let truePeakPasses = Atomic<Int>(0)

    /// The loudness of the file at `path`; throws a sentence naming the file when it cannot be
    /// decoded or measured.
    package static func measure(path: String) throws(SourceError) -> LoudnessMeasurement {
        let audio = try SourceAudio.open(path)
        do { return try metered(audio, kinds: audio.speakers?.loudnessKinds).finish() } catch {
            throw SourceError("\(path): \(error.message)")
        }
    }

    /// `--loudness-group`: the loudness of the file at `path`, its sample peak and its gating
    /// blocks (for the group's loudness, ``LoudnessMeter/integrated(ofBlocks:)``); no true peak
    /// (``truePeak(path:)``, only for the members whose sample peak could let it cap the gain).
    package static func measureForGroup(path: String) throws(SourceError) -> (LoudnessMeasurement, blocks: [Double]) {
        let audio = try SourceAudio.open(path)
        do {
            let meter = try metered(audio, extent: .group, kinds: audio.speakers?.loudnessKinds)
            return (meter.finish(), meter.gatingBlocks)
        } catch { throw SourceError("\(path): \(error.message)") }
    }

    /// `--loudness-group`: the true peak of the file at `path` (dBTP; `nil` for silence), from a
    /// decoding of its own; counted in ``truePeakPasses``.
    package static func truePeak(path: String) throws(SourceError) -> Double? {
        truePeakPasses.add(1, ordering: .relaxed)
        let audio = try SourceAudio.open(path)
        do { return try metered(audio, extent: .gain, kinds: audio.speakers?.loudnessKinds).finish().truePeak } catch {
            throw SourceError("\(path): \(error.message)")
        }
    }

    /// A meter that has taken every frame `source` yields from where it stands, its channels
    /// weighed as `kinds` says (by their count when `nil`: ``LoudnessMeter/ChannelKind/standard(channels:)``).
    static func metered(
        _ source: some FrameSource, extent: LoudnessMeter.Extent = .full, kinds: [LoudnessMeter.ChannelKind]? = nil
    ) throws(SourceError) -> LoudnessMeter {
        let meter: LoudnessMeter
        let kinds = kinds.flatMap { $0.count == source.channels ? $0 : nil }
        do {
            meter = try LoudnessMeter(channels: source.channels, sampleRate: source.sampleRate, kinds: kinds, extent: extent)
        } catch {
            throw SourceError("cannot measure its loudness: \(error.message)")
        }
        let channels = source.channels
        var ints = [Int32](repeating: 0, count: source.isFloat ? 0 : blockFrames * channels)
        var doubles = [Double](repeating: 0, count: source.isFloat ? blockFrames * channels : 0)
        while true {
            let got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames)
            guard got > 0 else { break }
            if !source.isFloat {
                // Integers come left-justified in 32 bits (full scale 2^31), as libebur128 takes them.
                do {
                    try ints.withUnsafeBufferPointer { buffer throws(LoudnessError) in
                        try meter.add(leftJustified: buffer, frames: got)
                    }
                } catch { throw SourceError("cannot measure its loudness: \(error.message)") }
                continue
            }
            if let bad = doubles[0..<(got * channels)].firstIndex(where: { !$0.isFinite }) {
                // A NaN or an infinity has no loudness: libebur128 would carry it into every
                // reading (and a NaN would read as silence).
                throw SourceError(
                    "frame \(meter.frames + Int64(bad / channels)) holds a sample that is not a finite number (\(doubles[bad])): its loudness cannot be measured"
                )
            }
            do { try meter.add(doubles, frames: got) } catch {
                throw SourceError("cannot measure its loudness: \(error.message)")
            }
        }
        return meter
    }

    /// `--loudness`: measures the source from a fresh decoding of its own (``SourceStage/proofAudio()``)
    /// and plans one static gain to the target, capped at the true-peak ceiling (a warning names
    /// the shortfall); sets `options.loudnessGain`, which the transforms apply before the encoder.
    /// `nil` without `--loudness`.
    /// `shape` is the job's transform planned without the gain: when it changes the channels or
    /// the rate, what is measured is the source through it (what the encoder will be fed, before
    /// the gain), since a mix or a lower rate changes the loudness and the peaks.
    ///
    /// `correction` (LU) is what an earlier encoding of this job measured above the loudness its
    /// gain was planned to reach (``Retry``): the gain is planned for `target - correction`, and
    /// the output is expected at what that reaches plus `correction`.
    ///
    /// `kinds`: the weights of the output's channels (``outputKinds(_:writesLayout:options:)``).
    package static func plan(
        _ source: SourceStage, shape: TransformPlan?, kinds: [LoudnessMeter.ChannelKind]?, correction: Double = 0,
        options: inout ConversionOptions, result: inout FileResult
    ) throws(ConversionError) -> LoudnessGain? {
        guard let target = options.loudnessTarget else { return nil }
        if let group = options.loudnessGroupPlan {
            return try plan(group: group, source: source, shape: shape, kinds: kinds, options: &options, result: &result)
        }
        let encoding = OutputPlan.target(source, options: options).encoding
        // Only a float output carries samples past full scale: for any other, a ceiling above
        // 0 dBTP would clip them (a limiter, which normalising never is), so 0 is its ceiling.
        let ceiling = encoding.isFloat ? options.truePeakCeiling : min(options.truePeakCeiling, 0)
        let headroom = codingHeadroom(encoding, ceiling: ceiling)
        let planned = target - correction
        let measured = try measureForGain(
            source, through: shape?.measuring, kinds: kinds, target: planned, ceiling: ceiling - headroom)
        guard var gain = LoudnessGain.plan(measured, target: planned, ceiling: ceiling, headroom: headroom) else {
            throw .source(.silentForLoudness(target: target))
        }
        if correction != 0 {
            // Uncapped, the plan reaches `planned` exactly and the output the target; capped,
            // the output reaches what the cap reaches plus the correction (decided before the
            // target is put back, which moves what "capped" means).
            gain.reached = gain.reached == planned ? target : gain.reached + correction
            gain.target = target
        }
        options.loudnessGain = gain.decibels
        result.loudness = FileResult.Loudness(
            source: measured.integrated, gain: gain.decibels, target: target, reached: gain.reached,
            ceiling: gain.ceiling, shortClip: measured.isShortClip)
        if gain.isCapped {
            result.warnings.append(.source(.loudnessCapped(asked: target, reached: gain.reached, ceiling: gain.ceiling)))
        }
        return gain
    }

    /// The source's integrated loudness and sample peak; and its true peak, from a second
    /// decoding, only when ``LoudnessGain/truePeakCouldDecide(loudness:samplePeak:sampleRate:target:ceiling:)``
    /// says it could cap the gain (memory stays one block either way).
    static func measureForGain(
        _ source: SourceStage, through shape: TransformPlan?, kinds: [LoudnessMeter.ChannelKind]?, target: Double,
        ceiling: Double
    ) throws(ConversionError) -> LoudnessMeasurement {
        func shaped(_ audio: SourceAudio) throws -> any FrameSource {
            guard let shape else { return audio }
            return try TransformedAudio(source: audio, plan: shape)
        }
        do {
            let first = try metered(try shaped(source.proofAudio()), extent: .gainBySamplePeak, kinds: kinds).finish()
            guard let loudness = first.integrated,
                LoudnessGain.truePeakCouldDecide(
                    loudness: loudness, samplePeak: first.samplePeak, sampleRate: first.sampleRate, target: target,
                    ceiling: ceiling)
            else { return first }
            truePeakPasses.add(1, ordering: .relaxed)
            return try metered(try shaped(source.proofAudioAgain()), extent: .gain, kinds: kinds).finish()
        } catch let error as SourceError {
            throw .source(.loudnessUnmeasurable(reason: error.message))
        } catch let error as ConversionError {
            throw error
        } catch {
            throw .source(.loudnessUnmeasurable(reason: "\(error)"))
        }
    }

    /// The channel weights `--loudness` plans and checks a job's output by, one rule for both:
    /// where the source's channels play (``SourceStage/loudnessKinds``, for more than two
    /// channels) when the output keeps them and records where they play (`writesLayout`: linear
    /// PCM and ALAC, whose CAF gets a `chan`, see ``ContainerStage/finish(_:target:channels:sampleRate:frames:metadata:speakers:blockSize:)``);
    /// else `nil`, by the channel count, as `verify` then reads the output.
    package static func outputKinds(
        _ source: SourceStage, writesLayout: Bool, options: ConversionOptions
    ) -> [LoudnessMeter.ChannelKind]? {
        guard writesLayout, options.channels.map({ $0 == source.info.channels }) ?? true else { return nil }
        return source.loudnessKinds
    }

    /// The room a capped gain leaves below the ceiling for the output's own rounding
    /// (``LoudnessGain/codingHeadroom(bits:companded:ceiling:)``); none for a lossy output, whose
    /// decoded peaks the encoder moves by more than any margin planned here.
    static func codingHeadroom(_ encoding: Encoding, ceiling: Double) -> Double {
        if encoding.isFloat { return LoudnessGain.codingHeadroom(bits: nil, companded: false, ceiling: ceiling) }
        if encoding == .ulaw || encoding == .alaw {
            return LoudnessGain.codingHeadroom(bits: nil, companded: true, ceiling: ceiling)
        }
        guard let bits = encoding.bits else { return 0 }
        return LoudnessGain.codingHeadroom(bits: bits, companded: false, ceiling: ceiling)
    }

    /// `--loudness-group`: the group's one gain, planned by the engine from every member measured
    /// before any was converted; the gain this member's output is checked against is its own
    /// loudness plus that gain (`nil` for a silent member: silence times a gain is silence). When
    /// the job mixes its channels or changes its rate (`shape`), its own loudness is measured
    /// again through them, since that is what the gain scales (the group's gain, planned from
    /// the sources, stays one for all).
    static func plan(
        group: LoudnessGroupPlan, source: SourceStage, shape: TransformPlan?, kinds: [LoudnessMeter.ChannelKind]?,
        options: inout ConversionOptions, result: inout FileResult
    ) throws(ConversionError) -> LoudnessGain? {
        if let failure = group.failure { throw .source(failure) }
        options.loudnessGain = group.gain
        result.loudness = FileResult.Loudness(
            source: group.memberLoudness, gain: group.gain, target: group.target, reached: group.reached,
            ceiling: group.ceiling, shortClip: group.memberShortClip, group: group.name, groupFiles: group.members,
            groupLoudness: group.loudness)
        if group.isCapped {
            result.warnings.append(
                .source(.loudnessCapped(asked: group.target, reached: group.reached, ceiling: group.ceiling)))
        }
        var own = group.memberLoudness
        if own != nil, let measuring = shape?.measuring {
            own = try measureForGain(source, through: measuring, kinds: kinds, target: group.target, ceiling: .infinity)
                .integrated
        }
        return own.map { loudness in
            LoudnessGain(
                decibels: group.gain, target: group.target, reached: loudness + group.gain, ceiling: group.ceiling,
                truePeak: -Double.infinity)
        }
    }

    /// The proof's last step under `--loudness`: the output, measured from its own decoding by
    /// cafconv's own BS.1770 meter (``KWeightedLoudness``, not libebur128, which measured the
    /// source), is within 0.1 LU of the loudness its gain was to reach. The measurement is the
    /// tap's (the proof's decoding of the output, which happens anyway) when the proof fed it,
    /// else the output decoded again here.
    package static func check(_ output: String, reaches gain: LoudnessGain, tap: OutputLoudnessTap?) throws(ConversionError) {
        let measured: LoudnessMeasurement
        if let tapped = tap?.measurement() {
            measured = tapped
        } else {
            outputsDecodedAgain.add(1, ordering: .relaxed)
            do throws(SourceError) {
                let audio = try SourceAudio.open(output)
                let again = OutputLoudnessTap(kinds: tap?.kinds)
                try again.measure(audio)
                guard let whole = again.measurement() else { throw SourceError("its loudness cannot be measured") }
                measured = whole
            } catch { throw .proof(.undecodable(reason: "\(output): \(error.message)")) }
        }
        guard let loudness = measured.integrated, abs(loudness - gain.reached) <= 0.1 else {
            throw .proof(.loudnessMissed(expected: gain.reached, measured: measured.integrated))
        }
    }

    /// A job to encode again with its gain corrected: its output measured `correction` LU above
    /// the loudness planned (below, when negative). The plan assumes the loudness moves by
    /// exactly the gain, which BS.1770 makes true of the samples the gain scales, except where
    /// (1) the -70 LUFS absolute gate lets quiet blocks in or out as the level moves (a quiet
    /// source with a long fading tail, brought up 30 dB or more), or (2) the encoder changes the
    /// loudness (a lossy codec dropping high bands: Opus or AAC at low bit rates on noise).
    package struct Retry: Error {
        package var correction: Double

        /// How many times a job is encoded at most under `--loudness`: the first correction
        /// takes the measured error out, a second one what the absolute gate moves with it.
        package static let attempts = 3

        /// A miss larger than this is not corrected (the output is refused): something other
        /// than the gate or a codec's band limit is wrong.
        package static let largest = 6.0

        /// The retry for a failed ``check(_:reaches:tap:)``, or `nil` when `error` is another
        /// failure or the miss cannot be corrected.
        package static func after(_ error: ConversionError, correction: Double) -> Retry? {
            guard case .proof(.loudnessMissed(let expected, let measured?)) = error else { return nil }
            let miss = measured - expected
            guard miss.isFinite, abs(miss) <= largest else { return nil }
            return Retry(correction: correction + miss)
        }
    }
}

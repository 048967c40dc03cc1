import ConversionModel
import Loudness

/// A file's loudness (BS.1770 / EBU R 128, libebur128's meter), measured from its decoding as
/// `convert` decodes it (``SourceAudio/open(_:)``, the source table): every format convert reads.
/// Frames go to the meter in blocks of ``blockFrames``: memory is one block and the meter's 3 s
/// window, whatever the file's length.
package enum LoudnessScan {
    /// Frames decoded and measured at a time.
    package static let blockFrames = 16_384

    /// The loudness of the file at `path`; throws a sentence naming the file when it cannot be
    /// decoded or measured.
    package static func measure(path: String) throws(SourceError) -> LoudnessMeasurement {
        let audio = try SourceAudio.open(path)
        do { return try measure(audio) } catch { throw SourceError("\(path): \(error.message)") }
    }

    /// The loudness of every frame `source` yields from where it stands.
    package static func measure(_ source: some FrameSource) throws(SourceError) -> LoudnessMeasurement {
        let meter: LoudnessMeter
        do { meter = try LoudnessMeter(channels: source.channels, sampleRate: source.sampleRate) } catch {
            throw SourceError("cannot measure its loudness: \(error.message)")
        }
        let channels = source.channels
        var ints = [Int32](repeating: 0, count: blockFrames * channels)
        var doubles = [Double](repeating: 0, count: blockFrames * channels)
        while true {
            let got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames)
            guard got > 0 else { break }
            if !source.isFloat {
                // Integers come left-justified in 32 bits: full scale is 2^31.
                for index in 0..<(got * channels) { doubles[index] = Double(ints[index]) * 0x1p-31 }
            } else if let bad = doubles[0..<(got * channels)].firstIndex(where: { !$0.isFinite }) {
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
        return meter.finish()
    }

    /// `--loudness`: measures the source from a fresh decoding of its own (``SourceStage/proofAudio()``)
    /// and plans one static gain to the target, capped at the true-peak ceiling (a warning names
    /// the shortfall); sets `options.loudnessGain`, which the transforms apply before the encoder.
    /// `nil` without `--loudness`.
    package static func plan(
        _ source: SourceStage, options: inout ConversionOptions, result: inout FileResult
    ) throws(ConversionError) -> LoudnessGain? {
        guard let target = options.loudnessTarget else { return nil }
        let measured: LoudnessMeasurement
        do { measured = try measure(try source.proofAudio()) } catch let error as SourceError {
            throw .source(.loudnessUnmeasurable(reason: error.message))
        } catch let error as ConversionError {
            throw error
        } catch {
            throw .source(.loudnessUnmeasurable(reason: "\(error)"))
        }
        guard let gain = LoudnessGain.plan(measured, target: target, ceiling: options.truePeakCeiling) else {
            throw .source(.silentForLoudness(target: target))
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

    /// The proof's last step under `--loudness`: the output, measured from its own decoding, is
    /// within 0.1 LU of the loudness its gain was to reach.
    package static func check(_ output: String, reaches gain: LoudnessGain) throws(ConversionError) {
        let measured: LoudnessMeasurement
        do { measured = try measure(path: output) } catch {
            throw .proof(.undecodable(reason: error.message))
        }
        guard let loudness = measured.integrated, abs(loudness - gain.reached) <= 0.1 else {
            throw .proof(.loudnessMissed(expected: gain.reached, measured: measured.integrated))
        }
    }
}

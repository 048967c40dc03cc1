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
}

import AACCodec
import SndFile

/// The second decoder of the sources libsndfile reads without cafconv's own reader to check it:
/// lossy streams (MP3, Ogg Vorbis, Ogg Opus) and FLAC. Before anything is written, libsndfile and
/// libavformat + libavcodec (``AVFileDecoder``, loaded on first use) each decode the whole file,
/// to its end (never to a length a header estimates: libsndfile takes a VBR MP3's length from its
/// first frame's bit rate and stops there); they must read the same frame count and the same
/// samples, within the codec's decoder tolerance, and libavcodec must meet no damaged packet
/// (a FLAC frame whose CRC fails, an MP3 frame that does not decode). libsndfile's samples are
/// the ones written (its decoders are the reference libraries: libmpg123, libvorbis, libopus,
/// libFLAC), and the proof compares the output with a second libsndfile reading of the agreed
/// frame count. A lossless source libsndfile refuses (FLAC of 12 bits...) is read by libavcodec
/// alone (``SourceStage``), and the proof then says `libavcodec`.
enum SecondDecoder {
    /// Whether `info` (libsndfile's reading of a container cafconv does not parse) is one both
    /// decoders must read in full.
    static func applies(to info: SoundInfo, content: SourceContent) -> Bool {
        guard case .other = content else { return false }
        return info.encoding.isLossy || info.major == .flac
    }

    /// The largest difference allowed between the two decodings of a lossy stream's sample, at
    /// full scale 1.0, both clipped to [-1, 1]. ISO/IEC 11172-4 allows a "full accuracy" MP3
    /// decoder 2^-14 from the reference at any sample, so two such decoders may differ by 2^-13;
    /// Vorbis and Opus give no bound of that kind (their decoders are floating point and
    /// compliance is judged by the reference decoder's output), and are held to the same one.
    /// FLAC, lossless, must agree exactly.
    static let lossyTolerance = 1.0 / 8192

    /// What the two decoders agreed on.
    struct Agreement {
        /// Frames both decoded.
        var frames: Int64
        /// The largest difference between their samples (0 for lossless streams).
        var largestDifference: Double
        /// A note for the report, when the comparison was partial.
        var note: String?
    }

    /// Decodes `path` to its end with libsndfile and with libavcodec and compares every frame.
    /// Throws, naming both frame counts, the damaged packets or the first sample that differs,
    /// when they disagree.
    static func crossCheck(_ path: String, blockFrames: Int = 8192) throws(ConversionError) -> Agreement {
        let first: SoundFile
        do {
            first = try SoundFile.open(readingFrom: path)
            try first.setNormalisation(first.info.encoding.isLossy)
        } catch {
            throw ConversionError.libsndfile(code: error.code, message: error.message, doing: "libsndfile cannot read it")
        }
        defer { try? first.close() }
        let second: AVFileDecoder
        do { second = try AVFileDecoder(path: path) } catch {
            throw ConversionError(
                .unsupported, "the second decoder, libavcodec, cannot read it, so libsndfile's decoding cannot be checked: \(error.message)")
        }
        let info = first.info
        let lossy = info.encoding.isLossy
        let channels = max(info.channels, 1)
        guard second.channels == channels else {
            throw ConversionError(
                .readersDisagree,
                "libsndfile decodes \(channels) channel\(channels == 1 ? "" : "s"), libavcodec \(second.channels); not converted")
        }
        // libavcodec decodes Opus at 48 kHz only; libsndfile at the rate the header names when
        // Opus has it. Their frame counts then compare at the rates' ratio, their samples not.
        let sameRate = second.sampleRate == info.sampleRate
        if !sameRate && second.codec != "opus" {
            throw ConversionError(
                .readersDisagree, "libsndfile decodes it at \(info.sampleRate) Hz, libavcodec at \(second.sampleRate) Hz; not converted")
        }
        let frames = max(1, blockFrames)
        var firstInts = [Int32](repeating: 0, count: lossy ? 0 : frames * channels)
        var firstDoubles = [Double](repeating: 0, count: lossy ? frames * channels : 0)
        var secondInts = [Int32](repeating: 0, count: second.isFloat ? 0 : frames * channels)
        var secondDoubles = [Double](repeating: 0, count: second.isFloat ? frames * channels : 0)
        var firstTotal: Int64 = 0
        var secondTotal: Int64 = 0
        var largest = 0.0
        var difference: (frame: Int64, channel: Int, first: String, second: String)?
        var firstDone = false
        var secondDone = false
        while !firstDone || !secondDone {
            var firstGot = 0
            var secondGot = 0
            if !firstDone {
                do {
                    firstGot =
                        lossy
                        ? try first.read(into: &firstDoubles, frames: frames) : try first.read(into: &firstInts, frames: frames)
                } catch {
                    throw ConversionError.libsndfile(code: error.code, message: error.message, doing: "reading failed")
                }
                firstDone = firstGot == 0
            }
            if !secondDone {
                // Keep the two decodings in step: ask libavcodec for what libsndfile gave.
                let wanted = firstDone || !sameRate ? frames : firstGot
                do { secondGot = try second.read(ints: &secondInts, doubles: &secondDoubles, frames: wanted) } catch {
                    throw ConversionError(.notAudio, "libavcodec cannot decode it: \(error.message)")
                }
                secondDone = secondGot == 0
            }
            if sameRate && difference == nil {
                let common = min(firstGot, secondGot) * channels
                for index in 0..<common {
                    let a = lossy ? firstDoubles[index] : Double(firstInts[index]) / 2_147_483_648
                    let b = second.isFloat ? secondDoubles[index] : Double(secondInts[index]) / 2_147_483_648
                    let gap = abs(min(1, max(-1, a)) - min(1, max(-1, b)))
                    largest = max(largest, gap)
                    let exactMiss = !lossy && !second.isFloat && firstInts[index] != secondInts[index]
                    if exactMiss || gap > lossyTolerance {
                        difference = (firstTotal + Int64(index / channels), index % channels + 1, "\(a)", "\(b)")
                        break
                    }
                }
            }
            firstTotal += Int64(firstGot)
            secondTotal += Int64(secondGot)
        }
        let damage = second.damage
        if second.damagedPackets > 0 {
            let places = damage.map { "frame \($0.frame)\($0.byte.map { " (byte \($0))" } ?? "")" }.joined(separator: ", ")
            throw ConversionError(
                .notAudio,
                "the file is damaged: \(second.damagedPackets) packet\(second.damagedPackets == 1 ? "" : "s") fail\(second.damagedPackets == 1 ? "s" : "") to decode (libavcodec, at \(places)); libsndfile decodes \(firstTotal) frames, libavcodec \(secondTotal) skipping the damage; not converted"
            )
        }
        var countsAgree =
            sameRate
            ? firstTotal == secondTotal
            : firstTotal * Int64(second.sampleRate) / Int64(max(info.sampleRate, 1)) == secondTotal
        // libavcodec's Vorbis decoder gives no output for the first packet, and libavformat does
        // not make up for it: its decoding ends up to one long block (8192 frames at most) short of
        // the stream's last granule position. libsndfile's count then stands when libavformat's own
        // reading of the Ogg granule positions states exactly that count (the samples were
        // compared over every frame libavcodec decoded).
        if !countsAgree, sameRate, second.codec == "vorbis", second.statedFrames == firstTotal, secondTotal < firstTotal,
            firstTotal - secondTotal <= 8192
        {
            countsAgree = true
        }
        if !countsAgree {
            throw ConversionError(
                .readersDisagree,
                "libsndfile decodes \(firstTotal) frames, libavcodec \(secondTotal)\(sameRate ? "" : " (at \(second.sampleRate) Hz, libsndfile at \(info.sampleRate) Hz)") (each to the end of the file); not converted"
            )
        }
        if let difference {
            throw ConversionError(
                .readersDisagree,
                "libsndfile and libavcodec decode it differently: at frame \(difference.frame), channel \(difference.channel) libsndfile gives \(difference.first), libavcodec \(difference.second)\(lossy ? " (more than the tolerance 2^-13 apart)" : ""); not converted"
            )
        }
        let note =
            sameRate
            ? nil
            : "libavcodec decodes Opus at \(second.sampleRate) Hz only, libsndfile at \(info.sampleRate) Hz: the second decoder checked the frame count (\(secondTotal) at \(second.sampleRate) Hz), not the samples"
        return Agreement(frames: firstTotal, largestDifference: largest, note: note)
    }
}

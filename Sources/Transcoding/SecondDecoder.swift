import AACCodec
import ConversionModel
import MPG123
import OutputFiles
import SndFile

/// The second decoder of the sources libsndfile reads without cafconv's own reader to check it:
/// lossy streams (MP3, Ogg Vorbis, Ogg Opus) and FLAC. Before anything is written, the first
/// decoder and libavformat + libavcodec (``AVFileDecoder``, loaded on first use) each decode the
/// whole file, to its end (never to a length a header estimates); they must read the same frame
/// count and the same samples, within the codec's decoder tolerance, and libavcodec must meet no
/// damaged packet (a FLAC frame whose CRC fails, an MP3 frame that does not decode).
///
/// The first decoder is libmpg123 for MPEG audio (``MPG123Decoder``, called directly: libsndfile
/// takes a VBR MP3's length without a Xing header from its first frame's bit rate and stops
/// reading there), libsndfile for the rest (its decoders are the reference libraries: libvorbis,
/// libopus, libFLAC). The first decoder's samples are the ones written, and the proof compares
/// the output with a second reading by the same decoder of the agreed frame count. A lossless
/// source libsndfile refuses (FLAC of 12 bits...) is read by libavcodec alone (``SourceStage``),
/// and the proof then says `libavcodec`.
package enum SecondDecoder {
    /// Whether `info` (libsndfile's reading of a container cafconv does not parse) is one both
    /// decoders must read in full.
    package static func applies(to info: SoundInfo, content: SourceContent) -> Bool {
        // MPEG audio in WAV (format tag 0x55 or 0x50): libmpg123 decodes the 'data' chunk.
        if case .wave = content { return info.encoding.isMPEG }
        guard case .other = content else { return false }
        return info.encoding.isLossy || info.major == .flac
    }

    /// The frames to convert once both decoders agreed on `agreed`: all of them, or as many as a
    /// WAV's `fact` chunk says are audio (the rest is the encoder's padding). A `fact` that says
    /// more than both decode is reported in `warnings`.
    package static func frames(agreed: Int64, content: SourceContent, warnings: inout [ConversionWarning]) -> Int64 {
        guard let declared = content.declaredFrames else { return agreed }
        if declared > agreed {
            warnings.append(.source(.factSaysMore(declared: declared, decoded: agreed)))
        }
        return min(declared, agreed)
    }

    /// The largest difference allowed between the two decodings of a lossy stream's sample, at
    /// full scale 1.0, both clipped to [-1, 1]. ISO/IEC 11172-4 allows a "full accuracy" MP3
    /// decoder 2^-14 from the reference at any sample, so two such decoders may differ by 2^-13;
    /// Vorbis and Opus give no bound of that kind (their decoders are floating point and
    /// compliance is judged by the reference decoder's output), and are held to the same one.
    /// FLAC, lossless, must agree exactly.
    package static let lossyTolerance = 1.0 / 8192

    /// What the two decoders agreed on.
    package struct Agreement {
        /// Frames both decoded.
        package var frames: Int64
        /// The largest difference between their samples (0 for lossless streams).
        package var largestDifference: Double
        /// A note for the report, when the comparison was partial.
        package var note: SourceWarning?
    }

    /// The first decoder of `path` (`content`), whose libsndfile reading is `info`: libmpg123 for
    /// MPEG audio (of a WAV: its 'data' chunk), else libsndfile (normalised floats for lossy
    /// streams); at most `limit` frames.
    package static func firstDecoding(
        _ path: String, info: SoundInfo, content: SourceContent, limit: Int64?
    ) throws(ConversionError) -> SourceAudio {
        if info.encoding.isMPEG {
            var offset: UInt64 = 0
            var length: UInt64?
            if case .wave(let wave) = content { (offset, length) = (wave.audioOffset, wave.audioBytes) }
            do {
                return SourceAudio(mpg123: try MPG123Decoder(path: path, offset: offset, length: length), limit: limit)
            } catch {
                throw ConversionError.source(.mpg123Unreadable(reason: error.message))
            }
        }
        do {
            let reader = try SoundFile.open(readingFrom: path)
            try reader.setNormalisation(reader.info.encoding.isLossy)
            return SourceAudio(reader: reader, limit: limit)
        } catch {
            throw ConversionError.libsndfile(code: error.code, message: error.message, doing: "libsndfile cannot read it")
        }
    }

    /// Decodes `path` (`content`; `info`: libsndfile's reading of it) to its end with its first decoder and
    /// with libavcodec and compares every frame. Throws, naming both frame counts, the damaged
    /// packets or the first sample that differs, when they disagree.
    package static func crossCheck(
        _ path: String, info: SoundInfo, content: SourceContent, blockFrames: Int = 8192
    ) throws(ConversionError) -> Agreement {
        let first = try firstDecoding(path, info: info, content: content, limit: nil)
        let second: AVFileDecoder
        do { second = try AVFileDecoder(path: path) } catch {
            throw ConversionError.source(.secondDecoderUnreadable(first: first.decoderName, reason: error.message))
        }
        var comparison = try Comparison(first: first, second: second, lossy: info.encoding.isLossy, blockFrames: blockFrames)
        try comparison.run()
        return try comparison.verdict()
    }
}

/// The two decodings of one file read side by side, block by block, and what they disagree on.
private struct Comparison {
    package let first: SourceAudio
    package let second: AVFileDecoder
    package let lossy: Bool
    package let channels: Int
    /// Whether both decode at the same rate (libavcodec decodes Opus at 48 kHz only, libsndfile
    /// at the rate the header names: their frame counts then compare at the rates' ratio, their
    /// samples not).
    package let sameRate: Bool
    package let frames: Int
    package var firstInts: [Int32]
    package var firstDoubles: [Double]
    package var secondInts: [Int32]
    package var secondDoubles: [Double]
    package var firstTotal: Int64 = 0
    package var secondTotal: Int64 = 0
    package var largest = 0.0
    package var difference: (frame: Int64, channel: Int, first: String, second: String)?

    package var firstName: String { first.decoderName }

    package init(first: SourceAudio, second: AVFileDecoder, lossy: Bool, blockFrames: Int) throws(ConversionError) {
        self.first = first
        self.second = second
        self.lossy = lossy
        channels = max(first.channels, 1)
        guard second.channels == channels else {
            throw ConversionError.source(.channelCountsDisagree(first: first.decoderName, channels: channels, second: second.channels))
        }
        sameRate = second.sampleRate == first.sampleRate
        if !sameRate && second.codec != "opus" {
            throw ConversionError.source(.ratesDisagree(first: first.decoderName, rate: first.sampleRate, second: second.sampleRate))
        }
        frames = max(1, blockFrames)
        firstInts = [Int32](repeating: 0, count: first.isFloat ? 0 : frames * channels)
        firstDoubles = [Double](repeating: 0, count: first.isFloat ? frames * channels : 0)
        secondInts = [Int32](repeating: 0, count: second.isFloat ? 0 : frames * channels)
        secondDoubles = [Double](repeating: 0, count: second.isFloat ? frames * channels : 0)
    }

    /// Decodes both to their ends, keeping them in step, and compares the frames both decoded.
    package mutating func run() throws(ConversionError) {
        var firstDone = false
        var secondDone = false
        while !firstDone || !secondDone {
            var firstGot = 0
            var secondGot = 0
            if !firstDone {
                do { firstGot = try first.read(ints: &firstInts, doubles: &firstDoubles, frames: frames) } catch {
                    throw ConversionError.source(.cannotDecode(decoder: firstName, reason: error.message))
                }
                firstDone = firstGot == 0
            }
            if !secondDone {
                // Keep the two decodings in step: ask libavcodec for what the first decoder gave.
                let wanted = firstDone || !sameRate ? frames : firstGot
                do { secondGot = try second.read(ints: &secondInts, doubles: &secondDoubles, frames: wanted) } catch {
                    throw ConversionError.source(.cannotDecode(decoder: "libavcodec", reason: error.message))
                }
                secondDone = secondGot == 0
            }
            if sameRate && difference == nil { compare(min(firstGot, secondGot)) }
            firstTotal += Int64(firstGot)
            secondTotal += Int64(secondGot)
        }
    }

    /// Compares the first `count` frames of the current blocks; notes the first difference.
    package mutating func compare(_ count: Int) {
        for index in 0..<count * channels {
            let a = first.isFloat ? firstDoubles[index] : Double(firstInts[index]) / 2_147_483_648
            let b = second.isFloat ? secondDoubles[index] : Double(secondInts[index]) / 2_147_483_648
            let gap = abs(min(1, max(-1, a)) - min(1, max(-1, b)))
            largest = max(largest, gap)
            let exactMiss = !lossy && !first.isFloat && !second.isFloat && firstInts[index] != secondInts[index]
            if exactMiss || gap > SecondDecoder.lossyTolerance {
                difference = (firstTotal + Int64(index / channels), index % channels + 1, "\(a)", "\(b)")
                return
            }
        }
    }

    /// The agreement, or the refusal naming the damage, both counts or the first difference.
    package func verdict() throws(ConversionError) -> SecondDecoder.Agreement {
        if second.damagedPackets > 0 {
            throw ConversionError.source(
                .damaged(
                    packets: second.damagedPackets, places: second.damage.map { .init(frame: $0.frame, byte: $0.byte) },
                    first: firstName, firstFrames: firstTotal, secondFrames: secondTotal))
        }
        if !countsAgree {
            throw ConversionError.source(
                .frameCountsDisagree(
                    first: firstName, firstFrames: firstTotal, secondFrames: secondTotal,
                    rates: sameRate ? nil : .init(second: second.sampleRate, first: first.sampleRate)))
        }
        if let difference {
            throw ConversionError.source(
                .samplesDiffer(
                    first: firstName, frame: difference.frame, channel: difference.channel, firstValue: difference.first,
                    secondValue: difference.second, lossy: lossy))
        }
        let note =
            sameRate
            ? nil
            : SourceWarning.samplesNotCompared(
                secondRate: second.sampleRate, first: firstName, firstRate: first.sampleRate, secondFrames: secondTotal)
        return SecondDecoder.Agreement(frames: firstTotal, largestDifference: largest, note: note)
    }

    /// Whether the frame counts agree.
    package var countsAgree: Bool {
        if !sameRate {
            return firstTotal * Int64(second.sampleRate) / Int64(max(first.sampleRate, 1)) == secondTotal
        }
        if firstTotal == secondTotal { return true }
        // libavcodec's Vorbis decoder gives no output for the first packet, and libavformat does
        // not make up for it: its decoding ends up to one long block (8192 frames at most) short of
        // the stream's last granule position. The first decoder's count then stands when
        // libavformat's own reading of the Ogg granule positions states exactly that count (the
        // samples were compared over every frame libavcodec decoded).
        return second.codec == "vorbis" && second.statedFrames == firstTotal && secondTotal < firstTotal
            && firstTotal - secondTotal <= 8192
    }
}

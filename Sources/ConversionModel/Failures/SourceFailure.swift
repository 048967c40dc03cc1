/// Source failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.source`).
public enum SourceFailure: Error, Equatable, Sendable, CustomStringConvertible {
    // Opening and telling the content.
    /// The input is missing, a folder, or not a path (`ENOENT`, `ENOTDIR`, `EISDIR`, `EINVAL`).
    case missing(reason: String)
    /// Opening or reading the input failed for another reason (the system's words).
    case unopenable(reason: String)
    /// The input cannot be opened as a byte source for a reason that is not a system call's.
    case unusable(reason: String)
    /// Its first bytes cannot be read.
    case unreadable(reason: String)
    /// The file is empty.
    case empty
    /// A WAV or AIFF header that is broken, in its parser's words.
    case brokenContainer(reason: String)
    /// A CAF that CAFKit cannot parse (what `-d aac` and the readers of `verify` say).
    case unreadableCAF(reason: String)
    /// A CAF that CAFKit cannot parse, as `convert` says it (its IMA4 and AAC sources are told
    /// from CAF files first).
    case cannotReadCAF(reason: String)
    /// Neither cafconv nor libsndfile reads it: what it starts with, libsndfile's words.
    case notAudio(prefix: String, libsndfile: String)
    /// A CAF whose format cafconv does not decode, and libsndfile cannot read either.
    case cafNotDecoded(format: String, libsndfile: String)
    /// libsndfile cannot read a file told as WAV or AIFF, or cannot set its reading up.
    case libsndfileRefuses(String)
    /// A source that lost its libsndfile reader before the pump.
    case noReader
    /// `--loudness`: the source's loudness cannot be measured (the meter's words).
    case loudnessUnmeasurable(reason: String)
    /// `--loudness`: the source is silent (below the -70 LUFS gate): no gain reaches the target.
    case silentForLoudness(target: Double)
    /// The bytes of a sample slot cannot be read.
    case slotsUnreadable(String)
    /// A source cannot be opened a second time (for the pump or the proof).
    case cannotReopen(String)

    // Layouts cafconv's readers cannot check.
    /// Linear PCM in WAV laid out in a way cafconv's reader does not decode.
    case wavLayout(bits: Int, isFloat: Bool, bytesPerFrame: UInt64, channels: Int)
    /// Linear PCM in AIFF of a sample size cafconv's reader does not decode.
    case aiffLayout(bits: Int, isFloat: Bool)
    /// Linear PCM in CAF laid out in a way cafconv's reader does not decode.
    case cafLayout(bits: UInt32, isFloat: Bool, bytesPerPacket: UInt32, framesPerPacket: UInt32)

    // The two readings disagree (``SourceStage/crossCheck(_:content:reader:input:)``).
    /// libsndfile reads another channel count than the header chunk says.
    case channelsDisagree(container: String, header: String, libsndfile: Int, declared: Int)
    /// libsndfile reads another encoding than the header chunk says.
    case encodingDisagrees(container: String, header: String, libsndfile: String, declared: String)
    /// libsndfile reads another frame count; `extent` says what the audio chunk holds.
    case framesDisagree(container: String, libsndfile: Int64, extent: String)
    /// libsndfile reads fewer frames than it announces.
    case libsndfileShort(container: String, frames: Int64)
    /// The first or last frames differ.
    case samplesDisagree(container: String, frame: Int64, channel: Int, libsndfile: String, cafconv: String)
    /// cafconv's reader cannot decode the samples it compares (its own words).
    case samplesUndecodable(String)

    // IMA4 sources.
    /// The `pakt` or `desc` of an IMA4 CAF cannot be decoded.
    case ima4Undecodable(String)
    /// An IMA4 AIFF-C of a channel count CAFKit's decoder does not take.
    case ima4Channels(Int)
    /// An IMA4 AIFF-C of a rate that is not a positive number.
    case ima4AIFFRate(Double)
    /// An IMA4 source whose rate is not a whole number of Hz cafconv handles.
    case ima4Rate(Double)
    /// An IMA4 source asked for another rate or channel count.
    case ima4NoTransform
    /// An IMA4 source asked for µ-law, A-law or ALAC (the target's name).
    case ima4Target(String)
    /// An IMA4 source met by a road that does not decode it (`-d aac`, `verify`'s reference).
    case ima4ConvertsToPCMOrIMA4(aifc: Bool)

    // AAC sources.
    /// A CAF of an AAC profile cafconv does not decode.
    case aacProfileNotDecoded(formatID: String)
    /// An AAC CAF met by a road that does not decode it (`-d aac`, `verify`'s reference).
    case aacDecodedOnlyByConvert(formatID: String)
    /// libavcodec cannot be loaded (its loader's words).
    case libavcodecMissing(String)
    /// An AAC source asked for 8-bit samples.
    case aacBits(Int)
    /// An AAC source asked for AAC.
    case aacToAAC
    /// An AAC source asked for µ-law, A-law, ALAC or IMA4.
    case aacToOther
    /// An AAC source asked for another rate or channel count.
    case aacNoTransform
    /// The AAC cannot be decoded (the decoder's words).
    case aacUndecodable(String)
    /// An AAC CAF that cannot be opened for decoding (its reader's words).
    case aacUnreadable(String)
    /// A source whose length is exact by construction (an AAC or Opus CAF, an Ogg Opus stream)
    /// decodes to another frame count than it declares (`declaredBy`): `decoded` frames where
    /// `expected` were due, at `outputRate` when the output is resampled (`nil`: at the source's
    /// rate, and `expected` is `declared`).
    case paktFrames(decoded: Int64, expected: Int64, declared: Int64, declaredBy: FrameDeclaration, outputRate: Int?)
    /// The Opus source cannot be decoded (CAFKit's, the Ogg reader's or libopus's words).
    case opusUndecodable(String)
    /// An MP4 or ADTS file (`container`) whose audio is `codec`, a lossy codec cafconv does not
    /// read from it.
    case mp4NotAAC(container: String, codec: String)
    /// An MP4 or ADTS file (`container`) whose AAC cannot be read or moved (`reason`).
    case mp4Unreadable(container: String, reason: String)

    // Transforms (``TransformPlan/make(source:target:options:warnings:)``).
    /// A source with no channels or no rate.
    case notTransformable(channels: Int, rate: Int)
    /// The channels cannot be mixed as asked (the matrix's words).
    case channelMix(String)
    /// A rate ratio beyond 256 either way.
    case resampleRatio(from: Int, to: Int)
    /// A source rate whose fraction the rate mapping cannot hold.
    case resampleFraction(from: Double, to: Int)
    /// More channels than the resampler takes.
    case resampleChannels(Int)
    /// The transform stage cannot be set up over the source (its words).
    case transform(String)

    /// The kind of failure.
    public var code: ConversionError.Code {
        switch self {
        case .fileEndedEarly, .sourceEndedEarly: .sourceChanged
        case .mpg123Unreadable, .cannotDecode, .avcodecUnreadableAgain, .damaged, .damagedAround: .notAudio
        case .secondDecoderUnreadable: .unsupported
        case .channelCountsDisagree, .ratesDisagree, .frameCountsDisagree, .samplesDiffer: .readersDisagree
        case .missing: .input
        case .unopenable, .unreadable, .slotsUnreadable, .cannotReopen: .io
        case .unusable, .empty, .brokenContainer, .unreadableCAF, .cannotReadCAF, .notAudio, .libsndfileRefuses,
            .samplesUndecodable, .ima4Undecodable, .ima4Channels, .ima4AIFFRate, .aacUndecodable, .aacUnreadable,
            .paktFrames, .opusUndecodable, .mp4Unreadable:
            .notAudio
        case .channelsDisagree, .encodingDisagrees, .framesDisagree, .libsndfileShort, .samplesDisagree:
            .readersDisagree
        case .cafNotDecoded, .noReader, .wavLayout, .aiffLayout, .cafLayout, .ima4Rate, .ima4NoTransform, .ima4Target,
            .ima4ConvertsToPCMOrIMA4, .aacProfileNotDecoded, .aacDecodedOnlyByConvert, .libavcodecMissing, .aacBits,
            .aacToAAC, .aacToOther, .aacNoTransform, .notTransformable, .channelMix, .resampleRatio, .resampleFraction,
            .resampleChannels, .transform, .loudnessUnmeasurable, .silentForLoudness, .mp4NotAAC:
            .unsupported
        }
    }

    /// The reason, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .fileEndedEarly: return "the file ended early: it changed while it was being read"
        case .sourceEndedEarly: return "the source ended early: it changed while it was being converted"
        case .mpg123Unreadable(let reason): return "libmpg123 cannot read it: \(reason)"
        case .cannotDecode(let decoder, let reason): return "\(decoder) cannot decode it: \(reason)"
        case .avcodecUnreadableAgain(let reason): return "libavcodec cannot read it again: \(reason)"
        case .secondDecoderUnreadable(let first, let reason):
            return "the second decoder, libavcodec, cannot read it, so \(first)'s decoding cannot be checked: \(reason)"
        case .channelCountsDisagree(let first, let channels, let second):
            return "\(first) decodes \(channels) channel\(channels == 1 ? "" : "s"), libavcodec \(second); not converted"
        case .ratesDisagree(let first, let rate, let second):
            return "\(first) decodes it at \(rate) Hz, libavcodec at \(second) Hz; not converted"
        case .damaged(let packets, let places, let first, let firstFrames, let secondFrames):
            return
                "the file is damaged: \(Self.packets(packets, at: places)); \(first) decodes \(firstFrames) frames, libavcodec \(secondFrames) skipping the damage; not converted"
        case .damagedAround(let packets, let places, let frames):
            return
                "the file is damaged: \(Self.packets(packets, at: places)); \(frames) frames decode around the damage; not converted"
        case .frameCountsDisagree(let first, let firstFrames, let secondFrames, let rates):
            let at = rates.map { " (at \($0.second) Hz, \(first) at \($0.first) Hz)" } ?? ""
            return
                "\(first) decodes \(firstFrames) frames, libavcodec \(secondFrames)\(at) (each to the end of the file); not converted"
        case .samplesDiffer(let first, let frame, let channel, let firstValue, let secondValue, let lossy):
            return
                "\(first) and libavcodec decode it differently: at frame \(frame), channel \(channel) \(first) gives \(firstValue), libavcodec \(secondValue)\(lossy ? " (more than the tolerance 2^-13 apart)" : ""); not converted"
        case .missing(let reason), .unopenable(let reason), .unusable(let reason), .brokenContainer(let reason):
            return reason
        case .unreadable(let reason): return "cannot read it: \(reason)"
        case .empty: return "empty file (0 bytes)"
        case .unreadableCAF(let reason): return "not a readable CAF file: \(reason)"
        case .cannotReadCAF(let reason): return "cannot read this CAF: \(reason)"
        case .notAudio(let prefix, let libsndfile):
            return
                "not audio cafconv can read (\(prefix)): not WAV, AIFF or CAF, and libsndfile cannot read it either (\(libsndfile))"
        case .cafNotDecoded(let format, let libsndfile):
            return "libsndfile cannot read this CAF (\(format)), and cafconv does not decode it itself: \(libsndfile)"
        case .libsndfileRefuses(let reason): return "libsndfile cannot read it: \(reason)"
        case .noReader: return "libsndfile cannot read the source"
        case .loudnessUnmeasurable(let reason): return "its loudness cannot be measured for --loudness: \(reason)"
        case .silentForLoudness(let target):
            return "it is silent (below the -70 LUFS gate): no gain brings it to \(Decibels.tenth(target)) LUFS"
        case .slotsUnreadable(let reason), .samplesUndecodable(let reason), .libavcodecMissing(let reason),
            .aacUnreadable(let reason), .transform(let reason), .channelMix(let reason):
            return reason
        case .cannotReopen(let reason): return "cannot read it again: \(reason)"
        case .wavLayout(let bits, let isFloat, let bytesPerFrame, let channels):
            return
                "cafconv's WAV reader cannot decode \(bits)-bit \(isFloat ? "float" : "integer") samples in \(bytesPerFrame)-byte frames of \(channels) channel\(channels == 1 ? "" : "s"), and the file is not converted on libsndfile's reading alone"
        case .aiffLayout(let bits, let isFloat):
            return
                "cafconv's AIFF reader cannot decode \(bits)-bit \(isFloat ? "float" : "integer") samples, and the file is not converted on libsndfile's reading alone"
        case .cafLayout(let bits, let isFloat, let bytesPerPacket, let framesPerPacket):
            return
                "cafconv's CAF reader cannot decode \(bits)-bit \(isFloat ? "float" : "integer") samples in \(bytesPerPacket)-byte packets of \(framesPerPacket) frames, and the file is not converted on libsndfile's reading alone"
        case .channelsDisagree(let container, let header, let libsndfile, let declared):
            return
                "libsndfile and cafconv's \(container) reader disagree about this file: libsndfile reads \(libsndfile) channels, the '\(header)' chunk says \(declared); not converted"
        case .encodingDisagrees(let container, let header, let libsndfile, let declared):
            return
                "libsndfile and cafconv's \(container) reader disagree about this file: libsndfile reads \(libsndfile), the '\(header)' chunk says \(declared); not converted"
        case .framesDisagree(let container, let libsndfile, let extent):
            return "libsndfile and cafconv's \(container) reader disagree about this file: libsndfile reads \(libsndfile) frames, \(extent); not converted"
        case .libsndfileShort(let container, let frames):
            return "libsndfile and cafconv's \(container) reader disagree about this file: libsndfile reads fewer than the \(frames) frames it announces; not converted"
        case .samplesDisagree(let container, let frame, let channel, let libsndfile, let cafconv):
            return
                "libsndfile and cafconv's \(container) reader disagree about this file: at frame \(frame), channel \(channel) libsndfile decodes \(libsndfile), cafconv \(cafconv); not converted"
        case .ima4Undecodable(let reason): return "cannot decode its IMA4 audio: \(reason)"
        case .ima4Channels(let channels): return "IMA4 AIFF-C declares \(channels) channels, expected 1 to 1024"
        case .ima4AIFFRate(let rate): return "the AIFF-C 'COMM' chunk declares sample rate \(rate)"
        case .ima4Rate(let rate):
            return "the IMA4 source's sample rate \(rate) Hz is not a whole number of Hz cafconv handles"
        case .ima4NoTransform:
            return
                "rate and channel conversion of IMA4 sources is not supported yet; convert to LEI16 first, then convert that file"
        case .ima4Target(let target): return "an IMA4 source converts to linear PCM or ima4, not \(target)"
        case .ima4ConvertsToPCMOrIMA4(aifc: true):
            return
                "AIFF-C with IMA4 ADPCM ('ima4') converts to linear PCM or ima4 only (decoded by cafconv; libsndfile's decoder of it is wrong, libsndfile issue #845): convert it to LEI16 first, then that file"
        case .ima4ConvertsToPCMOrIMA4(aifc: false):
            return
                "CAF with IMA4 ADPCM ('ima4') converts to linear PCM or ima4 only (decoded by cafconv; libsndfile cannot read it): convert it to LEI16 first, then that file"
        case .aacProfileNotDecoded(let formatID):
            return
                "CAF with AAC ('\(formatID)') is not converted: cafconv decodes AAC-LC ('aac') and AAC-LD ('aacl') only"
        case .aacDecodedOnlyByConvert(let formatID):
            return
                "CAF with AAC ('\(formatID)') is decoded only by convert, to linear PCM: convert it to LEI16 first, then use that file"
        case .aacBits(let bits): return "an AAC source is decoded to 16-, 24- or 32-bit or float samples, not \(bits)-bit"
        case .aacToAAC:
            return "an AAC source is not encoded to AAC again (a second generation loses quality); use a linear PCM -d"
        case .aacToOther: return "an AAC source is decoded to linear PCM only; use -d LEI16, LEI24, LEI32 or LEF32"
        case .aacNoTransform:
            return
                "rate and channel conversion of AAC sources is not supported yet; convert to LEI16 first, then convert that file"
        case .aacUndecodable(let reason): return "cannot decode its AAC: \(reason)"
        case .paktFrames(let decoded, let expected, let declared, let declaredBy, let outputRate):
            guard let outputRate else { return "it decodes to \(decoded) frames, \(declaredBy.rawValue) declares \(declared)" }
            return
                "it decodes to \(decoded) frames at \(outputRate) Hz, where the \(declared) frames \(declaredBy.rawValue) declares make \(expected)"
        case .opusUndecodable(let reason): return "cannot decode its Opus: \(reason)"
        case .mp4NotAAC(let container, let codec):
            return
                "its \(container) audio is \(codec), which cafconv does not read from \(container): it reads AAC-LC (and, from MP4, lossless codecs such as ALAC)"
        case .mp4Unreadable(let container, let reason): return "cannot read its \(container) AAC: \(reason)"
        case .notTransformable(let channels, let rate): return "cannot convert a source of \(channels) channels at \(rate) Hz"
        case .resampleRatio(let from, let to):
            return "cannot resample \(from) Hz to \(to) Hz: cafconv resamples by factors up to 256 either way"
        case .resampleFraction(let from, let to):
            return "cannot resample \(from) Hz to \(to) Hz: the source's rate has too many fraction bits"
        case .resampleChannels(let channels): return "cannot resample \(channels) channels: cafconv resamples at most 256"
        }
    }

    public var description: String { message }

    /// `N packet(s) fail(s) to decode (libavcodec, at frame F (byte B), ...)`.
    private static func packets(_ count: Int64, at places: [DamagedPacket]) -> String {
        let shown = places.map { "frame \($0.frame)\($0.byte.map { " (byte \($0))" } ?? "")" }.joined(separator: ", ")
        return "\(count) packet\(count == 1 ? "" : "s") fail\(count == 1 ? "s" : "") to decode (libavcodec, at \(shown))"
    }

    // Cases of the files outside the source stage (FileSystem, DirectPayload, SecondDecoder,
    // AVCodecSource).
    /// The file ended before the bytes its header promised: it changed while it was being read.
    case fileEndedEarly
    /// The source ended before its audio did: it changed while it was being converted.
    case sourceEndedEarly
    /// libmpg123 cannot open the MPEG audio (`reason`: its message).
    case mpg123Unreadable(reason: String)
    /// `decoder` cannot decode the audio (`reason`: its message).
    case cannotDecode(decoder: String, reason: String)
    /// libavcodec cannot open the file again for the pump or the proof (`reason`: its message).
    case avcodecUnreadableAgain(reason: String)
    /// The second decoder, libavcodec, cannot open the file, so `first`'s decoding cannot be
    /// checked (`reason`: its message; code `unsupported`).
    case secondDecoderUnreadable(first: String, reason: String)
    /// `first` decodes `channels` channels, libavcodec `second`.
    case channelCountsDisagree(first: String, channels: Int, second: Int)
    /// `first` decodes at `rate` Hz, libavcodec at `second` Hz.
    case ratesDisagree(first: String, rate: Int, second: Int)
    /// libavcodec fails to decode `packets` packets, the first few at `places`; `first` decodes
    /// `firstFrames`, libavcodec `secondFrames` skipping the damage.
    case damaged(packets: Int64, places: [DamagedPacket], first: String, firstFrames: Int64, secondFrames: Int64)
    /// libavcodec fails to decode `packets` packets, the first few at `places`; `frames` decode
    /// around them.
    case damagedAround(packets: Int64, places: [DamagedPacket], frames: Int64)
    /// `first` decodes `firstFrames` frames, libavcodec `secondFrames` (`rates`: both rates, when
    /// they differ).
    case frameCountsDisagree(first: String, firstFrames: Int64, secondFrames: Int64, rates: DecodingRates?)
    /// The two decoders give different samples at `frame`, `channel` (`lossy`: more than the
    /// tolerance apart).
    case samplesDiffer(first: String, frame: Int64, channel: Int, firstValue: String, secondValue: String, lossy: Bool)

    /// A packet libavcodec failed to decode: the frame it starts at, its byte when known.
    public struct DamagedPacket: Equatable, Sendable {
        public var frame: Int64
        public var byte: Int64?
        public init(frame: Int64, byte: Int64?) {
            self.frame = frame
            self.byte = byte
        }
    }

    /// The sample rates of two decodings that differ: libavcodec's, then the first decoder's.
    public struct DecodingRates: Equatable, Sendable {
        public var second: Int
        public var first: Int
        public init(second: Int, first: Int) {
            self.second = second
            self.first = first
        }
    }
}

/// What declares the length of a source whose length is exact by construction, as a failure
/// names it.
public enum FrameDeclaration: String, Equatable, Sendable {
    /// A CAF's packet table.
    case pakt = "its 'pakt'"
    /// An Ogg stream's last granule position (less the pre-skip).
    case granule = "its last granule position"
}

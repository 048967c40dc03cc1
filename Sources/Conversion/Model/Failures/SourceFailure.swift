/// Source failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.source`).
public enum SourceFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public var code: ConversionError.Code {
        switch self {
        case .fileEndedEarly, .sourceEndedEarly: return .sourceChanged
        case .mpg123Unreadable, .cannotDecode, .avcodecUnreadableAgain, .damaged, .damagedAround: return .notAudio
        case .secondDecoderUnreadable: return .unsupported
        case .channelCountsDisagree, .ratesDisagree, .frameCountsDisagree, .samplesDiffer: return .readersDisagree
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
        }
    }

    /// `N packet(s) fail(s) to decode (libavcodec, at frame F (byte B), ...)`.
    private static func packets(_ count: Int64, at places: [DamagedPacket]) -> String {
        let shown = places.map { "frame \($0.frame)\($0.byte.map { " (byte \($0))" } ?? "")" }.joined(separator: ", ")
        return "\(count) packet\(count == 1 ? "" : "s") fail\(count == 1 ? "s" : "") to decode (libavcodec, at \(shown))"
    }

    public var description: String { message }

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

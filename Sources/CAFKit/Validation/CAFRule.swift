/// Every rule ``CAFValidator`` checks. The raw value is the rule's stable ``code``, the name that
/// text and JSON reports show (`desc-first`, `byte-order`...); it never changes between versions.
public enum CAFRule: String, CaseIterable, Sendable, Codable {
    // The chunk table and the header fields (CAF specification).
    /// `desc` must be the first chunk.
    case descFirst = "desc-first"
    /// `desc` must be 32 bytes.
    case descSize = "desc-size"
    /// Exactly one `desc` chunk.
    case oneDesc = "one-desc"
    /// Exactly one `data` chunk.
    case oneData = "one-data"
    /// Only a last `data` chunk may declare size -1.
    case sizeMinusOne = "size-minus-one"
    /// A chunk must fit within the file.
    case chunkWithinFile = "chunk-within-file"
    /// The reader lists a bounded number of chunks.
    case chunkCount = "chunk-count"
    /// The file must end where its last chunk ends.
    case fileEndsWithChunk = "file-ends-with-chunk"
    /// The sample rate must be finite and positive (or match the expected rate).
    case sampleRate = "sample-rate"
    /// At least one channel (or the expected number of channels).
    case channels
    /// Linear PCM bit depths: 8, 16, 24, 32 integer or 32, 64 float.
    case lpcmBits = "lpcm-bits"
    /// Linear PCM has one frame per packet.
    case lpcmFramesPerPacket = "lpcm-frames-per-packet"
    /// Linear PCM bytes per packet are channels x bytes per sample.
    case lpcmBytesPerPacket = "lpcm-bytes-per-packet"
    /// Linear PCM audio holds whole frames.
    case wholeFrames = "whole-frames"
    /// A compressed format declares 0 bits per channel.
    case compressedBits = "compressed-bits"
    // The packet table.
    /// A variable-size format needs a `pakt` chunk.
    case paktRequired = "pakt-required"
    /// The packet table's frame counts must add up.
    case paktFrames = "pakt-frames"
    /// An Opus file's `pakt` keeps the encoder's pre-skip as priming (not ffmpeg's priming 0 with
    /// every decoded frame counted valid).
    case opusPriming = "opus-priming"
    // Chunk bodies.
    /// A chunk body must be readable.
    case chunkBody = "chunk-body"
    /// The packet table's sizes must add up to the audio bytes.
    case paktBytes = "pakt-bytes"
    /// An Opus file's `kuki` is Apple's 28 bytes and agrees with `desc`.
    case opusCookie = "opus-kuki"
    /// A `chan` chunk's size must match its descriptions.
    case chanSize = "chan-size"
    /// A `chan` chunk describes as many channels as `desc`.
    case chanChannels = "chan-channels"
    /// A `peak` chunk holds one peak per channel.
    case peakSize = "peak-size"
    /// An `info` chunk holds as many strings as it declares.
    case infoCount = "info-count"
    /// A marker lies within the audio.
    case markPosition = "mark-position"
    /// A region's markers lie within the audio.
    case regnPosition = "regn-position"
    // Expectations of the caller.
    /// The expected format ID.
    case format
    /// The expected byte order of linear PCM samples.
    case byteOrder = "byte-order"
    /// The expected bits per channel.
    case bits
    /// Expected float or integer samples.
    case float
    /// The expected number of valid frames.
    case frames

    /// The stable name reports show, such as `desc-first`.
    public var code: String { rawValue }

    /// One sentence saying what the rule demands.
    public var summary: String {
        switch self {
        case .descFirst: return "The 'desc' chunk comes first."
        case .descSize: return "The 'desc' chunk is 32 bytes long."
        case .oneDesc: return "The file has exactly one 'desc' chunk."
        case .oneData: return "The file has exactly one 'data' chunk."
        case .sizeMinusOne: return "Only a last 'data' chunk may declare the size -1."
        case .chunkWithinFile: return "Every chunk fits within the file."
        case .chunkCount: return "The file has no more chunks than the reader lists."
        case .fileEndsWithChunk: return "The file ends where its last chunk ends."
        case .sampleRate: return "The sample rate is finite, positive and the one expected."
        case .channels: return "There is at least one channel, and as many as expected."
        case .lpcmBits: return "Linear PCM has 8, 16, 24 or 32 integer bits, or 32 or 64 float bits."
        case .lpcmFramesPerPacket: return "Linear PCM has one frame per packet."
        case .lpcmBytesPerPacket: return "Linear PCM packets are channels times bytes per sample long."
        case .wholeFrames: return "Linear PCM audio holds whole frames."
        case .compressedBits: return "A compressed format declares 0 bits per channel."
        case .paktRequired: return "A format with packets of varying size has a 'pakt' chunk."
        case .paktFrames: return "The packet table's frame counts add up."
        case .opusPriming: return "An Opus file's 'pakt' counts the encoder's pre-skip as priming, not as audio."
        case .opusCookie: return "An Opus file's 'kuki' is 28 bytes and agrees with 'desc'."
        case .chunkBody: return "Every known chunk's body can be read."
        case .paktBytes: return "The packet sizes add up to the audio bytes."
        case .chanSize: return "A 'chan' chunk's size matches its channel descriptions."
        case .chanChannels: return "A 'chan' chunk describes as many channels as 'desc'."
        case .peakSize: return "A 'peak' chunk holds one peak per channel."
        case .infoCount: return "An 'info' chunk holds as many strings as it declares."
        case .markPosition: return "Every marker lies within the audio."
        case .regnPosition: return "Every region's markers lie within the audio."
        case .format: return "The format is the one expected."
        case .byteOrder: return "Linear PCM samples have the expected byte order."
        case .bits: return "The bits per channel are the ones expected."
        case .float: return "Samples are float or integer as expected."
        case .frames: return "The number of valid frames is the one expected."
        }
    }
}

/// Source warnings (`ConversionWarning`), one case per warning with its data; `message` is the
/// one place each becomes its sentence.
public enum SourceWarning: Equatable, Sendable, CustomStringConvertible {
    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .factSaysMore(let declared, let decoded):
            "the 'fact' chunk says \(declared) frames, but both decoders decode \(decoded) to the end of the 'data' chunk: \(decoded) frames converted"
        case .shortRead(let declared, let read):
            "the header declares \(declared) frames but only \(read) could be read; converted \(read)"
        case .noFrames: "no audio frames: the output holds an empty 'data' chunk"
        case .noAACPacket: "no audio frames: the output holds no AAC packet"
        }
    }

    public var description: String { message }

    // Cases of the files outside the source stage (SecondDecoder, the output codecs).
    /// A WAV's 'fact' chunk says `declared` frames, but both decoders decode `decoded` to the end
    /// of the 'data' chunk: `decoded` frames are converted.
    case factSaysMore(declared: Int64, decoded: Int64)
    /// The header declares `declared` frames but only `read` could be read and were converted.
    case shortRead(declared: Int64, read: Int64)
    /// No audio frames: the output holds an empty 'data' chunk.
    case noFrames
    /// No audio frames: the AAC output holds no packet.
    case noAACPacket
}

import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles

/// The output encodings cafconv writes, one line each, in the order `--help` lists their `-d`
/// spellings. A new encoding is a file conforming to ``OutputCodec`` and one line here
/// (ARCHITECTURE.md, "Adding a codec").
public enum OutputCodecs {
    package static let all: [any OutputCodec] = [
        LinearPCMCodec(),
        G711Codec(law: .muLaw),
        G711Codec(law: .aLaw),
        ALACCodec(),
        IMA4Codec(),
        AACOutputCodec(),
        OpusOutputCodec(),
    ]

    /// What `-d` accepts: every codec's spelling, for the parser (``DataFormat/init(parsing:)``),
    /// `--help`, the manual and shell completion.
    public static let vocabulary = DataFormat.Vocabulary(all.map(\.spelling))

    /// Every `-d` spelling `--help` lists, for the manual and shell completion.
    public static var spellings: [String] { vocabulary.spellings.flatMap(\.examples) }

    /// The spellings as one line, as `--help` shows them.
    public static var examples: String { vocabulary.examples }

    /// The codec that writes `target` (`asked`: the `-d` kind; `nil` keeps the source's format).
    package static func codec(writing target: TargetFormat, asked: DataFormat.Kind?) -> any OutputCodec {
        all.first { $0.writes(target, asked: asked) } ?? all[0]
    }

    /// The codec `-d` names with `kind`.
    package static func codec(asked kind: DataFormat.Kind) -> any OutputCodec {
        all.first { $0.spelling.name == kind.codec } ?? all[0]
    }

    /// The codec of a job: the one `-d` names, the one that moves the source's packets under `-d 0`,
    /// or the one that keeps the source's format.
    package static func codec(for source: SourceStage, options: ConversionOptions) -> any OutputCodec {
        if options.keepsSourceCodec, options.dataFormat == nil,
            let mover = all.first(where: { $0.movesPackets(of: source, options: options) })
        {
            return mover
        }
        return codec(writing: OutputPlan.target(source, options: options), asked: options.dataFormat?.kind)
    }

    /// The libsndfile-written codec of `target`, for proofs of outputs libsndfile's writer made.
    package static func libsndfileCodec(writing target: TargetFormat) -> any LibsndfileWriterCodec {
        all.lazy.compactMap { $0 as? any LibsndfileWriterCodec }.first { $0.writes(target, asked: nil) } ?? LinearPCMCodec()
    }

    /// What `format` adds to an output's fingerprint; `source` without `-d`.
    package static func fingerprint(of format: DataFormat?, options: ConversionOptions) -> String {
        guard let format else { return "source" }
        return codec(asked: format.kind).fingerprint(format, options: options)
    }
}

extension ConversionOptions {
    /// What decides the bytes of an output besides its source (see `fingerprint(format:)`); the
    /// data format's part is its codec's.
    public var fingerprint: String { fingerprint(format: OutputCodecs.fingerprint(of: dataFormat, options: self)) }
}

extension DataFormat {
    /// Parses a `-d` value against the codecs cafconv writes (``OutputCodecs/vocabulary``).
    public init(parsing text: String) throws(DataFormatError) {
        try self.init(parsing: text, vocabulary: OutputCodecs.vocabulary)
    }
}

extension FormatRequest {
    /// Parses `FMT`, `FMT@RATE` or `0@RATE` against the codecs cafconv writes.
    public init(parsing text: String) throws(DataFormatError) {
        try self.init(parsing: text, vocabulary: OutputCodecs.vocabulary)
    }
}

/// A recoverable problem met while converting one file, and what was done about it: a case with
/// its data per area; ``message`` is the one place a warning becomes its sentence (the text
/// output and the JSON report's `warnings` both show it).
public enum ConversionWarning: Equatable, Sendable, CustomStringConvertible, Codable,
    ExpressibleByStringInterpolation
{
    /// About the source's audio: a short read, no frames, a decoder's damage report.
    case source(SourceWarning)
    /// About metadata that could not be carried over as it was.
    case metadata(MetadataWarning)
    /// About the run: planning, rules, the manifest, verification.
    case run(RunWarning)
    /// Transitional, while the engine's sites move to the typed cases above: a sentence.
    /// Removed, with the string literal conformance, when the last site is typed.
    case note(String)

    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .source(let warning): warning.message
        case .metadata(let warning): warning.message
        case .run(let warning): warning.message
        case .note(let text): text
        }
    }

    public var description: String { message }

    /// Transitional, for tests still matching sentences: whether ``message`` contains `text`.
    public func contains(_ text: some StringProtocol) -> Bool { message.contains(text) }

    public init(stringLiteral value: String) { self = .note(value) }

    /// Reports carry the sentence.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(message)
    }

    /// A report read back keeps the sentence only.
    public init(from decoder: any Decoder) throws {
        self = .note(try decoder.singleValueContainer().decode(String.self))
    }
}

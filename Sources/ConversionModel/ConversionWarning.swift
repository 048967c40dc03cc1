/// A recoverable problem met while converting one file, and what was done about it: a case with
/// its data per area; ``message`` is the one place a warning becomes its sentence (the text
/// output and the JSON report's `warnings` both show it).
public enum ConversionWarning: Equatable, Sendable, CustomStringConvertible, Codable {
    /// About the source's audio: a short read, no frames, a decoder's damage report.
    case source(SourceWarning)
    /// About metadata that could not be carried over as it was.
    case metadata(MetadataWarning)
    /// About the run: planning, rules, the manifest, verification.
    case run(RunWarning)
    /// A warning as text only: read back from a report (which keeps sentences), or escaped for
    /// a terminal when its sentence held a character that needed it.
    case text(String)

    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .source(let warning): warning.message
        case .metadata(let warning): warning.message
        case .run(let warning): warning.message
        case .text(let text): text
        }
    }

    public var description: String { message }

    /// Reports carry the sentence.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(message)
    }

    /// A report read back keeps the sentence only.
    public init(from decoder: any Decoder) throws {
        self = .text(try decoder.singleValueContainer().decode(String.self))
    }
}

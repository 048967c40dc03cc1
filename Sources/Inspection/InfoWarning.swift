import CAFKit
import WAVEKit

/// A recoverable problem `info` found in a file, with its data: the reader's own warning, or a
/// finding of the inspection itself. ``message`` is the one place each becomes its sentence
/// (the text output's `Warning:` lines and the JSON report's `warnings` both show it).
public enum InfoWarning: Equatable, Sendable, CustomStringConvertible, Codable {
    /// CAFKit's reader's warning about a CAF file.
    case caf(CAFWarning)
    /// WAVEKit's reader's warning about a WAV or AIFF file.
    case wave(WAVEWarning)
    /// A chunk declares more bytes than a file can hold (an RF64 `ds64` size of 2^63 or more):
    /// the report's signed size holds the largest it can.
    case chunkTooLarge(type: String, offset: UInt64, declared: UInt64)
    /// A warning read back from a report: its sentence only.
    case reported(String)

    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .caf(let warning): warning.description
        case .wave(let warning): warning.message
        case .chunkTooLarge(let type, let offset, let declared):
            "chunk '\(type)' at byte \(offset) declares \(declared) bytes, more than any file holds"
        case .reported(let text): text
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
        self = .reported(try decoder.singleValueContainer().decode(String.self))
    }
}

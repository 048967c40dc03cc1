import ConversionModel
import OutputFiles
import Transcoding

/// The one place where a finding of `verify` becomes text or JSON. The text line
/// (`rule: expected X, found Y`) and the JSON object (`rule`, `expected`, `found`, `chunk`,
/// `offset`) are both drawn from the same fields here, so they cannot drift apart.
public enum FindingRendering {
    /// `rule: expected X, found Y`: the line `verify` prints after the file's path.
    public static func text(_ failure: VerifyFailure) -> String {
        "\(failure.code): expected \(failure.expected), found \(failure.found)"
    }

    private enum Key: String, CodingKey {
        case rule, expected, found, chunk, offset
    }

    /// Writes the JSON object of one failure; `chunk` and `offset` only when known.
    package static func encode(_ failure: VerifyFailure, to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(failure.code, forKey: .rule)
        try container.encode(failure.expected, forKey: .expected)
        try container.encode(failure.found, forKey: .found)
        try container.encodeIfPresent(failure.chunk, forKey: .chunk)
        try container.encodeIfPresent(failure.offset, forKey: .offset)
    }
}

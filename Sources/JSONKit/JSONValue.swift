/// A JSON document as a tree, and its text.
///
/// Numbers are kept as the text they are written as, so that integers of any width stay exact and
/// doubles print once, in their shortest round-trip form.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number already in JSON syntax (`42`, `-0.5`, `1e+20`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// An integer of any width.
    public static func integer(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

    /// A double in its shortest round-trip form without a trailing `.0` (`44100`, `0.15`, `1e-07`),
    /// as Foundation's `JSONEncoder` writes it; `null` for NaN and the infinities, which JSON
    /// cannot hold.
    public static func double(_ value: Double) -> JSONValue {
        value.isFinite ? .number(trimmingPointZero(value.description)) : .null
    }

    /// A float in its shortest round-trip form, like `double(_:)`.
    public static func float(_ value: Float) -> JSONValue {
        value.isFinite ? .number(trimmingPointZero(value.description)) : .null
    }

    private static func trimmingPointZero(_ text: String) -> String {
        text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// The document as text: keys sorted by their UTF-8 bytes, `/` not escaped. Pretty printing
    /// follows `JSONEncoder`'s `.prettyPrinted` layout byte for byte: two spaces per level,
    /// `"key" : value`, and an empty line inside empty arrays and objects.
    public func text(pretty: Bool = true) -> String {
        var output = ""
        write(to: &output, pretty: pretty, indent: 0)
        return output
    }

    private func write(to output: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            Self.writeMembers(
                elements, to: &output, pretty: pretty, indent: indent, close: "]"
            ) { element, output in
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
        case .object(let members):
            output += "{"
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            Self.writeMembers(sorted, to: &output, pretty: pretty, indent: indent, close: "}") { member, output in
                Self.writeString(member.key, to: &output)
                output += pretty ? " : " : ":"
                member.value.write(to: &output, pretty: pretty, indent: indent + 1)
            }
        }
    }

    /// Writes the members of an array or object, separated by commas, then `close`.
    private static func writeMembers<Member>(
        _ members: [Member], to output: inout String, pretty: Bool, indent: Int, close: String,
        _ writeMember: (Member, inout String) -> Void
    ) {
        let inner = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        if pretty && members.isEmpty { output += "\n" }
        for (index, member) in members.enumerated() {
            if index > 0 { output += "," }
            output += inner
            writeMember(member, &output)
        }
        if pretty { output += "\n" + String(repeating: "  ", count: indent) }
        output += close
    }

    /// A string literal per RFC 8259: `"` and `\` escaped, control characters as `\b \t \n \f \r`
    /// or `\u00XX`; everything else, `/` and non-ASCII included, as it is.
    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        var pending = text.unicodeScalars.startIndex
        var index = pending
        let scalars = text.unicodeScalars
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let escape: String?
            switch scalar {
            case "\"": escape = "\\\""
            case "\\": escape = "\\\\"
            case "\u{08}": escape = "\\b"
            case "\t": escape = "\\t"
            case "\n": escape = "\\n"
            case "\u{0C}": escape = "\\f"
            case "\r": escape = "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    escape = nil
                }
            }
            if let escape {
                // Through a String: `output.unicodeScalars.append` copied the whole output on
                // each call (the view is got and set back), which made writing quadratic.
                output += String(scalars[pending..<index])
                output += escape
                pending = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        output += String(scalars[pending..<scalars.endIndex])
        output += "\""
    }
}

import BinaryIO
import ConversionModel
import OutputFiles
import Transcoding
import SystemLayer

/// Reads a rules file (`cafconv.toml`). The file is TOML, of which a rules file needs a small,
/// strict part; this reader takes exactly that part and says so, naming the line, for anything
/// else:
///
/// - `# comments`, blank lines;
/// - `[defaults]` (once) and `[[rule]]` headers;
/// - `key = value` with a bare key (`A-Za-z0-9_-`) or a quoted one;
/// - values: basic strings (`"..."` with TOML's escapes `\" \\ \n \t \r \b \f \uXXXX
///   \UXXXXXXXX`), literal strings (`'...'`), integers (decimal, `_` between digits, a sign),
///   `true`/`false`, and arrays of strings (`["a/**", 'b/**']`, over several lines if need be,
///   with a trailing comma).
///
/// Floats, dates, inline tables, multi-line strings and dotted keys are refused with the line.
/// Why not a TOML package: see ARCHITECTURE.md (LebJe/TOMLKit imports Foundation, which a
/// one-file conversion would pay for at every start, and it cannot say on which line a key is).
public enum RulesFile {
    /// The name looked for at an input root.
    public static let fileName = "cafconv.toml"
    /// Files larger than this are refused (a rules file is a few KiB).
    public static let maximumBytes = 1 << 20

    /// The `cafconv.toml` at the root of `input` when `input` is a folder and holds one (or
    /// anything by that name, a dangling symlink included: ``load(_:)`` then says what is wrong,
    /// rather than the folder silently getting the defaults).
    public static func path(atRoot input: String) -> String? {
        guard FileSystem.kind(of: input) == .directory else { return nil }
        let path = FileSystem.joined(input, fileName)
        return FileSystem.linkExists(path) ? path : nil
    }

    /// Reads and checks the rules file at `path`: syntax, keys, value types and ranges, and that
    /// each setting can be applied by this build.
    public static func load(_ path: String) throws(RuleError) -> ConversionRules {
        let source: FileByteSource
        do throws(ByteError) { source = try FileByteSource(path: path) } catch {
            throw RuleError("cannot read it: \(error)", file: path)
        }
        guard source.length <= UInt64(maximumBytes) else {
            throw RuleError("larger than \(maximumBytes) bytes; not a rules file", file: path)
        }
        let bytes: [UInt8]
        let more: [UInt8]
        do throws(ByteError) {
            bytes = try source.readExactly(at: 0, count: Int(source.length))
            // `read` stops at the length the file reported; ask the descriptor itself.
            var byte: UInt8 = 0
            let got = Syscall.retryOnInterrupt { pread(source.fileDescriptor, &byte, 1, off_t(clamping: source.length)) }
            more = got > 0 ? [byte] : []
        } catch {
            throw RuleError("cannot read it: \(error)", file: path)
        }
        // A file that holds more than its size says is no file on a disk (a /proc or /sys
        // pseudo-file reports 0 bytes): reading it as empty would silently drop every rule.
        guard more.isEmpty else {
            throw RuleError(
                "it holds more than its size says (\(source.length) bytes): a /proc or /sys pseudo-file is not a rules file",
                file: path)
        }
        return try parse(String(decoding: bytes, as: UTF8.self), file: path)
    }

    /// The lines of `text` as Unicode scalars, split at TOML's newlines, LF and CRLF (the CR
    /// dropped). Split by scalars, not `Character`s: Swift reads "\r\n" as one `Character`, so
    /// splitting a CRLF file on "\n" would give one line. A carriage return without a line feed is
    /// not a TOML newline (nor a character TOML allows elsewhere) and is refused with its line.
    package static func logicalLines(_ text: String, file: String) throws(RuleError) -> [[Unicode.Scalar]] {
        var lines: [[Unicode.Scalar]] = []
        for piece in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = Array(piece)
            if line.last == "\r" { line.removeLast() }
            if line.contains("\r") {
                throw RuleError(
                    "a carriage return without a line feed; TOML's line ends are LF or CRLF", file: file,
                    line: lines.count + 1)
            }
            lines.append(line)
        }
        return lines
    }

    /// Parses the text of a rules file named `file` (for messages).
    public static func parse(_ text: String, file: String) throws(RuleError) -> ConversionRules {
        var reader = Reader(file: file)
        var lines = try logicalLines(text, file: file)[...]
        var number = 0
        while let raw = lines.popFirst() {
            number += 1
            var cursor = Cursor(scalars: raw[...], line: number, file: file)
            cursor.skipSpace()
            if cursor.atEnd || cursor.peek == "#" { continue }
            if cursor.peek == "[" {
                try reader.header(&cursor)
                continue
            }
            let key = try cursor.key()
            cursor.skipSpace()
            if cursor.peek == "." { throw cursor.error("dotted keys are not supported in a rules file") }
            guard cursor.consume("=") else { throw cursor.error("expected '=' after the key '\(key)'") }
            cursor.skipSpace()
            let line = cursor.line
            let value = try cursor.value(more: &lines, lineNumber: &number)
            try cursor.expectEnd()
            try reader.set(key, value, line: line)
        }
        try reader.finishRule()
        return reader.rules
    }

    /// The tables read so far and the one being read.
    package struct Reader {
        package enum Section { case top, defaults, rule }
        package let file: String
        package var rules: ConversionRules
        package var section = Section.top
        package var sawDefaults = false
        package var defaultKeys: Set<String> = []
        /// The `[[rule]]` being read: its header's line, its patterns, its settings and its keys.
        package var current: (line: Int, patterns: [Glob]?, settings: [RuleSetting], keys: Set<String>)? = nil

        package init(file: String) {
            self.file = file
            rules = ConversionRules(file: file)
        }

        /// A `[defaults]` or `[[rule]]` header (which ends the rule before it).
        package mutating func header(_ cursor: inout Cursor) throws(RuleError) {
            let header = cursor.line
            let isArray = cursor.starts(with: "[[")
            cursor.advance(isArray ? 2 : 1)
            cursor.skipSpace()
            let name = try cursor.key()
            cursor.skipSpace()
            guard cursor.consume(isArray ? "]]" : "]") else {
                throw cursor.error("expected '\(isArray ? "]]" : "]")' to close the table header")
            }
            try cursor.expectEnd()
            try finishRule()
            switch (isArray, name) {
            case (true, "rule"):
                section = .rule
                current = (header, nil, [], [])
            case (false, "defaults"):
                if sawDefaults { throw cursor.error("[defaults] is given twice") }
                sawDefaults = true
                section = .defaults
            case (false, "rule"):
                throw cursor.error("rules are an array of tables: write [[rule]], not [rule]")
            default:
                throw cursor.error(
                    "unknown table \(isArray ? "[[\(name)]]" : "[\(name)]"); a rules file has [defaults] and [[rule]] tables")
            }
        }

        /// `key = value` in the current table.
        package mutating func set(_ key: String, _ value: Parsed, line: Int) throws(RuleError) {
            switch section {
            case .top:
                throw RuleError(
                    "'\(key)' is outside any table; settings go under [defaults] or a [[rule]]", file: file, line: line)
            case .defaults:
                guard defaultKeys.insert(key).inserted else {
                    throw RuleError("'\(key)' is given twice in [defaults]", file: file, line: line)
                }
                if key == "match" {
                    throw RuleError("[defaults] has no 'match': it applies to every file", file: file, line: line)
                }
                rules.defaults.append(try setting(key, value, line: line, file: file))
            case .rule:
                guard current?.keys.insert(key).inserted == true else {
                    throw RuleError("'\(key)' is given twice in this [[rule]]", file: file, line: line)
                }
                if key == "match" {
                    let patterns = try patterns(value, line: line)
                    current?.patterns = patterns
                } else {
                    let setting = try RulesFile.setting(key, value, line: line, file: file)
                    current?.settings.append(setting)
                }
            }
        }

        /// A rule's `match`: one pattern or a non-empty array of them.
        package func patterns(_ value: Parsed, line: Int) throws(RuleError) -> [Glob] {
            let texts: [String]
            switch value {
            case .string(let text): texts = [text]
            case .strings(let list) where !list.isEmpty: texts = list
            default:
                throw RuleError(
                    "match takes a pattern or a non-empty array of patterns (match = \"sfx/**\")", file: file, line: line)
            }
            var patterns: [Glob] = []
            for text in texts {
                do throws(RuleError) { patterns.append(try Glob(text)) } catch {
                    throw RuleError("match: \(error.message)", file: file, line: line)
                }
            }
            return patterns
        }

        /// Adds the rule being read, which must have a `match`.
        package mutating func finishRule() throws(RuleError) {
            guard let rule = current else { return }
            guard let patterns = rule.patterns else {
                throw RuleError(
                    "this [[rule]] has no 'match' (the files it applies to, as in match = \"sfx/**\")", file: file,
                    line: rule.line)
            }
            rules.rules.append(
                ConversionRule(patterns: patterns, settings: rule.settings, line: rule.line, number: rules.rules.count + 1))
            current = nil
        }
    }

    package static func setting(_ key: String, _ value: Parsed, line: Int, file: String) throws(RuleError) -> RuleSetting {
        let ruleKey = RuleKey(rawValue: key)
        guard let known = Setting.named(ruleKey) else {
            throw RuleError("unknown key '\(key)'; a rule or [defaults] may set \(RuleKey.list)", file: file, line: line)
        }
        let ruleValue: RuleValue
        switch value {
        case .string(let text): ruleValue = .string(text)
        case .integer(let number): ruleValue = .integer(number)
        case .boolean(let flag): ruleValue = .boolean(flag)
        case .strings:
            throw RuleError(
                "\(key) takes \(known.takes), not an array", file: file, line: line)
        }
        // Checked now, against a blank set of options: a bad value or a setting this build cannot
        // apply is an error of the file, at its line, before anything runs.
        var probe = ConversionOptions(jobs: 1)
        probe.codecs = OutputCodecs.vocabulary
        do throws(RuleError) { try ConversionRules.apply(ruleKey, ruleValue, to: &probe) } catch {
            throw RuleError(error.message, file: file, line: line)
        }
        return RuleSetting(key: ruleKey, value: ruleValue, line: line)
    }

    package enum Parsed {
        case string(String)
        case integer(Int)
        case boolean(Bool)
        case strings([String])
    }

    /// Reads one line's characters.
    package struct Cursor {
        package var scalars: ArraySlice<Unicode.Scalar>
        package var line: Int
        package let file: String

        package var atEnd: Bool { scalars.isEmpty }
        package var peek: Unicode.Scalar? { scalars.first }

        package func error(_ message: String) -> RuleError { RuleError(message, file: file, line: line) }

        package mutating func advance(_ count: Int) { scalars = scalars.dropFirst(count) }

        package func starts(with text: String) -> Bool { scalars.starts(with: text.unicodeScalars) }

        package mutating func consume(_ text: String) -> Bool {
            guard starts(with: text) else { return false }
            advance(text.unicodeScalars.count)
            return true
        }

        package mutating func skipSpace() {
            while let scalar = peek, scalar == " " || scalar == "\t" || scalar == "\r" { advance(1) }
        }

        /// Only spaces and a comment may follow.
        package mutating func expectEnd() throws(RuleError) {
            skipSpace()
            if atEnd || peek == "#" { return }
            throw error("unexpected '\(String(String.UnicodeScalarView(scalars.prefix(20))))' at the end of the line")
        }

        package static func isBare(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "-"
        }

        package mutating func key() throws(RuleError) -> String {
            if peek == "\"" || peek == "'" { return try string() }
            var name = String.UnicodeScalarView()
            while let scalar = peek, Self.isBare(scalar) {
                name.append(scalar)
                advance(1)
            }
            if name.isEmpty { throw error("expected a key (letters, digits, '_' or '-')") }
            return String(name)
        }

        package mutating func string() throws(RuleError) -> String {
            if starts(with: "\"\"\"") || starts(with: "'''") {
                throw error("multi-line strings are not supported in a rules file")
            }
            guard let quote = peek else { throw error("expected a string") }
            advance(1)
            var text = String.UnicodeScalarView()
            while let scalar = peek {
                advance(1)
                if scalar == quote { return String(text) }
                if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F {
                    throw error(
                        "a control character (U+\(String(scalar.value, radix: 16, uppercase: true))) in a string; escape it")
                }
                if quote == "\"" && scalar == "\\" {
                    guard let escape = peek else { break }
                    advance(1)
                    switch escape {
                    case "\"": text.append("\"")
                    case "\\": text.append("\\")
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    case "r": text.append("\r")
                    case "b": text.append("\u{8}")
                    case "f": text.append("\u{C}")
                    case "u", "U":
                        let digits = escape == "u" ? 4 : 8
                        let hex = String(String.UnicodeScalarView(scalars.prefix(digits)))
                        guard hex.unicodeScalars.count == digits, let value = UInt32(hex, radix: 16),
                            let decoded = Unicode.Scalar(value)
                        else { throw error("'\\\(escape)' needs \(digits) hex digits of a Unicode scalar") }
                        advance(digits)
                        text.append(decoded)
                    default:
                        throw error("unknown escape '\\\(escape)' in a string")
                    }
                    continue
                }
                text.append(scalar)
            }
            throw error("the string is not closed on this line")
        }

        package mutating func value(more lines: inout ArraySlice<[Unicode.Scalar]>, lineNumber: inout Int) throws(RuleError)
            -> Parsed
        {
            guard let first = peek else { throw error("expected a value after '='") }
            switch first {
            case "\"", "'":
                return .string(try string())
            case "[":
                advance(1)
                // An array may span lines; comments may end each of them.
                func nextLineInArray() throws(RuleError) {
                    while atEnd || peek == "#" {
                        guard let next = lines.popFirst() else { throw error("the array is not closed") }
                        lineNumber += 1
                        line = lineNumber
                        scalars = next[...]
                        skipSpace()
                    }
                }
                var items: [String] = []
                while true {
                    skipSpace()
                    try nextLineInArray()
                    if consume("]") { return .strings(items) }
                    guard peek == "\"" || peek == "'" else {
                        throw error("an array in a rules file holds strings (patterns), as in [\"sfx/**\", \"ui/**\"]")
                    }
                    items.append(try string())
                    skipSpace()
                    try nextLineInArray()
                    if consume(",") { continue }
                    if consume("]") { return .strings(items) }
                    throw error("expected ',' or ']' in the array")
                }
            case "{":
                throw error("inline tables are not supported in a rules file")
            default:
                var word = String.UnicodeScalarView()
                while let scalar = peek, scalar != " " && scalar != "\t" && scalar != "#" && scalar != "\r" {
                    word.append(scalar)
                    advance(1)
                }
                let text = String(word)
                if text == "true" { return .boolean(true) }
                if text == "false" { return .boolean(false) }
                if let number = Self.integer(text) { return .integer(number) }
                if text.contains(".") || text.contains("e") || text == "inf" || text == "nan" {
                    throw error("'\(text)': floating-point numbers are not used in a rules file")
                }
                throw error("'\(text)' is not a value; strings are quoted (\"...\"), as in format = \"LEI16\"")
            }
        }

        /// A TOML decimal integer: an optional sign, digits, single `_` between digits, no
        /// leading zero.
        package static func integer(_ text: String) -> Int? {
            var digits = Substring(text)
            var negative = false
            if let sign = digits.first, sign == "+" || sign == "-" {
                negative = sign == "-"
                digits = digits.dropFirst()
            }
            guard let first = digits.first, first.isASCII, first.isNumber, let last = digits.last, last != "_" else {
                return nil
            }
            if first == "0" && digits.count > 1 { return nil }
            var previous: Character = "_"
            var clean = ""
            for character in digits {
                if character == "_" {
                    if previous == "_" { return nil }
                } else if character.isASCII, character.isNumber {
                    clean.append(character)
                } else {
                    return nil
                }
                previous = character
            }
            guard let magnitude = Int(clean) else { return nil }
            return negative ? -magnitude : magnitude
        }
    }
}

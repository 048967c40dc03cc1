import BinaryIO

/// What is wrong with a rules file or one of its settings, in one sentence; `file` and `line`,
/// when known, say where (`Sounds/cafconv.toml:7: ...`).
public struct RuleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The rules file.
    public var file: String?
    /// The line (1-based) of the key or table at fault.
    public var line: Int?

    /// Creates an error.
    public init(_ message: String, file: String? = nil, line: Int? = nil) {
        self.message = message
        self.file = file
        self.line = line
    }

    /// `file:line: message`, escaped for a terminal (``PathBytes/display(_:)``): a message
    /// quotes the file's own patterns, keys and values, which may hold control characters.
    public var description: String {
        guard let file else { return PathBytes.display(message) }
        guard let line else { return PathBytes.display("\(file): \(message)") }
        return PathBytes.display("\(file):\(line): \(message)")
    }
}

/// A setting a rules file may give, in `[defaults]` or a `[[rule]]`.
public enum RuleKey: String, Sendable, CaseIterable, Comparable {
    /// `format = "LEI16"`: the `-d` grammar (``DataFormat/init(parsing:)``).
    case format
    /// `endian = "little"`: `--endian`.
    case endian
    /// `rate = 22050`: the output sample rate.
    case rate
    /// `channels = 1`: the output channel count.
    case channels
    /// `mix = false`: keep the first channels instead of mixing (`--no-mix`).
    case mix
    /// `bitrate = 128000`: bits per second of a lossy encoding.
    case bitrate
    /// `dither = "tpdf"` (or `true`/`false`): dither when samples are narrowed.
    case dither
    /// `strip-metadata = true`: leave the source's metadata out of the output.
    case stripMetadata = "strip-metadata"

    public static func < (lhs: RuleKey, rhs: RuleKey) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }

    /// The keys, for error messages.
    public static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// A value as the rules file gives it.
public enum RuleValue: Sendable, Equatable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case boolean(Bool)

    /// The value as TOML writes it.
    public var description: String {
        switch self {
        case .string(let text): "\"\(text)\""
        case .integer(let value): String(value)
        case .boolean(let value): value ? "true" : "false"
        }
    }
}

/// One setting and where it was written.
public struct RuleSetting: Sendable, Equatable {
    /// The key.
    public var key: RuleKey
    /// The value.
    public var value: RuleValue
    /// The line it is on.
    public var line: Int

    /// Creates a setting.
    public init(key: RuleKey, value: RuleValue, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}

/// A `[[rule]]`: the files it matches and what it sets.
public struct ConversionRule: Sendable, Equatable {
    /// The patterns (`match = "sfx/**"` or `match = ["a/**", "b/**"]`); a file matching any of
    /// them is governed by the rule.
    public var patterns: [Glob]
    /// What the rule sets, in file order.
    public var settings: [RuleSetting]
    /// The line of its `[[rule]]` header.
    public var line: Int
    /// Its position among the rules (1-based).
    public var number: Int

    /// Creates a rule.
    public init(patterns: [Glob], settings: [RuleSetting], line: Int, number: Int) {
        self.patterns = patterns
        self.settings = settings
        self.line = line
        self.number = number
    }

    /// Whether `relative` matches one of its patterns.
    public func matches(_ relative: String) -> Bool { patterns.contains { $0.matches(relative) } }
}

/// A rules file (`cafconv.toml`): defaults, then ordered rules. A file is governed by the **first**
/// rule that matches its path (relative to the input root); the keys that rule does not set come
/// from `[defaults]`, and keys given on the command line win over both. So each file has one
/// governing rule (or only the defaults), which `--dry-run -v` shows and the size report groups by.
public struct ConversionRules: Sendable, Equatable {
    /// The rules file, as named (for messages).
    public var file: String
    /// `[defaults]`.
    public var defaults: [RuleSetting]
    /// `[[rule]]` tables in file order.
    public var rules: [ConversionRule]

    /// Creates rules.
    public init(file: String, defaults: [RuleSetting] = [], rules: [ConversionRule] = []) {
        self.file = file
        self.defaults = defaults
        self.rules = rules
    }

    /// The rule that governs `relative`: the first that matches, or `nil` (defaults only).
    public func governing(_ relative: String) -> ConversionRule? { rules.first { $0.matches(relative) } }

    /// How a report names what governs a file: `rule 2 'sfx/**' (Sounds/cafconv.toml:7)`, or
    /// `defaults (Sounds/cafconv.toml)`.
    public func label(of rule: ConversionRule?) -> String {
        guard let rule else { return "defaults (\(file))" }
        let patterns = rule.patterns.map { "'\($0.text)'" }.joined(separator: ", ")
        return "rule \(rule.number) \(patterns) (\(file):\(rule.line))"
    }

    /// The options for one file: `base` (the command line's) with the governing rule's settings
    /// and then the defaults' applied, except the keys in `commandLine`. Throws, naming the line,
    /// when a setting cannot be applied or contradicts the command line.
    public func resolve(_ relative: String, base: ConversionOptions, commandLine: Set<RuleKey>)
        throws(RuleError) -> (options: ConversionOptions, rule: ConversionRule?)
    {
        try resolve(relative, governedBy: governing(relative), base: base, commandLine: commandLine)
    }

    /// ``resolve(_:base:commandLine:)`` with the governing rule already found (by a
    /// ``RuleMatcher``).
    public func resolve(
        _ relative: String, governedBy rule: ConversionRule?, base: ConversionOptions, commandLine: Set<RuleKey>
    ) throws(RuleError) -> (options: ConversionOptions, rule: ConversionRule?) {
        var options = base
        var seen = commandLine
        for setting in (rule?.settings ?? []) + defaults where seen.insert(setting.key).inserted {
            do throws(RuleError) { try Self.apply(setting.key, setting.value, to: &options) } catch {
                throw RuleError(error.message, file: file, line: setting.line)
            }
        }
        // A setting that does not apply to the file's format is not a contradiction in a rules
        // file, whose `[defaults]` speak for every kind of file: `bitrate` only concerns AAC
        // files, and AAC has no byte order.
        if options.dataFormat?.kind != .aac { options.bitRate = nil }
        if options.dataFormat?.kind == .aac { options.endian = nil }
        do throws(DataFormatError) { try options.validate() } catch {
            throw RuleError(
                "\(error.message) (for \(relative), governed by \(label(of: rule)))", file: file, line: rule?.line)
        }
        return (options, rule)
    }

    /// Checks the type and range of a value and applies it to `options`: the one place a rules
    /// key becomes a ``ConversionOptions`` field (a new setting is one case here). Keys whose
    /// feature this build lacks are a clear error.
    public static func apply(_ key: RuleKey, _ value: RuleValue, to options: inout ConversionOptions)
        throws(RuleError)
    {
        switch (key, value) {
        case (.format, .string(let text)):
            // The `-d` grammar, `@RATE` included (`ima4@22050`, `0@22050`).
            do throws(DataFormatError) {
                let request = try FormatRequest(parsing: text)
                options.dataFormat = request.format
                if let rate = request.sampleRate { options.sampleRate = rate }
            } catch {
                throw RuleError("format = \"\(text)\": \(error.message)")
            }
        case (.endian, .string(let text)):
            guard let choice = EndianChoice(rawValue: text) else {
                throw RuleError(
                    "endian = \"\(text)\" is not a byte order; use one of \(EndianChoice.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            options.endian = choice
        case (.rate, .integer(let rate)):
            guard (1...1_536_000).contains(rate) else { throw RuleError("rate = \(rate) is out of range (1 to 1536000 Hz)") }
            options.sampleRate = rate
        case (.channels, .integer(let channels)):
            guard (1...1024).contains(channels) else {
                throw RuleError("channels = \(channels) is out of range (1 to 1024)")
            }
            options.channels = channels
        case (.mix, .boolean(let mix)):
            options.mix = mix
        case (.bitrate, .integer(let bitrate)):
            guard (8_000...512_000).contains(bitrate) else {
                throw RuleError("bitrate = \(bitrate) is out of range (8000 to 512000 bits per second)")
            }
            options.bitRate = bitrate
        case (.dither, .boolean(let on)):
            options.dither = on ? .tpdf : .none
        case (.dither, .string(let text)):
            guard let dither = Dither(rawValue: text) else {
                throw RuleError("dither = \"\(text)\" is not a dither; use \"tpdf\", \"none\", true or false")
            }
            options.dither = dither
        case (.stripMetadata, .boolean(let strip)):
            options.stripMetadata = strip
        default:
            throw RuleError("\(key.rawValue) = \(value) has the wrong type; \(key.rawValue) takes \(expected(key))")
        }
    }

    static func expected(_ key: RuleKey) -> String {
        switch key {
        case .format, .endian: "a string"
        case .rate, .channels, .bitrate: "an integer"
        case .dither: "a string or a boolean"
        case .mix, .stripMetadata: "a boolean"
        }
    }
}

/// A rules file's patterns indexed (``PatternIndex``) for a run over many files: the governing
/// rule of a file is found by examining only the patterns its path could match, in rule order,
/// instead of trying every rule until one matches.
public struct RuleMatcher: Sendable {
    /// The rules file.
    public let rules: ConversionRules
    /// Every pattern, rule after rule, each with the index of its rule.
    let patterns: [(glob: Glob, rule: Int)]
    let index: PatternIndex

    /// Indexes the patterns of `rules`.
    public init(_ rules: ConversionRules) {
        self.rules = rules
        patterns = rules.rules.indices.flatMap { rule in rules.rules[rule].patterns.map { (glob: $0, rule: rule) } }
        index = PatternIndex(patterns.map(\.glob))
    }

    /// The rule that governs `relative`, as ``ConversionRules/governing(_:)`` finds it.
    public func governing(_ relative: String) -> ConversionRule? {
        var examined = 0
        return governing(relative, examined: &examined)
    }

    /// ``governing(_:)``, counting the patterns it matches the path against.
    func governing(_ relative: String, examined: inout Int) -> ConversionRule? {
        // The candidates are in rule order: the first that matches is the first rule that does.
        for id in index.candidates(relative) {
            examined += 1
            if patterns[id].glob.matches(relative) { return rules.rules[patterns[id].rule] }
        }
        return nil
    }
}

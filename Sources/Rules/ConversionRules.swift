import BinaryIO
import ConversionModel
import OutputFiles
import Transcoding

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
        options.codecs = OutputCodecs.vocabulary
        var seen = commandLine
        for setting in (rule?.settings ?? []) + defaults where seen.insert(setting.key).inserted {
            do throws(RuleError) { try Self.apply(setting.key, setting.value, to: &options) } catch {
                throw RuleError(error.message, file: file, line: setting.line)
            }
        }
        // A setting that does not apply to the file's format is not a contradiction in a rules
        // file, whose `[defaults]` speak for every kind of file: `bitrate` only concerns AAC
        // files, and AAC has no byte order.
        if options.dataFormat?.kind.takesBitRate != true { options.bitRate = nil }
        if options.dataFormat?.kind.byteOrderless != nil { options.endian = nil }
        do throws(DataFormatError) { try options.validate() } catch {
            throw RuleError(
                "\(error.message) (for \(relative), governed by \(label(of: rule)))", file: file, line: rule?.line)
        }
        return (options, rule)
    }

    /// Checks the type and range of a value and applies it to `options`, as the key's
    /// ``Setting`` (in ``Settings/all``) says.
    public static func apply(_ key: RuleKey, _ value: RuleValue, to options: inout ConversionOptions)
        throws(RuleError)
    {
        guard let setting = Setting.named(key) else {
            throw RuleError("unknown key '\(key)'; a rule or [defaults] may set \(RuleKey.list)")
        }
        guard try setting.fromRules(value, &options) else {
            throw RuleError("\(key.rawValue) = \(value) has the wrong type; \(key.rawValue) takes \(setting.takes)")
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
    package let patterns: [(glob: Glob, rule: Int)]
    package let index: PatternIndex

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
    package func governing(_ relative: String, examined: inout Int) -> ConversionRule? {
        // The candidates are in rule order: the first that matches is the first rule that does.
        for id in index.candidates(relative) {
            examined += 1
            if patterns[id].glob.matches(relative) { return rules.rules[patterns[id].rule] }
        }
        return nil
    }
}

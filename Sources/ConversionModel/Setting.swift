import BinaryIO

/// One conversion setting as the command line and a rules file give it: its option(s), its
/// rules-file key, how each form's value is read and checked, how it changes
/// ``ConversionOptions`` and what it adds to ``ConversionOptions/fingerprint``. The settings are
/// the entries of ``Settings/all``; `cafconv convert` makes its options from them, a rules file
/// its keys, and the fingerprint its text.
public struct Setting: Sendable {
    /// The text the command line gave for an option, by its long name: a value option's value,
    /// `""` for a flag that is given, `nil` for an option that is not.
    public typealias Given = (String) -> String?

    /// The rules-file key (`channels = 1`); `nil` when only the command line sets it.
    public let key: RuleKey?
    /// What a rules file's value for ``key`` must be, for messages (`an integer`).
    public let takes: String
    /// The command-line options declared by this setting, in the order help lists them (a
    /// setting whose option is declared elsewhere, as `-d` is with the data formats, has none).
    public let options: [SettingOption]
    /// Applies what the command line gave, checked, to `options`; returns the rules keys it set
    /// (which then win over every rules file).
    package let fromCommandLine: @Sendable (Given, inout ConversionOptions) throws(DataFormatError) -> Set<RuleKey>
    /// Applies a rules file's value, checked, to `options`; `false` when the value has the wrong
    /// type (the caller says what ``takes`` instead).
    package let fromRules: @Sendable (RuleValue, inout ConversionOptions) throws(RuleError) -> Bool
    /// What the setting adds to the fingerprint (`;dither=tpdf`), or `""` when it does not
    /// decide the bytes or its value is the one outputs were made with before it existed.
    package let fingerprint: @Sendable (ConversionOptions) -> String

    package init(
        key: RuleKey? = nil, takes: String = "", options: [SettingOption] = [],
        fromCommandLine: @escaping @Sendable (Given, inout ConversionOptions) throws(DataFormatError) -> Set<RuleKey>,
        fromRules: @escaping @Sendable (RuleValue, inout ConversionOptions) throws(RuleError) -> Bool = { _, _ in false },
        fingerprint: @escaping @Sendable (ConversionOptions) -> String = { _ in "" }
    ) {
        self.key = key
        self.takes = takes
        self.options = options
        self.fromCommandLine = fromCommandLine
        self.fromRules = fromRules
        self.fingerprint = fingerprint
    }

    /// Applies the command line's options to `options` setting by setting, in table order (the
    /// first bad value is the error); returns the rules keys the command line set.
    public static func applyCommandLine(_ given: Given, to options: inout ConversionOptions)
        throws(DataFormatError) -> Set<RuleKey>
    {
        var keys: Set<RuleKey> = []
        for setting in Settings.all { keys.formUnion(try setting.fromCommandLine(given, &options)) }
        return keys
    }

    /// The setting a rules file names by `key`.
    public static func named(_ key: RuleKey) -> Setting? { Settings.all.first { $0.key == key } }
}

/// A command-line option a ``Setting`` declares, as help, the parser and the completion scripts
/// need it (`cafconv` turns it into CommandLineKit's declaration).
public struct SettingOption: Sendable {
    /// What the option takes.
    public enum Value: Sendable {
        /// Nothing: a flag.
        case none
        /// A whole number.
        case wholeNumber
        /// Any text (checked after parsing, by the setting).
        case text
        /// One of these words; help and completion list them.
        case oneOf([String])
        /// Text that `check` finds fine (`nil`) or says what is wrong with; completion offers
        /// `completion`.
        case checked(completion: [String], check: @Sendable (String) -> String?)
    }

    /// The long name without dashes (`channels`).
    public let long: String
    /// The short name without the dash, if any.
    public let short: Character?
    /// The value's name in help (`<quality>`); the long name when `nil`.
    public let valueName: String?
    /// What it takes.
    public let value: Value
    /// One sentence for help.
    public let help: String

    package init(_ long: String, short: Character? = nil, valueName: String? = nil, _ value: Value = .none, help: String) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.value = value
        self.help = help
    }
}

/// A setting a rules file may give, in `[defaults]` or a `[[rule]]`: the key of a ``Setting``
/// (``Settings/all`` holds them, in the order messages list them).
public struct RuleKey: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The key as the file writes it (`strip-metadata`).
    public let rawValue: String

    /// The key spelled `rawValue`, whether or not a setting has it.
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public var description: String { rawValue }

    /// Every key, in table order.
    public static var allCases: [RuleKey] { Settings.all.compactMap(\.key) }

    /// Whether a setting has this key.
    public var isKnown: Bool { Setting.named(self) != nil }

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

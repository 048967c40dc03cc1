/// What the shell completes for an option's value or a positional argument.
public enum Completion: Sendable, Equatable {
    /// Nothing in particular.
    case none
    /// File and folder names.
    case files
    /// Folder names.
    case directories
    /// Folder names, and names of files with one of these extensions (without the dot, matched
    /// in any case): `.fileTypes(["wav", "wave"])`.
    case fileTypes([String])
    /// One of these words.
    case values([String])
}

/// A command-line option as help, the parser, the manual and the completion scripts see it:
/// a flag (`--force`) or an option that takes a value (`--jobs <jobs>`).
public struct OptionSpec: Sendable {
    /// Whether the option takes a value, and what the value is called in help (`<format>`).
    public enum Kind: Sendable, Equatable {
        case flag
        case value(name: String)
    }

    /// The long name without dashes (`data-format`).
    public var long: String
    /// The short name without the dash (`d`), if any.
    public var short: Character?
    /// Flag or value.
    public var kind: Kind
    /// One imperative sentence for help.
    public var help: String
    /// The only values accepted, listed in help; empty when any value the type accepts is fine.
    public var allowedValues: [String]
    /// What the shell completes for the value.
    public var completion: Completion
    /// Left out of help, the manual and completions (tooling options such as
    /// `--generate-manual`).
    public var isHidden: Bool
    /// Why a value is invalid (`expected a whole number`), or `nil` when it is fine.
    let check: @Sendable (String) -> String?

    /// Creates an option; `check` returns why a value is invalid, or `nil`.
    public init(
        long: String, short: Character? = nil, kind: Kind, help: String, allowedValues: [String] = [],
        completion: Completion = .none, isHidden: Bool = false, check: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.long = long
        self.short = short
        self.kind = kind
        self.help = help
        self.allowedValues = allowedValues
        self.completion = completion
        self.isHidden = isHidden
        self.check = check
    }

    /// Whether the option takes a value.
    public var takesValue: Bool { kind != .flag }

    /// The value's name in help (`format`), or `nil` for a flag.
    public var valueName: String? {
        if case .value(let name) = kind { return name }
        return nil
    }

    /// `-d, --data-format <format>`: the left column of help.
    public var label: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--" + long
        if let valueName { text += " <\(valueName)>" }
        return text
    }

    /// The option as the user spelled it, with its value name: `'-j <jobs>'` in error messages.
    func spelled(_ name: String) -> String {
        valueName.map { "\(name) <\($0)>" } ?? name
    }

    /// `[--data-format <format>]`: the option in a usage line.
    var usage: String {
        "[--\(long)" + (valueName.map { " <\($0)>" } ?? "") + "]"
    }

    /// The help sentence followed by the allowed values, if any.
    var fullHelp: String {
        allowedValues.isEmpty ? help : help + " (values: \(allowedValues.joined(separator: ", ")))"
    }

    static let help = OptionSpec(long: "help", short: "h", kind: .flag, help: "Show help information.")
    static let version = OptionSpec(long: "version", kind: .flag, help: "Show the version.")
    static let generateManual = OptionSpec(
        long: "generate-manual", kind: .flag, help: "Print the manual page (mdoc) on stdout.", isHidden: true)
    static let generateCompletionScript = OptionSpec(
        long: "generate-completion-script", kind: .value(name: "shell"),
        help: "Print the completion script for a shell on stdout.", allowedValues: Shell.allCases.map { $0.rawValue },
        isHidden: true)
}

/// An entry of a command's option list: one option (`Option<Value>`, `Flag`) or an
/// ``OptionGroup`` of several.
public protocol OptionListEntry: Sendable {
    /// The options it declares, in the order help lists them.
    var specs: [OptionSpec] { get }
}

/// Anything that declares an option: `Option<Value>` and `Flag`.
public protocol OptionDeclaration: OptionListEntry {
    /// The option's description.
    var spec: OptionSpec { get }
}

extension OptionDeclaration {
    /// The one option.
    public var specs: [OptionSpec] { [spec] }
}

/// Options declared once and shared by several commands (as swift-argument-parser's
/// `@OptionGroup`): declare the group once, put it in each command's option list where its
/// options belong in help, and read its options from any of those commands' invocations.
///
/// ```swift
/// static let json = Flag("json", help: "Print one JSON report on stdout instead of text.")
/// static let quiet = Flag("quiet", short: "q", help: "Print only errors and failures.")
/// static let report = OptionGroup(json, quiet)
/// Command("convert", abstract: "...", options: [force, report, verbose])
/// ```
public struct OptionGroup: OptionListEntry {
    /// The group's options, in order.
    public let specs: [OptionSpec]

    /// A group of options (and groups), in the order help lists them.
    public init(_ entries: any OptionListEntry...) {
        specs = entries.flatMap(\.specs)
    }
}

/// A type an option's value can be: `String`, `Int`, `Double`.
public protocol ArgumentValue: Sendable {
    /// The value, or `nil` when the text is not one.
    init?(argument: String)
    /// What a valid value looks like, for error messages (`a whole number`).
    static var expectation: String { get }
}

extension String: ArgumentValue {
    public init?(argument: String) { self = argument }
    public static var expectation: String { "a string" }
}

extension Int: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a whole number" }
}

extension Double: ArgumentValue {
    public init?(argument: String) { self.init(argument) }
    public static var expectation: String { "a number" }
}

/// An option that takes a value, typed: `Option<Int>("jobs", short: "j", help: ...)`. The parser
/// checks the value when it reads it, so reading it back from an `Invocation` cannot fail.
public struct Option<Value: Sendable>: OptionDeclaration {
    public let spec: OptionSpec
    @usableFromInline let convert: @Sendable (String) -> Value?

    /// An option whose value is a `String`, `Int` or `Double`. The value name defaults to the long
    /// name (`--jobs <jobs>`).
    public init(
        _ long: String, short: Character? = nil, valueName: String? = nil, help: String, completion: Completion = .none
    ) where Value: ArgumentValue {
        convert = { Value(argument: $0) }
        spec = OptionSpec(
            long: long, short: short, kind: .value(name: valueName ?? long), help: help, completion: completion,
            check: { Value(argument: $0) == nil ? "expected \(Value.expectation)" : nil })
    }

    /// An option whose value `parse` makes from the text (a custom type such as a data format).
    /// A value `parse` throws on is a usage error like any other option's: "The value 'X' is
    /// invalid for '-d <format>': " and the error's description.
    public init(
        _ long: String, short: Character? = nil, valueName: String? = nil, help: String, completion: Completion = .none,
        parse: @escaping @Sendable (String) throws -> Value
    ) {
        convert = { try? parse($0) }
        spec = OptionSpec(
            long: long, short: short, kind: .value(name: valueName ?? long), help: help, completion: completion,
            check: { text in
                do {
                    _ = try parse(text)
                    return nil
                } catch {
                    return "\(error)"
                }
            })
    }

    /// An option whose value is one of an enumeration's raw values; help and the completion
    /// scripts list them, and any other value is an error naming them. (Inlinable: made for the
    /// caller's enumeration, not through the runtime's generic lookups at every start.)
    @inlinable
    public init(
        _ long: String, short: Character? = nil, valueName: String? = nil, help: String
    ) where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
        let values = Value.allCases.map { $0.rawValue }
        convert = { Value(rawValue: $0) }
        spec = OptionSpec(
            long: long, short: short, kind: .value(name: valueName ?? long), help: help, allowedValues: values,
            completion: .values(values))
    }
}

/// An option without a value: present or not (`--force`, `-q`).
public struct Flag: OptionDeclaration {
    public let spec: OptionSpec

    /// Creates a flag.
    public init(_ long: String, short: Character? = nil, help: String) {
        spec = OptionSpec(long: long, short: short, kind: .flag, help: help)
    }
}

/// The positional arguments of a command: zero or more words (`<inputs> ...`).
public struct Positionals: Sendable {
    /// The name in help (`inputs`).
    public var name: String
    /// One sentence for help.
    public var help: String
    /// What the shell completes.
    public var completion: Completion

    /// Creates the positional arguments.
    public init(_ name: String, help: String, completion: Completion = .files) {
        self.name = name
        self.help = help
        self.completion = completion
    }
}

/// A command or subcommand: its help texts, options and positional arguments, or its
/// subcommands. Every command also has `-h/--help` and `--version`.
public struct Command: Sendable {
    /// The word that selects it (`convert`); the program's name for the root.
    public var name: String
    /// One sentence: what it does.
    public var abstract: String
    /// Paragraphs separated by blank lines; lines that start with spaces are kept as lines. Made
    /// only when help or the manual shows it (the text may be built from tables).
    public var discussion: String { makeDiscussion() }
    private let makeDiscussion: @Sendable () -> String
    /// The positional arguments, if it takes any.
    public var positionals: Positionals?
    /// Its own options, in the order help lists them.
    public var options: [OptionSpec]
    /// Its subcommands, in the order help lists them.
    public var subcommands: [Subcommand]
    /// Options another program has and this command does not (`-c`, `--channels`): given one,
    /// the parser reports the sentence this returns for its spelling instead of "Unknown option"
    /// (for command lines pasted from the program it stands in for); `nil` for any other.
    public var foreignOption: @Sendable (String) -> String? = { _ in nil }

    /// Creates a command whose subcommands (if any) are built already.
    public init(
        _ name: String, abstract: String, discussion: @autoclosure @escaping @Sendable () -> String = "",
        positionals: Positionals? = nil, options: [any OptionListEntry] = [], subcommands: [Command] = []
    ) {
        self.init(
            name, abstract: abstract, discussion: discussion(), positionals: positionals, options: options,
            subcommands: subcommands.map(Subcommand.init))
    }

    /// Creates a command whose subcommands are built only when one is parsed or documented.
    public init(
        _ name: String, abstract: String, discussion: @autoclosure @escaping @Sendable () -> String = "",
        positionals: Positionals? = nil, options: [any OptionListEntry] = [], subcommands: [Subcommand]
    ) {
        self.name = name
        self.abstract = abstract
        self.makeDiscussion = discussion
        self.positionals = positionals
        self.options = options.flatMap(\.specs)
        self.subcommands = subcommands
    }

    /// The options help lists: its own, then `--version` and `-h, --help`.
    var visibleOptions: [OptionSpec] {
        options.filter { !$0.isHidden } + [.version, .help]
    }

    /// The subcommand with this name, built.
    func subcommand(_ name: String) -> Command? {
        subcommands.first { $0.name == name }?.command
    }
}

/// A subcommand as its parent lists it: the name that selects it and the abstract that the
/// parent's help shows, and how to build its table. Only the subcommand that runs is built (its
/// options, help texts and tables cost a process that runs another one, or just `--version`).
public struct Subcommand: Sendable {
    /// The word that selects it (`convert`).
    public let name: String
    /// One sentence: what it does.
    public let abstract: String
    private let build: @Sendable () -> Command

    /// A subcommand whose table `build` makes, with the name and abstract its parent lists (the
    /// built command has the same).
    public init(_ name: String, abstract: String, build: @escaping @Sendable () -> Command) {
        self.name = name
        self.abstract = abstract
        self.build = build
    }

    /// A subcommand built already.
    public init(_ command: Command) {
        self.init(command.name, abstract: command.abstract) { command }
    }

    /// Its table.
    public var command: Command {
        let command = build()
        assert(command.name == name && command.abstract == abstract, "subcommand '\(name)' builds '\(command.name)'")
        return command
    }
}

/// A shell the completion scripts are written for.
public enum Shell: String, Sendable, CaseIterable {
    case bash, zsh, fish
}

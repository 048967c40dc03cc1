/// A usage mistake: exit status 64, `program: error: message`, then the usage of the command concerned.
public struct CommandLineError: Error, Equatable, Sendable {
    /// One sentence saying what is wrong (and what would be right).
    public var message: String
    /// The subcommand names leading to the command concerned (`["convert"]`; empty for the root).
    public var path: [String]
    /// The help line of the option concerned (`--endian <endian>  Byte order ...`), if any.
    public var optionHelp: String?

    /// An error found after parsing, by a command checking its options (`give at least one file`).
    public init(_ message: String, path: [String] = [], optionHelp: String? = nil) {
        self.message = message
        self.path = path
        self.optionHelp = optionHelp
    }
}

/// A command to run: which one, its options and its positional arguments.
public struct Invocation: Sendable, Equatable {
    /// The subcommand names (`["convert"]`).
    public var path: [String]
    /// The positional arguments, in order.
    public var positionals: [String]
    /// The last value given to each option, by long name.
    public var values: [String: String]
    /// Every value given to each option, in order, by long name (for options that may be
    /// repeated, such as `--include`).
    public var allValues: [String: [String]] = [:]
    /// The long names of the flags given.
    public var flags: Set<String>
    /// The long names of the options and flags the command declares, when the parser made this
    /// invocation (`nil` for one built by hand). Reading an option the command does not declare is
    /// a programming error: it traps in debug builds (in release builds it reads as not given).
    public var declared: Set<String>?

    /// Creates an invocation (tests build them by hand).
    public init(path: [String], positionals: [String] = [], values: [String: String] = [:], flags: Set<String> = []) {
        self.path = path
        self.positionals = positionals
        self.values = values
        self.flags = flags
    }

    // Reading options is inlinable: made for each option's type in the caller, not through the
    // runtime's generic lookups at every start.

    /// The option's value, `nil` when it was not given.
    @inlinable
    public subscript<Value>(option: Option<Value>) -> Value? {
        checkDeclared(option.spec.long)
        return values[option.spec.long].flatMap(option.convert)
    }

    /// Every value given to a repeatable option, in order (empty when it was not given).
    @inlinable
    public func all<Value>(_ option: Option<Value>) -> [Value] {
        checkDeclared(option.spec.long)
        return (allValues[option.spec.long] ?? []).compactMap(option.convert)
    }

    /// Whether the flag was given.
    public subscript(flag: Flag) -> Bool {
        checkDeclared(flag.spec.long)
        return flags.contains(flag.spec.long)
    }

    /// Traps in debug builds when the command does not declare `long`.
    @usableFromInline
    func checkDeclared(_ long: String) {
        assert(
            declared?.contains(long) ?? true,
            "--\(long) is read, but the command '\(path.joined(separator: " "))' does not declare it")
    }

    /// Equal when the same command got the same arguments (`declared` follows from the command).
    public static func == (lhs: Invocation, rhs: Invocation) -> Bool {
        lhs.path == rhs.path && lhs.positionals == rhs.positionals && lhs.values == rhs.values && lhs.flags == rhs.flags
    }
}

/// What the command line asks for.
public enum ParseResult: Sendable, Equatable {
    /// Run a command.
    case run(Invocation)
    /// Print the help of the command at this path (`-h`, `--help`, `help <subcommand>`).
    case help([String])
    /// Print the version.
    case version
    /// Print the manual page.
    case manual
    /// Print a completion script.
    case completionScript(Shell)
}

/// Turns arguments into a `ParseResult`, following the conventions of swift-argument-parser and
/// getopt_long: `--name value`, `--name=value`, `-n value`, `-nvalue`, `-n=value`, flags combined
/// (`-qv`, `-qj2`), `--` ends the options, the last value of a repeated option wins.
/// An option's value may not start with `-` unless it is a negative number (`-j -1`).
struct Parser {
    let root: Command

    func parse(_ arguments: [String]) throws(CommandLineError) -> ParseResult {
        var command = root
        var path: [String] = []
        var index = 0
        // Options of commands with subcommands, up to the subcommand's name.
        while !command.subcommands.isEmpty {
            guard index < arguments.count else {
                // No subcommand is a usage error (exit 64), as any other: a script that forgot one
                // must not pass.
                let names = command.subcommands.map { $0.name }
                throw CommandLineError("Missing subcommand; use one of " + Self.list(names, conjunction: "or"), path: path)
            }
            let word = arguments[index]
            index += 1
            if word == "--" { continue }
            if word.hasPrefix("-") && word != "-" {
                if let result = try parseRootOption(word, arguments, &index, path: path) { return result }
                continue
            }
            if word == "help" { return try helpTarget(Array(arguments[index...]), from: command, path: path) }
            guard let subcommand = command.subcommand(word) else {
                throw unknownSubcommand(word, of: command, path: path)
            }
            command = subcommand
            path.append(word)
        }
        let rest = Array(arguments[index...])
        // -h, --help and --version win over any mistake elsewhere on the line.
        for word in rest.prefix(while: { $0 != "--" }) {
            if word == "-h" || word == "--help" { return .help(path) }
            if word == "--version" { return .version }
        }
        return try parseLeaf(rest, command: command, path: path)
    }

    /// `--help`, `--version` and the hidden tooling options before a subcommand.
    private func parseRootOption(
        _ word: String, _ arguments: [String], _ index: inout Int, path: [String]
    ) throws(CommandLineError) -> ParseResult? {
        let (name, inline) = Self.split(word)
        switch name {
        case "-h", "--help": return .help(path)
        case "--version": return .version
        case "--generate-manual" where path.isEmpty: return .manual
        case "--generate-completion-script" where path.isEmpty:
            let option = OptionSpec.generateCompletionScript
            let value = try value(for: option, spelled: name, inline: inline, arguments, &index, path: path)
            guard let shell = Shell(rawValue: value) else {
                throw invalidValue(value, for: option, spelled: name, path: path)
            }
            return .completionScript(shell)
        default:
            let names = [OptionSpec.version.long, OptionSpec.help.long]
            throw CommandLineError(Self.unknown("option", name, suggestion: Self.closest(name, among: names)), path: path)
        }
    }

    /// `help`, `help convert`: the help of the command named.
    private func helpTarget(_ words: [String], from command: Command, path: [String]) throws(CommandLineError) -> ParseResult {
        var command = command
        var path = path
        for word in words where !(word == "help" && path.isEmpty) {
            guard let subcommand = command.subcommand(word) else {
                if command.subcommands.isEmpty {
                    throw CommandLineError("Unexpected argument '\(word)': '\(command.name)' has no subcommands", path: path)
                }
                throw unknownSubcommand(word, of: command, path: path)
            }
            command = subcommand
            path.append(word)
        }
        return .help(path)
    }

    /// The options and positional arguments of a command without subcommands.
    private func parseLeaf(_ arguments: [String], command: Command, path: [String]) throws(CommandLineError) -> ParseResult {
        var invocation = Invocation(path: path)
        invocation.declared = Set(command.options.map(\.long))
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                invocation.positionals.append(word)
            } else if word == "--" {
                optionsEnded = true
            } else if word.hasPrefix("--") {
                let (name, inline) = Self.split(word)
                if name == "--help" { return .help(path) }
                if name == "--version" { return .version }
                guard let option = command.options.first(where: { "--" + $0.long == name && !$0.isHidden }) else {
                    if let foreign = command.foreignOption(name) { throw CommandLineError(foreign, path: path) }
                    let names = command.visibleOptions.map { $0.long }
                    throw CommandLineError(
                        Self.unknown("option", name, suggestion: Self.closest(name, among: names)), path: path)
                }
                try apply(option, spelled: name, inline: inline, arguments, &index, to: &invocation)
            } else if try parseCluster(word, arguments, &index, command: command, into: &invocation) {
                return .help(path)
            }
        }
        return .run(invocation)
    }

    /// `-q`, `-qv`, `-j2`, `-qj 2`, `-o=path`: short flags, then at most one option that takes the
    /// rest of the word (or the next argument) as its value. Returns whether `-h` was among them.
    private func parseCluster(
        _ word: String, _ arguments: [String], _ index: inout Int, command: Command, into invocation: inout Invocation
    ) throws(CommandLineError) -> Bool {
        var letters = Substring(word.dropFirst())
        while let letter = letters.first {
            letters = letters.dropFirst()
            if letter == OptionSpec.help.short { return true }
            guard let option = command.options.first(where: { $0.short == letter && !$0.isHidden }) else {
                if let foreign = command.foreignOption("-\(letter)") { throw CommandLineError(foreign, path: invocation.path) }
                let context = word.count > 2 ? " in '\(word)'" : ""
                throw CommandLineError("Unknown option '-\(letter)'\(context)", path: invocation.path)
            }
            if option.takesValue {
                let inline = letters.isEmpty ? nil : String(letters.first == "=" ? letters.dropFirst() : letters)
                try apply(option, spelled: "-\(letter)", inline: inline, arguments, &index, to: &invocation)
                return false
            }
            invocation.flags.insert(option.long)
        }
        return false
    }

    /// Records a flag, or reads and checks an option's value.
    private func apply(
        _ option: OptionSpec, spelled: String, inline: String?, _ arguments: [String], _ index: inout Int,
        to invocation: inout Invocation
    ) throws(CommandLineError) {
        guard option.takesValue else {
            if let inline {
                throw CommandLineError(
                    "The option '\(spelled)' does not take any value, but '\(inline)' was specified.",
                    path: invocation.path)
            }
            invocation.flags.insert(option.long)
            return
        }
        let value = try value(for: option, spelled: spelled, inline: inline, arguments, &index, path: invocation.path)
        if !option.allowedValues.isEmpty && !option.allowedValues.contains(value) {
            throw invalidValue(value, for: option, spelled: spelled, path: invocation.path)
        }
        if let reason = option.check(value) {
            throw CommandLineError(
                "The value '\(value)' is invalid for '\(option.spelled(spelled))': \(reason)", path: invocation.path,
                optionHelp: helpLine(option, spelled))
        }
        invocation.values[option.long] = value
        invocation.allValues[option.long, default: []].append(value)
    }

    /// The value given inline, or the next argument when it can be a value.
    private func value(
        for option: OptionSpec, spelled: String, inline: String?, _ arguments: [String], _ index: inout Int, path: [String]
    ) throws(CommandLineError) -> String {
        if let inline { return inline }
        guard index < arguments.count, Self.canBeValue(arguments[index]) else {
            throw CommandLineError(
                "Missing value for '\(option.spelled(spelled))'", path: path, optionHelp: helpLine(option, spelled))
        }
        index += 1
        return arguments[index - 1]
    }

    private func invalidValue(_ value: String, for option: OptionSpec, spelled: String, path: [String]) -> CommandLineError {
        CommandLineError(
            "The value '\(value)' is invalid for '\(option.spelled(spelled))'. Please provide one of "
                + Self.list(option.allowedValues.map { "'\($0)'" }, conjunction: "or") + ".",
            path: path, optionHelp: helpLine(option, spelled))
    }

    private func unknownSubcommand(_ word: String, of command: Command, path: [String]) -> CommandLineError {
        let names = command.subcommands.map { $0.name }
        if let suggestion = Self.closest(word, among: names) {
            return CommandLineError("Unknown subcommand '\(word)'. Did you mean '\(suggestion)'?", path: path)
        }
        return CommandLineError(
            "Unknown subcommand '\(word)'; use one of " + Self.list(names, conjunction: "or"), path: path)
    }

    private func helpLine(_ option: OptionSpec, _ spelled: String) -> String {
        "\(option.spelled(spelled))  \(option.help)"
    }

    /// `--name=value` as (`--name`, `value`); (`--name`, nil) without `=`.
    static func split(_ word: String) -> (String, String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// Whether an argument after an option can be its value: not an option, but `-`, negative
    /// numbers (`-1`, `-0.5`) and ranges of numbers starting negative (`-18..-14`) can.
    static func canBeValue(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word != "-" else { return true }
        guard let first = word.dropFirst().first, first.isASCII, first.isNumber || first == "." else { return false }
        let parts = word.split(separator: "..", omittingEmptySubsequences: false)
        return Double(word) != nil || (parts.count == 2 && parts.allSatisfy { Double($0) != nil })
    }

    static func unknown(_ what: String, _ name: String, suggestion: String?) -> String {
        let dashes = name.hasPrefix("--") ? "--" : ""
        return "Unknown \(what) '\(name)'" + (suggestion.map { ". Did you mean '\(dashes)\($0)'?" } ?? "")
    }

    /// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
    static func list(_ items: [String], conjunction: String) -> String {
        guard let last = items.last else { return "" }
        if items.count == 1 { return last }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    /// The candidate closest to `word` (dashes ignored) when it is a plausible typo: at most two
    /// edits (a swap of neighbours counts as one), and fewer than half the word's letters.
    static func closest(_ word: String, among candidates: [String]) -> String? {
        let typed = Array(word.drop(while: { $0 == "-" }))
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate))
            if distance <= 2 && distance * 2 < max(typed.count, candidate.count) && distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Levenshtein distance with transpositions (optimal string alignment).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [Int](repeating: 0, count: b.count + 1)
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            previous2 = previous
            previous = current
        }
        return previous[b.count]
    }
}

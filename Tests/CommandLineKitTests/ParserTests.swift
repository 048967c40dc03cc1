import Testing

@testable import CommandLineKit

/// A small tool shaped like cafconv: two subcommands, every kind of option.
enum Tool {
    enum Order: String, CaseIterable, Sendable { case little, big, native }

    static let output = Option<String>("output", short: "o", help: "Output file.", completion: .files)
    static let order = Option<Order>("order", help: "Byte order.")
    static let format = Option<String>("data-format", short: "d", valueName: "format", help: "Data format.")
    static let jobs = Option<Int>("jobs", short: "j", help: "Parallel jobs.")
    static let rate = Option<Double>("rate", help: "Sample rate.")
    static let force = Flag("force", help: "Do it anyway.")
    static let dryRun = Flag("dry-run", help: "Write nothing.")
    static let quiet = Flag("quiet", short: "q", help: "Print only errors.")
    static let verbose = Flag("verbose", short: "v", help: "Print more.")
    static let brief = Flag("brief", help: "One line each.")

    static let convert = Command(
        "convert", abstract: "Convert files.", discussion: "Long text.\n\nExit status: 0 fine.",
        positionals: Positionals("inputs", help: "Files to convert."),
        options: [output, order, format, jobs, rate, force, dryRun, quiet, verbose])
    static let info = Command(
        "info", abstract: "Describe files.", positionals: Positionals("files", help: "Files."), options: [brief])
    static let program = Program(
        root: Command("tool", abstract: "Convert and describe.", subcommands: [convert, info]), version: "1.2.3",
        manualDate: "January 1, 2026")

    /// Parses arguments that must run a command.
    static func invocation(_ arguments: [String]) throws -> Invocation {
        guard case .run(let invocation) = try program.parse(arguments) else {
            throw CommandLineError("not a run: \(arguments)")
        }
        return invocation
    }

    /// The message of the error that parsing throws, or `nil`.
    static func error(_ arguments: [String]) -> CommandLineError? {
        do {
            _ = try program.parse(arguments)
            return nil
        } catch {
            return error
        }
    }
}

@Suite("Parser: option forms")
struct OptionFormTests {
    @Test(
        "a value in every form",
        arguments: [
            ["--output", "x.caf"], ["--output=x.caf"], ["-o", "x.caf"], ["-ox.caf"], ["-o=x.caf"],
            ["-o", "a.caf", "-o", "x.caf"],
        ])
    func valueForms(words: [String]) throws {
        let invocation = try Tool.invocation(["convert", "in.wav"] + words)
        #expect(invocation[Tool.output] == "x.caf")
        #expect(invocation.positionals == ["in.wav"])
    }

    @Test("integers: -j2, -j 2, --jobs=2, --jobs 2", arguments: [["-j2"], ["-j", "2"], ["--jobs=2"], ["--jobs", "2"]])
    func integerForms(words: [String]) throws {
        #expect(try Tool.invocation(["convert"] + words)[Tool.jobs] == 2)
    }

    @Test("flags combine, and the last letter may take a value")
    func clusters() throws {
        let flags = try Tool.invocation(["convert", "-qv", "a"])
        #expect(flags[Tool.quiet] && flags[Tool.verbose] && !flags[Tool.force])
        let withValue = try Tool.invocation(["convert", "-qj2", "-vo", "out", "a"])
        #expect(withValue[Tool.quiet] && withValue[Tool.verbose])
        #expect(withValue[Tool.jobs] == 2 && withValue[Tool.output] == "out")
        #expect(withValue.positionals == ["a"])
    }

    @Test("options and positional arguments mix in any order; -- ends the options; - is a positional")
    func positionals() throws {
        let invocation = try Tool.invocation(["convert", "a", "--force", "b", "-", "--", "--dry-run", "-q"])
        #expect(invocation.positionals == ["a", "b", "-", "--dry-run", "-q"])
        #expect(invocation[Tool.force] && !invocation[Tool.dryRun] && !invocation[Tool.quiet])
    }

    @Test("enumerations, doubles and negative numbers as values")
    func typedValues() throws {
        let invocation = try Tool.invocation(["convert", "--order", "big", "--rate", "44100.5", "-j", "-3"])
        #expect(invocation[Tool.order] == .big)
        #expect(invocation[Tool.rate] == 44100.5)
        #expect(invocation[Tool.jobs] == -3)
        #expect(try Tool.invocation(["convert", "--rate=-0.5"])[Tool.rate] == -0.5)
        #expect(try Tool.invocation(["convert"])[Tool.rate] == nil)
    }

    @Test("a range of numbers starting negative is a value (verify --loudness -18..-14), a word after a dash is not")
    func negativeRanges() {
        #expect(Parser.canBeValue("-18..-14") && Parser.canBeValue("-23.5..-22") && Parser.canBeValue("-3"))
        #expect(!Parser.canBeValue("-18..x") && !Parser.canBeValue("-q") && !Parser.canBeValue("-1..-2..-3"))
    }

    @Test("help and version win wherever they are")
    func helpAndVersion() throws {
        #expect(try Tool.program.parse(["-h"]) == .help([]))
        #expect(try Tool.program.parse(["--help", "convert"]) == .help([]))
        #expect(try Tool.program.parse(["convert", "--help"]) == .help(["convert"]))
        #expect(try Tool.program.parse(["convert", "--nope", "-h"]) == .help(["convert"]))
        #expect(try Tool.program.parse(["convert", "-qh"]) == .help(["convert"]))
        #expect(try Tool.program.parse(["help"]) == .help([]))
        #expect(try Tool.program.parse(["help", "info"]) == .help(["info"]))
        #expect(try Tool.program.parse(["--version"]) == .version)
        #expect(try Tool.program.parse(["info", "x", "--version"]) == .version)
        #expect(
            try Tool.program.parse(["convert", "--", "--help"]) == .run(Invocation(path: ["convert"], positionals: ["--help"])))
    }

    @Test("hidden tooling options of the root")
    func tooling() throws {
        #expect(try Tool.program.parse(["--generate-manual"]) == .manual)
        #expect(try Tool.program.parse(["--generate-completion-script", "zsh"]) == .completionScript(.zsh))
        #expect(try Tool.program.parse(["--generate-completion-script=fish"]) == .completionScript(.fish))
        #expect(Tool.error(["--generate-completion-script", "tcsh"])?.message.contains("'bash', 'zsh' or 'fish'") == true)
        #expect(Tool.error(["convert", "--generate-manual"])?.message == "Unknown option '--generate-manual'")
    }
}

@Suite("Parser: errors")
struct ParserErrorTests {
    @Test(
        "each mistake has its message",
        arguments: [
            (["convert", "--nope"], "Unknown option '--nope'"),
            (["convert", "--dryrun"], "Unknown option '--dryrun'. Did you mean '--dry-run'?"),
            (["convert", "--ouptut", "x"], "Unknown option '--ouptut'. Did you mean '--output'?"),
            (["convert", "-x"], "Unknown option '-x'"),
            (["convert", "-qx"], "Unknown option '-x' in '-qx'"),
            (["--nope"], "Unknown option '--nope'"),
            (["--verison"], "Unknown option '--verison'. Did you mean '--version'?"),
            (["convert", "--output"], "Missing value for '--output <output>'"),
            (["convert", "-o"], "Missing value for '-o <output>'"),
            (["convert", "-o", "--force"], "Missing value for '-o <output>'"),
            (["convert", "-o", "--"], "Missing value for '-o <output>'"),
            (["convert", "-j", "abc"], "The value 'abc' is invalid for '-j <jobs>': expected a whole number"),
            (["convert", "--jobs=1.5"], "The value '1.5' is invalid for '--jobs <jobs>': expected a whole number"),
            (["convert", "--rate", "fast"], "The value 'fast' is invalid for '--rate <rate>': expected a number"),
            (
                ["convert", "--order", "middle"],
                "The value 'middle' is invalid for '--order <order>'. Please provide one of 'little', 'big' or 'native'."
            ),
            (["convert", "--force=yes"], "The option '--force' does not take any value, but 'yes' was specified."),
            (["conver"], "Unknown subcommand 'conver'. Did you mean 'convert'?"),
            (["nope"], "Unknown subcommand 'nope'; use one of convert or info"),
            (["help", "nope"], "Unknown subcommand 'nope'; use one of convert or info"),
            (["help", "info", "x"], "Unexpected argument 'x': 'info' has no subcommands"),
        ])
    func message(arguments: [String], message: String) {
        #expect(Tool.error(arguments)?.message == message)
    }

    @Test("errors about an option carry its help line and the command's path")
    func context() throws {
        let error = try #require(Tool.error(["convert", "--order", "up"]))
        #expect(error.path == ["convert"])
        #expect(error.optionHelp == "--order <order>  Byte order.")
        #expect(Tool.error(["nope"])?.path == [])
    }

    @Test("typo suggestions: close names only")
    func suggestions() {
        #expect(Parser.closest("--endain", among: ["endian", "output"]) == "endian")
        #expect(Parser.closest("nope", among: ["jobs", "json"]) == nil)
        #expect(Parser.closest("x", among: ["q", "v"]) == nil)
        #expect(Parser.editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(Parser.editDistance(Array("ab"), Array("ba")) == 1)
        #expect(Parser.editDistance([], Array("abc")) == 3)
    }
}

@Suite("Program: what it prints and returns")
struct ProgramTests {
    /// Runs the tool, collecting stdout and stderr.
    func run(
        _ arguments: [String], _ body: (Invocation) throws(CommandLineError) -> Int32 = { _ in 0 }
    ) -> (status: Int32, output: String, error: String) {
        var output: [String] = []
        var error: [String] = []
        let status = Tool.program.run(arguments, output: { output.append($0) }, error: { error.append($0) }, body)
        return (status, output.joined(separator: "\n"), error.joined(separator: "\n"))
    }

    @Test("no subcommand is a usage error, not help: a script that forgot one must not pass")
    func missingSubcommand() {
        for arguments in [[], ["--"]] {
            #expect(Tool.error(arguments) == CommandLineError("Missing subcommand; use one of convert or info"), "\(arguments)")
        }
        let result = run([])
        #expect(result.status == 64 && result.output.isEmpty)
        #expect(result.error.hasPrefix("tool: error: Missing subcommand; use one of convert or info\nUsage: tool <subcommand>"))
    }

    @Test("--version prints the version and exits 0")
    func version() {
        let result = run(["--version"]) { _ in 99 }
        #expect(result.status == 0 && result.output == "1.2.3" && result.error.isEmpty)
    }

    @Test("a run returns the command's status")
    func body() {
        #expect(run(["info", "x"]) { $0.positionals == ["x"] ? 7 : 0 }.status == 7)
    }

    @Test("a usage error: the program's error prefix, Help, Usage and where to read more on stderr; exit 64")
    func usageError() {
        let result = run(["convert", "--order", "up", "a"])
        #expect(result.status == 64 && result.output.isEmpty)
        let lines = result.error.split(separator: "\n")
        #expect(
            lines.first
                == "tool: error: The value 'up' is invalid for '--order <order>'. Please provide one of 'little', 'big' or 'native'."
        )
        #expect(lines.dropFirst().first == "Help:  --order <order>  Byte order.")
        #expect(lines.dropFirst(2).first?.hasPrefix("Usage: tool convert [<inputs> ...] [--output <output>]") == true)
        #expect(lines.last == "  See 'tool convert --help' for more information.")
    }

    @Test("a command's own check fails like a parse error, with its usage")
    func validation() {
        let result = run(["convert"]) { _ throws(CommandLineError) in throw CommandLineError("give at least one file") }
        #expect(result.status == 64)
        #expect(result.error.hasPrefix("tool: error: give at least one file\nUsage: tool convert "))
        #expect(result.error.hasSuffix("See 'tool convert --help' for more information."))
    }

    @Test("help goes to stdout with exit 0, never running the command")
    func help() {
        let result = run(["convert", "-h"]) { _ in 5 }
        #expect(result.status == 0 && result.error.isEmpty)
        #expect(result.output.hasPrefix("OVERVIEW: Convert files.\n\nLong text.\n\nExit status: 0 fine.\n\nUSAGE: tool convert"))
    }
}

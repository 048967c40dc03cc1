#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A command-line program: its command tree and version, and what to do with the arguments.
public struct Program: Sendable {
    /// The exit status of a usage error (`EX_USAGE`).
    public static let usageErrorStatus: Int32 = 64

    /// The root command; its name is the program's name.
    public var root: Command
    /// What `--version` prints.
    public var version: String
    /// The date the manual page shows (`January 1, 2026`).
    public var manualDate: String

    /// Creates a program.
    public init(root: Command, version: String, manualDate: String) {
        self.root = root
        self.version = version
        self.manualDate = manualDate
    }

    /// What the arguments (without the program's name) ask for.
    public func parse(_ arguments: [String]) throws(CommandLineError) -> ParseResult {
        try Parser(root: root).parse(arguments)
    }

    /// The command at a path of subcommand names (the root for an empty path).
    public func command(at path: [String]) -> Command {
        var command = root
        for name in path {
            guard let subcommand = command.subcommand(name) else { break }
            command = subcommand
        }
        return command
    }

    /// The help of the command at `path`, as `-h` prints it.
    public func help(for path: [String]) -> String {
        HelpFormatter(program: root.name).help(command(at: path), path: path)
    }

    /// `Usage: cafconv convert [<inputs> ...] ...`, wrapped to 80 columns.
    public func usage(for path: [String]) -> String {
        HelpFormatter(program: root.name).usage(command(at: path), path: path, prefix: "Usage: ")
    }

    /// What a usage error prints on stderr: `Error: ...`, the option's help, the usage and where to
    /// read more.
    public func errorText(_ error: CommandLineError) -> String {
        var lines = ["Error: " + error.message]
        if let optionHelp = error.optionHelp { lines.append("Help:  " + optionHelp) }
        lines.append(usage(for: error.path))
        let command = ([root.name] + error.path).joined(separator: " ")
        lines.append("  See '\(command) --help' for more information.")
        return lines.joined(separator: "\n")
    }

    /// Runs the program: prints help, the version, the manual or a completion script when asked,
    /// or hands the invocation to `body`. Usage errors, from parsing or thrown by `body` (which
    /// checks the options before doing anything), go to stderr with exit status 64.
    public func run(
        _ arguments: [String], output: (String) -> Void = Console.output, error: (String) -> Void = { Console.error($0) },
        _ body: (Invocation) throws(CommandLineError) -> Int32
    ) -> Int32 {
        do throws(CommandLineError) {
            switch try parse(arguments) {
            case .run(let invocation):
                do throws(CommandLineError) {
                    return try body(invocation)
                } catch var failure {
                    failure.path = invocation.path
                    throw failure
                }
            case .help(let path): output(help(for: path))
            case .version: output(version)
            case .manual: output(Manual(program: self).text)
            case .completionScript(let shell): output(CompletionScript(program: self).text(for: shell))
            }
            return 0
        } catch let failure {
            error(errorText(failure))
            return Self.usageErrorStatus
        }
    }
}

/// Lines to stdout and stderr without Foundation.
public enum Console {
    /// Prints a line on stdout (buffered; flushed at exit).
    public static func output(_ line: String) {
        print(line)
    }

    /// Writes a line on stderr at once, whole; `terminator: ""` for a progress line.
    public static func error(_ line: String, terminator: String = "\n") {
        let text = line + terminator
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let wrote = write(2, raw.baseAddress.map { $0 + done }, raw.count - done)
                if wrote <= 0 { return }
                done += wrote
            }
        }
    }
}

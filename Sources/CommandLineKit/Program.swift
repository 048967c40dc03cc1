import Synchronization
import SystemLayer

/// A command-line program: its command tree and version, and what to do with the arguments.
public struct Program: Sendable {
    /// The exit status of a usage error (`EX_USAGE`).
    public static let usageErrorStatus: Int32 = 64

    /// A command line and what it does, for the manual's EXAMPLES section.
    public struct Example: Sendable, Equatable {
        /// The command line, as typed (`cafconv convert Sounds -o Build/Sounds`).
        public var command: String
        /// One sentence: what it does.
        public var explanation: String

        /// Creates an example.
        public init(_ command: String, _ explanation: String) {
            self.command = command
            self.explanation = explanation
        }
    }

    /// A name and what it means, for the manual's FILES and ENVIRONMENT sections.
    public struct Entry: Sendable, Equatable {
        /// A file's name or path (`.cafconv-manifest`), or a variable's name (`NO_COLOR`).
        public var name: String
        /// What it is for.
        public var explanation: String

        /// Creates an entry.
        public init(_ name: String, _ explanation: String) {
            self.name = name
            self.explanation = explanation
        }
    }

    /// The root command; its name is the program's name.
    public var root: Command
    /// What `--version` prints.
    public var version: String
    /// The date the manual page shows (`January 1, 2026`); `nil` takes it from
    /// `SOURCE_DATE_EPOCH` when set (reproducible builds), else from the executable's
    /// modification time (when it was built).
    public var manualDate: String?
    /// The manual's FILES section: files the program reads or writes.
    public var files: [Entry]
    /// The manual's ENVIRONMENT section: variables the program reads.
    public var environment: [Entry]
    /// The manual's EXAMPLES section.
    public var examples: [Example]

    /// Creates a program.
    public init(
        root: Command, version: String, manualDate: String? = nil, files: [Entry] = [], environment: [Entry] = [],
        examples: [Example] = []
    ) {
        self.root = root
        self.version = version
        self.manualDate = manualDate
        self.files = files
        self.environment = environment
        self.examples = examples
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

    /// What a usage error prints on stderr: `cafconv: error: ...` (the prefix of every error the
    /// program prints), the option's help, the usage and where to read more.
    public func errorText(_ error: CommandLineError) -> String {
        var lines = ["\(root.name): error: " + error.message]
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
        _ arguments: [String], output: (String) -> Void = { Console.output($0) }, error: (String) -> Void = { Console.error($0) },
        _ body: (Invocation) throws(CommandLineError) -> Int32
    ) -> Int32 {
        defer { Console.flush() }
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

/// Lines to stdout and stderr without Foundation, each written whole and in order.
///
/// stdout is buffered in whole lines (flushed when 64 KiB have gathered, before anything is
/// written to stderr, and by ``flush()``), so a log that captures both streams (`> log 2>&1`,
/// `2>&1 | cat`) never has a line cut in two, and every line appears where it was written.
/// stderr is written at once. One lock orders both, so threads cannot splice lines either.
public enum Console {
    private static let pending = Mutex<[UInt8]>([])
    private static let flushThreshold = 1 << 16
    private static let diverted = Atomic<Bool>(false)

    /// From now on, lines meant for stdout go to stderr: stdout carries data (a CAF written to
    /// `-o -`).
    public static func divertOutput() { diverted.store(true, ordering: .relaxed) }

    /// Adds a line to stdout (`terminator: ""` for text without a newline).
    public static func output(_ line: String, terminator: String = "\n") {
        if diverted.load(ordering: .relaxed) { return error(line, terminator: terminator) }
        pending.withLock { buffer in
            buffer.append(contentsOf: line.utf8)
            buffer.append(contentsOf: terminator.utf8)
            if buffer.count >= flushThreshold { drain(&buffer) }
        }
    }

    /// Writes a line on stderr at once, whole, after whatever stdout holds; `terminator: ""` for a
    /// progress line.
    public static func error(_ line: String, terminator: String = "\n") {
        pending.withLock { buffer in
            drain(&buffer)
            writeAll(2, Array((line + terminator).utf8))
        }
    }

    /// Writes what stdout holds. Call before the process exits.
    public static func flush() {
        pending.withLock { drain(&$0) }
    }

    private static func drain(_ buffer: inout [UInt8]) {
        guard !buffer.isEmpty else { return }
        writeAll(1, buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes every byte (a pipe may take fewer at a time), retrying when a signal interrupts.
    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var done = 0
            while done < raw.count {
                let wrote = Syscall.retryOnInterrupt { write(descriptor, base + done, raw.count - done) }
                if wrote <= 0 { return }
                done += wrote
            }
        }
    }
}

import Synchronization
import Testing

@testable import CommandLineKit

/// What a program's tables did, in order: `build NAME` when a subcommand's table is built,
/// `discuss NAME` when its discussion is made.
final class TableLog: Sendable {
    private let events = Mutex<[String]>([])

    var all: [String] { events.withLock { $0 } }

    func discussion(of name: String) -> String {
        events.withLock { $0.append("discuss \(name)") }
        return "All about \(name)."
    }

    /// A program with two subcommands whose tables and discussions are logged.
    func program() -> Program {
        func entry(_ name: String) -> Subcommand {
            Subcommand(name, abstract: "Does \(name).") {
                self.events.withLock { $0.append("build \(name)") }
                return Command(
                    name, abstract: "Does \(name).", discussion: self.discussion(of: name),
                    positionals: Positionals("files", help: "Files."), options: [Flag("force", help: "Do it anyway.")])
            }
        }
        return Program(
            root: Command("tool", abstract: "Convert and describe.", subcommands: [entry("convert"), entry("info")]),
            version: "1.2.3", manualDate: "January 1, 2026")
    }
}

/// A process runs one subcommand: the others' tables (options, help texts) must cost it nothing.
@Suite("Subcommands: only the table of the one that runs is built")
struct LazySubcommandTests {
    @Test("running a subcommand builds its table only, and not its discussion")
    func runBuildsOne() throws {
        let log = TableLog()
        let result = try log.program().parse(["info", "--force", "a.wav"])
        guard case .run(let invocation) = result else {
            Issue.record("not a run: \(result)")
            return
        }
        #expect(invocation.path == ["info"] && invocation.positionals == ["a.wav"] && invocation.flags == ["force"])
        #expect(log.all == ["build info"])
    }

    @Test("--version, the root's help and a wrong subcommand build no table")
    func rootBuildsNone() throws {
        let log = TableLog()
        let program = log.program()
        #expect(try program.parse(["--version"]) == .version)
        let help = program.help(for: [])
        #expect(help.contains("  convert                 Does convert.") && help.contains("  info                    Does info."))
        #expect(throws: CommandLineError.self) { try program.parse(["infoo", "a.wav"]) }
        #expect(log.all.isEmpty)
    }

    @Test("a subcommand's help makes its discussion; the manual builds every table")
    func documentationBuildsWhatItShows() {
        let log = TableLog()
        let program = log.program()
        #expect(program.help(for: ["convert"]).contains("All about convert."))
        #expect(log.all == ["build convert", "discuss convert"])
        let manual = Manual(program: program).text
        #expect(manual.contains("All about info."))
        #expect(log.all.contains("build info") && log.all.contains("discuss info"))
    }
}

import Testing

@testable import CommandLineKit

/// Options declared once in a group and shared by several commands.
@Suite("Parser: option groups shared by commands")
struct OptionGroupTests {
    static let json = Flag("json", help: "Print JSON.")
    static let quiet = Flag("quiet", short: "q", help: "Print only errors and failures.")
    static let level = Option<Int>("level", short: "l", help: "A level.")
    static let report = OptionGroup(json, quiet)
    static let force = Flag("force", help: "Force.")
    static let strict = Flag("strict", help: "Strict.")
    static let program = Program(
        root: Command(
            "tool", abstract: "A tool.",
            subcommands: [
                Command("make", abstract: "Make.", options: [force, report, OptionGroup(level)]),
                Command("check", abstract: "Check.", options: [report, strict]),
            ]), version: "1", manualDate: "January 1, 2026")

    @Test("each command lists the group's options where the group stands, in order")
    func listedInPlace() {
        #expect(Self.program.command(at: ["make"]).options.map(\.long) == ["force", "json", "quiet", "level"])
        #expect(Self.program.command(at: ["check"]).options.map(\.long) == ["json", "quiet", "strict"])
        #expect(OptionGroup(Self.report, Self.strict).specs.map(\.long) == ["json", "quiet", "strict"])
    }

    @Test("the group's options parse and read back in every command that includes it")
    func parsedInEach() throws {
        for (arguments, path) in [(["make", "-q", "--json", "-l", "3"], "make"), (["check", "-q", "--json"], "check")] {
            guard case .run(let invocation) = try Self.program.parse(arguments) else {
                Issue.record("not a run: \(arguments)")
                continue
            }
            #expect(invocation.path == [path])
            #expect(invocation[Self.json] && invocation[Self.quiet], "\(arguments)")
        }
        guard case .run(let make) = try Self.program.parse(["make", "-l", "3"]) else { return }
        #expect(make[Self.level] == 3 && !make[Self.quiet])
    }

    @Test("the help of each command shows the same line for a shared option")
    func sameHelp() {
        for path in [["make"], ["check"]] {
            let help = Self.program.help(for: path)
            #expect(help.contains("-q, --quiet"), "\(help)")
            #expect(help.contains("Print only errors and failures."), "\(help)")
        }
    }
}

import Testing

@testable import CommandLineKit

/// A value type of the tool's own, parsed by a function (like cafconv's `-d` data format).
struct Bits: Equatable, Sendable {
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    var count: Int

    init(parsing text: String) throws {
        guard let count = Int(text), [8, 16, 24, 32].contains(count) else {
            throw Invalid(description: "'\(text)' is not a bit depth; use 8, 16, 24 or 32")
        }
        self.count = count
    }
}

@Suite("Parser: options of a custom type")
struct TypedOptionTests {
    static let bits = Option<Bits>("bits", short: "b", help: "Bit depth.", parse: { try Bits(parsing: $0) })
    static let program = Program(
        root: Command(
            "tool", abstract: "A tool.",
            subcommands: [
                Command("run", abstract: "Run.", options: [bits])
            ]), version: "1", manualDate: "January 1, 2026")

    @Test("a valid value reads back as the custom type")
    func validValue() throws {
        guard case .run(let invocation) = try Self.program.parse(["run", "-b", "24"]) else {
            Issue.record("not a run")
            return
        }
        #expect(invocation[Self.bits] == (try Bits(parsing: "24")))
    }

    @Test("an invalid value is a usage error like any other option's, with the parser's reason")
    func invalidValue() {
        #expect {
            _ = try Self.program.parse(["run", "--bits", "12"])
        } throws: { error in
            let message = (error as? CommandLineError)?.message ?? ""
            return message.hasPrefix("The value '12' is invalid for '--bits <bits>': ")
                && message.hasSuffix("'12' is not a bit depth; use 8, 16, 24 or 32")
        }
    }
}

@Suite("Parser: reading an option the command does not declare")
struct UndeclaredOptionTests {
    static let declared = Flag("json", help: "JSON.")
    static let undeclared = Flag("quiet", help: "Quiet.")
    static let program = Program(
        root: Command(
            "tool", abstract: "A tool.",
            subcommands: [
                Command("run", abstract: "Run.", options: [declared])
            ]), version: "1", manualDate: "January 1, 2026")

    @Test("a declared option reads normally; a hand-built invocation reads anything")
    func declaredReads() throws {
        guard case .run(let invocation) = try Self.program.parse(["run", "--json"]) else {
            Issue.record("not a run")
            return
        }
        #expect(invocation[Self.declared])
        #expect(invocation.declared == ["json"])
        #expect(Invocation(path: ["run"])[Self.undeclared] == false)
    }

    #if DEBUG
        @Test("reading an undeclared option traps in a debug build")
        func undeclaredTraps() async {
            await #expect(processExitsWith: .failure) {
                guard case .run(let invocation) = try? UndeclaredOptionTests.program.parse(["run"]) else { return }
                _ = invocation[UndeclaredOptionTests.undeclared]
            }
        }
    #endif
}

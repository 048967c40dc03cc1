import Testing

@testable import CommandLineKit

@Suite("Help, manual and completion scripts")
struct HelpTests {
    @Test("a subcommand's help: sections, every option with its value name, allowed values, 79 columns")
    func subcommandHelp() {
        let help = Tool.program.help(for: ["convert"])
        for section in ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:"] {
            #expect(help.contains("\n" + section) || help.hasPrefix(section))
        }
        #expect(!help.contains("SUBCOMMANDS:"))
        for label in [
            "<inputs>", "-o, --output <output>", "--order <order>", "-d, --data-format <format>", "-j, --jobs <jobs>",
            "--rate <rate>", "--force", "--dry-run", "-q, --quiet", "-v, --verbose", "--version", "-h, --help",
        ] {
            #expect(help.contains("\n  " + label), "\(label)")
        }
        #expect(help.contains("(values: little, big, native)"))
        #expect(help.split(separator: "\n").allSatisfy { $0.count <= 79 })
        #expect(!help.contains("generate"))
    }

    @Test("the root's help lists the subcommands")
    func rootHelp() {
        let help = Tool.program.help(for: [])
        #expect(help.contains("USAGE: tool <subcommand>"))
        #expect(
            help.contains("SUBCOMMANDS:\n  convert                 Convert files.\n  info                    Describe files."))
        #expect(help.hasSuffix("  See 'tool help <subcommand>' for detailed help."))
    }

    @Test("help rows: the help column, long labels on their own line, wrapping")
    func rows() {
        let formatter = HelpFormatter(program: "tool")
        #expect(formatter.row("--a", "Short.") == "  --a" + String(repeating: " ", count: 21) + "Short.")
        let long = formatter.row("-d, --data-format <format>", "Help.")
        #expect(long == "  -d, --data-format <format>\n" + String(repeating: " ", count: 26) + "Help.")
        let wrapped = formatter.row("--x", String(repeating: "word ", count: 20))
        #expect(wrapped.split(separator: "\n").count == 2)
        #expect(wrapped.split(separator: "\n").allSatisfy { $0.count <= 79 })
    }

    @Test("usage lines wrap under the first word after the command")
    func usage() {
        let usage = Tool.program.usage(for: ["convert"])
        let lines = usage.split(separator: "\n")
        #expect(lines.count > 1)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: "Usage: tool convert ".count) + "[") })
        #expect(lines.allSatisfy { $0.count <= 79 })
    }

    @Test("discussion: paragraphs kept, indented lines kept with a hanging indent")
    func discussion() {
        let text = Text.wrapParagraphs(
            "First paragraph.\n\nList:\n  item: " + String(repeating: "long ", count: 20) + "\nEnd.", width: 40)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "First paragraph." && lines[1].isEmpty && lines[2] == "List:")
        #expect(lines[3].hasPrefix("  item: long"))
        #expect(lines[4].hasPrefix("    long"))
        #expect(lines.last == "End.")
        #expect(lines.allSatisfy { $0.count <= 40 })
    }

    @Test("the manual names every command and option, escapes roff, and ends its lists")
    func manual() {
        let program = Program(
            root: Command(
                "tool", abstract: "Convert and describe.", discussion: ".dot \\ µ",
                subcommands: [Tool.convert, Tool.info]),
            version: "1", manualDate: "January 1, 2026")
        let text = Manual(program: program).text
        #expect(text.contains(".Dd January 1, 2026\n.Dt TOOL 1\n.Os tool 1\n.Sh NAME\n.Nm tool\n.Nd convert and describe\n"))
        #expect(text.contains("\\&.dot \\e \\[u00B5]"))
        for item in [
            ".Ss tool convert", ".Ss tool info", ".It Ar inputs ...", ".It Fl o , Fl -output Ar output",
            ".It Fl -order Ar order", ".It Fl -dry-run", ".It Fl h , Fl -help", ".It Fl -version",
        ] {
            #expect(text.contains("\n" + item + "\n"), "\(item)")
        }
        let opened = text.split(separator: "\n").filter { $0.hasPrefix(".Bl") }.count
        let closed = text.split(separator: "\n").filter { $0 == ".El" }.count
        #expect(opened == closed)
        #expect(!text.contains("Fl -generate"))
    }

    @Test("macro arguments protect words mdoc would take for macros or delimiters")
    func macroArguments() {
        #expect(Manual.macroArguments("No Ar x ( \"q\"") == "\\&No \\&Ar x \\&( \\(dqq\\(dq")
        #expect(Manual.sentence("Convert files.") == "convert files")
        #expect(Manual.sentence("CAF files.") == "CAF files")
    }

    @Test("completion scripts offer every subcommand, option and allowed value", arguments: Shell.allCases)
    func completions(shell: Shell) {
        let script = CompletionScript(program: Tool.program).text(for: shell)
        for word in ["convert", "info", "output", "data-format", "dry-run", "brief", "little big native"] {
            #expect(script.contains(word), "\(shell) lacks \(word)")
        }
        #expect(!script.contains("generate-manual"))
    }
}

import Foundation
import TestSupport
import Testing

/// The command line of the built binary: help, version, option forms, usage errors, and the
/// manual and completion scripts `make install` installs.
@Suite("cafconv command line, end to end")
struct CommandLineEndToEndTests {
    static let options: [String: [String]] = [
        "convert": [
            "<inputs>", "-o, --output <output>", "--endian <endian>", "-d, --data-format <format>", "-j, --jobs <jobs>",
            "--force", "--dry-run", "--check", "--prune", "--json", "-q, --quiet", "-v, --verbose", "--version",
            "-h, --help",
        ],
        "info": ["<files>", "--brief", "--json", "--loudness", "-j, --jobs <jobs>", "--version", "-h, --help"],
        "verify": [
            "<paths>", "--endian <endian>", "-d, --data-format <format>", "--rate <rate>", "--channels <channels>",
            "--max-duration <seconds>", "--against <source>", "--profile <profile>", "--loudness <MIN..MAX>",
            "--max-true-peak <dBTP>", "--json", "-q, --quiet",
            "--version", "-h, --help",
        ],
        "afinfo": ["<audio_files>", "-b, --brief", "-r, --real", "-i, --info", "--version", "-h, --help"],
    ]

    @Test("verify's help lists every profile with its one-line summary")
    func profileHelp() throws {
        let result = try run(RepositoryPaths.executable, ["verify", "--help"])
        #expect(result.status == 0)
        #expect(result.text.contains("  ios-notification: linear PCM, IMA4, µ-law or A-law; at most 30 s"))
        #expect(result.text.contains("  apple-lpcm: little-endian linear PCM"))
    }

    @Test(
        "each subcommand's help lists every option, on stdout, exit 0",
        arguments: ["convert", "info", "verify", "afconvert", "afinfo"])
    func subcommandHelp(name: String) throws {
        for arguments in [[name, "--help"], [name, "-h"], ["help", name]] {
            let result = try run(RepositoryPaths.executable, arguments)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments)")
            #expect(result.text.hasPrefix("OVERVIEW: "))
            for label in Self.options[name] ?? [] {
                #expect(result.text.contains("\n  \(label)"), "\(arguments) lacks \(label)")
            }
            #expect(result.text.split(separator: "\n").allSatisfy { $0.count < 80 }, "\(arguments)")
        }
    }

    @Test("the root's help names the subcommands and the exit statuses")
    func rootHelp() throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try run(RepositoryPaths.executable, arguments)
            #expect(result.status == 0, "\(arguments)")
            let words = [
                "USAGE: cafconv <subcommand>", "\n  convert ", "\n  info ", "\n  verify ", "\n  afinfo ", "130 interrupted.",
            ]
            for word in words {
                #expect(result.text.contains(word), "\(arguments) lacks \(word)")
            }
        }
    }

    @Test("allowed values are listed in help", arguments: ["little, big, native, source", "ios-notification, apple-lpcm"])
    func values(list: String) throws {
        let convert = try run(RepositoryPaths.executable, ["convert", "--help"]).text
        let verify = try run(RepositoryPaths.executable, ["verify", "--help"]).text
        #expect(
            (convert + verify).replacingOccurrences(of: "\n                          ", with: " ").contains("(values: \(list))"))
    }

    @Test("--version prints the version wherever it is")
    func version() throws {
        for arguments in [["--version"], ["convert", "--version"], ["info", "x", "--version"]] {
            let result = try run(RepositoryPaths.executable, arguments)
            #expect(result.status == 0 && result.text == "0.1.0\n", "\(arguments)")
        }
    }

    @Test(
        "usage errors: exit 64, cafconv: error:, the reason, the usage",
        arguments: [
            ([], "Missing subcommand; use one of convert, info, verify, report, afconvert or afinfo"),
            (["nope"], "Unknown subcommand 'nope'"),
            (["conver", "x.wav"], "Did you mean 'convert'?"),
            (["help", "nope"], "Unknown subcommand 'nope'"),
            (["--nope"], "Unknown option '--nope'"),
            (["convert", "--dryrun", "x.wav"], "Did you mean '--dry-run'?"),
            (["convert", "-x", "x.wav"], "Unknown option '-x'"),
            (["convert", "x.wav", "-o"], "Missing value for '-o <output>'"),
            (["convert", "x.wav", "--endian=middle"], "Please provide one of 'little', 'big', 'native' or 'source'."),
            (["convert", "x.wav", "-j", "two"], "The value 'two' is invalid for '-j <jobs>'"),
            (["convert", "x.wav", "-j0"], "--jobs must be at least 1"),
            (["convert", "x.wav", "-j", "-2"], "--jobs must be at least 1"),
            (["convert", "x.wav", "--force=yes"], "does not take any value"),
            (["convert", "x.wav", "-qv"], "--quiet and --verbose cannot be used together"),
            (["info"], "give at least one file"),
            (["info", "--brief", "--json", "x"], "--brief and --json cannot be used together"),
            (["verify", "x.caf", "--endian", "native"], "Please provide one of 'little' or 'big'."),
            (["verify", "x.caf", "--rate", "0"], "--rate must be a positive number"),
            (["verify", "x.caf", "--rate", "nan"], "--rate must be a positive number"),
            (["verify", "x.caf", "--channels", "2.5"], "expected a whole number"),
            (["verify", "x.caf", "--max-duration=-1"], "--max-duration must be a positive number of seconds"),
            (["verify", "x.caf", "-d", "nope"], "'nope' is not a data format"),
            (["verify", "x.caf", "--profile", "android"], "'ios-notification' or 'apple-lpcm'"),
            (["--generate-completion-script", "tcsh"], "'bash', 'zsh' or 'fish'"),
        ])
    func usageError(arguments: [String], phrase: String) throws {
        let result = try run(RepositoryPaths.executable, arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("cafconv: error: "), "\(result.stderr)")
        #expect(result.stderr.contains(phrase), "\(result.stderr)")
        #expect(result.stderr.contains("\nUsage: cafconv"), "\(result.stderr)")
        #expect(result.stderr.contains("--help' for more information."), "\(result.stderr)")
    }

    @Test("every option form converts: -o x, -ox, --output=x, -j2, -qj 2, --endian=big, -- before inputs")
    func optionForms() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", EndToEndTests.good)
        let forms: [[String]] = [
            ["-o", folder.file("a.caf"), "-j2", input],
            ["-o" + folder.file("b.caf"), "-qj", "2", input],
            ["--output=" + folder.file("c.caf"), "--endian=big", "--jobs", "2", input],
            ["--endian", "little", "-d=LEI16", "--output", folder.file("d.caf"), "--", input],
        ]
        for (index, arguments) in forms.enumerated() {
            let result = try run(RepositoryPaths.executable, ["convert"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(exists(folder.file(["a", "b", "c", "d"][index] + ".caf")), "\(arguments)")
        }
    }

    @Test("the manual page is valid mdoc naming every option")
    func manual() throws {
        let result = try run(RepositoryPaths.executable, ["--generate-manual"])
        #expect(result.status == 0)
        for labels in Self.options.values {
            for label in labels where label.hasPrefix("--") {
                let long = String(label.dropFirst(2).prefix(while: { $0 != " " }))
                #expect(result.text.contains("Fl -\(long)"), "manual lacks \(long)")
            }
        }
        // Both front ends have their section, with their options and exit statuses.
        for word in ["afconvert", "afinfo", "Fl -real", "Fl -src-complexity", "audio_files"] {
            #expect(result.text.contains(word), "manual lacks \(word)")
        }
    }

    // Condition traits, not tests that return early: without the tool these are reported as
    // skipped, never as passed.
    @Test("the manual page passes groff's mdoc lint", .enabled(if: which("groff") != nil, "groff is not installed"))
    func manualLint() throws {
        let result = try run(RepositoryPaths.executable, ["--generate-manual"])
        let groff = try #require(which("groff"))
        let folder = TempDirectory()
        let page = folder.write("cafconv.1", result.stdout)
        let lint = try run(groff, ["-mandoc", "-ww", "-z", page])
        #expect(lint.status == 0 && lint.stderr.isEmpty, "\(lint.stderr)")
    }

    @Test("completion scripts are made for every shell", arguments: ["bash", "zsh", "fish"])
    func completion(shell: String) throws {
        let result = try run(RepositoryPaths.executable, ["--generate-completion-script", shell])
        #expect(result.status == 0)
        #expect(result.text.contains("--max-duration") || result.text.contains("max-duration"))
        // Both front ends, with their own options.
        for word in ["afconvert", "afinfo", "src-complexity", "brief"] {
            #expect(result.text.contains(word), "\(shell) lacks \(word)")
        }
    }

    @Test("the bash completion script parses in bash", .enabled(if: which("bash") != nil, "bash is not installed"))
    func bashCompletionParses() throws { try completionParses(in: "bash") }

    @Test("the zsh completion script parses in zsh", .enabled(if: which("zsh") != nil, "zsh is not installed"))
    func zshCompletionParses() throws { try completionParses(in: "zsh") }

    @Test("the fish completion script parses in fish", .enabled(if: which("fish") != nil, "fish is not installed"))
    func fishCompletionParses() throws { try completionParses(in: "fish") }

    func completionParses(in shell: String) throws {
        let result = try run(RepositoryPaths.executable, ["--generate-completion-script", shell])
        let program = try #require(which(shell))
        let folder = TempDirectory()
        let script = folder.write("cafconv." + shell, result.stdout)
        let check = try run(program, ["-n", script])
        #expect(check.status == 0, "\(check.stderr)")
    }
}

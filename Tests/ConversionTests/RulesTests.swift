import BinaryIO
import CAFKit
@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

@Suite("Rules files: globs, parsing with line numbers, precedence, incremental re-runs, sizes")
struct RulesTests {
    @Test(
        "glob semantics: * within a component, ** across components, ? [] and escapes",
        arguments: [
            ("sfx/**", "sfx/a.wav", true), ("sfx/**", "sfx/x/y/a.wav", true), ("sfx/**", "sfxa.wav", false),
            ("sfx/**", "music/sfx/a.wav", false), ("*.wav", "a.wav", true), ("*.wav", "ui/a.wav", false),
            ("**/*.wav", "a.wav", true), ("**/*.wav", "ui/deep/a.wav", true), ("a/**/b.wav", "a/b.wav", true),
            ("a/**/b.wav", "a/x/y/b.wav", true), ("a/**/b.wav", "a/x/c.wav", false), ("ui/?.wav", "ui/a.wav", true),
            ("ui/?.wav", "ui/ab.wav", false), ("ui/[ab]*.wav", "ui/b1.wav", true), ("ui/[!ab]*.wav", "ui/b1.wav", false),
            ("ui/[a-c]x.wav", "ui/cx.wav", true), ("ui/\\*.wav", "ui/*.wav", true), ("ui/\\*.wav", "ui/a.wav", false),
            ("*a*b*", "xaybz", true), ("*a*b*", "xbya", false), ("Sfx/**", "sfx/a.wav", false),
        ])
    func globs(pattern: String, path: String, expected: Bool) throws {
        #expect(try Glob(pattern).matches(path) == expected, "\(pattern) vs \(path)")
    }

    @Test("bad globs are errors", arguments: ["", "/sfx/**", "sfx//a", "sfx/", "a**/b", "ui/[ab", "x\\"])
    func badGlobs(pattern: String) {
        #expect(throws: RuleError.self) { try Glob(pattern) }
    }

    @Test("the issue's example parses and resolves: match, format with @RATE, channels")
    func issueExample() throws {
        let base = ConversionOptions(jobs: 1)
        let text = """
            [[rule]]
            match = "sfx/**"
            format = "ima4@22050"
            channels = 1
            """
        let example = try RulesFile.parse(text, file: "cafconv.toml")
        let sfx = try example.resolve("sfx/ui/click.wav", base: base, commandLine: [])
        #expect(sfx.options.dataFormat?.kind == .ima4 && sfx.options.sampleRate == 22050 && sfx.options.channels == 1)
        let other = try example.resolve("music/theme.wav", base: base, commandLine: [])
        #expect(other.options.dataFormat == nil && other.options.sampleRate == nil && other.options.channels == nil)
        // The command line wins: -c 2 keeps 2 channels for the files the rule governs.
        var commandLine = base
        commandLine.channels = 2
        let kept = try example.resolve("sfx/a.wav", base: commandLine, commandLine: ["channels"])
        #expect(kept.options.channels == 2 && kept.options.sampleRate == 22050)
        let supported = """
            # defaults first
            [defaults]
            endian = "little"   # a comment

            [[rule]]
            match = ["sfx/**", 'ui/*.wav']
            format = "LEI24"

            [[rule]]
            match = [
                "music/**",  # multi-line arrays
            ]
            format = "F32"
            """
        let rules = try RulesFile.parse(supported, file: "r.toml")
        #expect(rules.defaults == [RuleSetting(key: "endian", value: .string("little"), line: 3)])
        #expect(rules.rules.count == 2)
        #expect(rules.rules[0].patterns.map(\.text) == ["sfx/**", "ui/*.wav"] && rules.rules[0].line == 5)
        #expect(rules.rules[1].patterns.map(\.text) == ["music/**"] && rules.rules[1].line == 9)
        #expect(rules.rules[1].settings == [RuleSetting(key: "format", value: .string("F32"), line: 13)])
    }

    @Test(
        "errors name the line: unknown key, bad value, wrong type, syntax, unknown table, missing match",
        arguments: [
            ("[defaults]\nformat = \"LEI16\"\nbitrat = 3\n", 3, "unknown key 'bitrat'"),
            ("[[rule]]\nmatch = \"a/**\"\nformat = \"LEI17\"\n", 3, "LEI17"),
            ("[[rule]]\nmatch = \"a/**\"\nendian = \"middle\"\n", 3, "not a byte order"),
            ("[[rule]]\nmatch = \"a/**\"\nchannels = \"one\"\n", 3, "wrong type"),
            ("[[rule]]\nmatch = \"a/**\"\nchannels = 0\n", 3, "out of range"),
            ("[[rule]]\nmatch = \"a/**\"\nrate = 0\n", 3, "out of range"),
            ("[[rule]]\nmatch = \"a/**\"\nbitrate = 1000\n", 3, "out of range"),
            ("[[rule]]\nmatch = \"a/**\"\nstrip-metadata = \"yes\"\n", 3, "wrong type"),
            ("[[rule]]\nmatch = \"a/**\"\nformat = \"LEI16@0\"\n", 3, "format"),
            ("[[rule]]\nmatch = \"a/**\"\ndither = \"loud\"\n", 3, "not a dither"),
            ("\n\n[[rule]]\nformat = \"LEI16\"\n", 3, "no 'match'"),
            ("[defaults]\nformat = LEI16\n", 2, "strings are quoted"),
            ("[defaults]\nformat = \"LEI16\n", 2, "not closed"),
            ("[rules]\n", 1, "unknown table"),
            ("[rule]\n", 1, "[[rule]]"),
            ("format = \"LEI16\"\n", 1, "outside any table"),
            ("[[rule]]\nmatch = \"/abs/**\"\n", 2, "relative"),
            ("[defaults]\nformat = \"LEI16\"\nformat = \"LEI24\"\n", 3, "twice"),
            ("[defaults]\nrate = 1.5\n", 2, "floating-point"),
            ("[defaults]\nx.y = 1\n", 2, "dotted keys"),
        ])
    func errorsNameTheLine(text: String, line: Int, fragment: String) throws {
        let error = try #require(throws: RuleError.self) { try RulesFile.parse(text, file: "Sounds/cafconv.toml") }
        #expect(error.line == line, "\(error)")
        #expect(error.description.hasPrefix("Sounds/cafconv.toml:\(line): "), "\(error)")
        #expect(error.description.contains(fragment), "\(error)")
    }

    @Test("CRLF line ends read as LF ones (Swift's \"\\r\\n\" is one Character); a lone CR is refused with its line")
    func lineEnds() throws {
        let lf = """
            # defaults first
            [defaults]
            endian = "little"   # a comment

            [[rule]]
            match = [
                "music/**",  # multi-line arrays
            ]
            format = "F32"

            """
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(crlf.unicodeScalars.filter { $0 == "\r" }.count == 9)
        let expected = try RulesFile.parse(lf, file: "r.toml")
        let read = try RulesFile.parse(crlf, file: "r.toml")
        #expect(read.defaults == expected.defaults && read.defaults.count == 1)
        #expect(read.rules == expected.rules && read.rules.count == 1)
        #expect(read.rules.first?.settings == [RuleSetting(key: "format", value: .string("F32"), line: 9)])
        // Mixed line ends are TOML too.
        let mixed = "[defaults]\r\nendian = \"big\"\n[[rule]]\r\nmatch = \"a/**\"\r\nformat = \"LEI24\"\r\n"
        let mixedRules = try RulesFile.parse(mixed, file: "r.toml")
        #expect(mixedRules.defaults == [RuleSetting(key: "endian", value: .string("big"), line: 2)])
        #expect(mixedRules.rules.first?.line == 3)
        // Old Mac line ends (CR alone) are not TOML.
        let error = try #require(throws: RuleError.self) {
            try RulesFile.parse("# rules\r[defaults]\rendian = \"big\"\r", file: "r.toml")
        }
        #expect(error.line == 1 && error.message.contains("carriage return"), "\(error)")
        let later = try #require(throws: RuleError.self) {
            try RulesFile.parse("[defaults]\nendian = \"big\"\r# x\n", file: "r.toml")
        }
        #expect(later.line == 2, "\(later)")
    }

    @Test("precedence: command line over the first matching rule over [defaults]; later rules do not add keys")
    func precedence() throws {
        let rules = try RulesFile.parse(
            """
            [defaults]
            format = "I16"
            endian = "big"
            [[rule]]
            match = "sfx/**"
            format = "F32"
            [[rule]]
            match = "sfx/loud/**"
            format = "I24"
            endian = "little"
            """, file: "r.toml")
        let base = ConversionOptions(jobs: 1)
        // Defaults only.
        var resolved = try rules.resolve("ui/a.wav", base: base, commandLine: [])
        #expect(resolved.options.dataFormat?.text == "I16" && resolved.options.endian == .big && resolved.rule == nil)
        // The first matching rule governs; the second one (also matching) adds nothing.
        resolved = try rules.resolve("sfx/loud/a.wav", base: base, commandLine: [])
        #expect(resolved.options.dataFormat?.text == "F32" && resolved.options.endian == .big)
        #expect(resolved.rule?.number == 1)
        #expect(rules.label(of: resolved.rule) == "rule 1 'sfx/**' (r.toml:4)")
        // The command line wins over both.
        var commandLine = base
        commandLine.endian = .little
        resolved = try rules.resolve("sfx/a.wav", base: commandLine, commandLine: ["endian"])
        #expect(resolved.options.dataFormat?.text == "F32" && resolved.options.endian == .little)
        #expect(resolved.options.fingerprint != (try rules.resolve("sfx/a.wav", base: base, commandLine: [])).options.fingerprint)
    }

    /// A source folder with a rules file and files under sfx/, ui/ and music/.
    func studio(_ folder: TempDirectory, rules: String) {
        for (index, name) in ["sfx/hit.wav", "sfx/deep/boom.wav", "ui/click.wav", "music/theme.wav"].enumerated() {
            folder.write("in/" + name, WAVFixture.signal(.int16, channels: 1, frames: 400, seed: UInt64(index)).bytes)
        }
        folder.write("in/cafconv.toml", Array(rules.utf8))
    }

    @Test("a cafconv.toml at the input root sets each file's format; editing one rule reconverts only what it governs")
    func incrementalAfterRuleEdit() throws {
        let folder = TempDirectory()
        let rules = """
            [defaults]
            format = "LEI16"
            [[rule]]
            match = "sfx/**"
            format = "LEF32"
            [[rule]]
            match = "ui/**"
            format = "LEI24"
            """
        studio(folder, rules: rules)
        let book = RuleBook(
            global: nil, globalPath: nil, byRoot: [folder.file("in"): try RulesFile.load(folder.file("in/cafconv.toml"))],
            commandLine: [])
        let options = ConversionOptions(jobs: 2)
        let first = Engine.run(inputs: [folder.file("in")], output: folder.file("out"), options: options, rules: book)
        #expect(first.totals.converted == 4 && first.totals.failed == 0)
        let formats = Dictionary(
            uniqueKeysWithValues: first.files.map { (FileSystem.baseName($0.output ?? ""), $0.formatOut ?? "") })
        #expect(formats == ["hit.caf": "LEF32", "boom.caf": "LEF32", "click.caf": "LEI24", "theme.caf": "LEI16"])
        #expect(
            first.files.first { $0.output?.hasSuffix("click.caf") == true }?.rule
                == "rule 2 'ui/**' (\(folder.file("in/cafconv.toml")):6)")
        // Sizes per rule: every file counted once, bytes in are the sources', bytes out the CAFs'.
        let sizes = try #require(first.rules)
        #expect(sizes.map(\.files) == [1, 2, 1])  // plan order: music (defaults), sfx, ui
        #expect(sizes.reduce(0) { $0 + $1.bytesOut } == first.totals.bytes)
        let sourceBytes = first.files.reduce(UInt64(0)) { $0 + (FileSystem.stamp(of: $1.input)?.size ?? 0) }
        #expect(sizes.reduce(0) { $0 + $1.bytesIn } == sourceBytes)

        // Edit the ui rule only: only ui/click.wav is converted again.
        folder.write("in/cafconv.toml", Array(rules.replacingOccurrences(of: "LEI24", with: "LEI32").utf8))
        let edited = try RulesFile.load(folder.file("in/cafconv.toml"))
        let second = Engine.run(
            inputs: [folder.file("in")], output: folder.file("out"), options: options,
            rules: RuleBook(global: nil, globalPath: nil, byRoot: [folder.file("in"): edited], commandLine: []))
        #expect(second.totals.converted == 1 && second.totals.upToDate == 3)
        let converted = second.files.filter { $0.status == .converted }
        #expect(converted.map { FileSystem.baseName($0.output ?? "") } == ["click.caf"])
        #expect(converted.first?.formatOut == "LEI32")
        // The same run again: nothing to do.
        let third = Engine.run(
            inputs: [folder.file("in")], output: folder.file("out"), options: options,
            rules: RuleBook(global: nil, globalPath: nil, byRoot: [folder.file("in"): edited], commandLine: []))
        #expect(third.totals.converted == 0 && third.totals.upToDate == 4)
    }

    @Test("a pattern that matches no file is a warning naming its line; a setting that contradicts another fails its files")
    func unmatchedAndContradictions() throws {
        let folder = TempDirectory()
        studio(
            folder,
            rules: """
                [defaults]
                format = "LEI16"
                [[rule]]
                match = ["voice/**", "music/**"]
                endian = "big"
                """)
        let book = RuleBook(
            global: nil, globalPath: nil, byRoot: [folder.file("in"): try RulesFile.load(folder.file("in/cafconv.toml"))],
            commandLine: [])
        let report = Engine.run(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1), rules: book)
        #expect(
            report.warnings == [.run(.patternMatchesNothing(rules: folder.file("in/cafconv.toml"), line: 3, glob: "voice/**"))])
        let failed = report.files.filter { $0.status == .failed }
        #expect(failed.count == 1 && failed.first?.input.hasSuffix("music/theme.wav") == true)
        #expect(failed.first?.code == .unsupported)
        guard case .encoding(.rules(let error))? = failed.first?.error else {
            Issue.record("not refused by the rules: \(failed.first?.reason ?? "")")
            return
        }
        #expect(error.file?.hasSuffix("cafconv.toml") == true && error.line == 3, "\(error)")
        #expect(report.totals.converted == 3)
    }

    @Test("[defaults] that concern one kind of file only (bitrate, endian) do not fail the others")
    func defaultsForOneKind() throws {
        let folder = TempDirectory()
        studio(
            folder,
            rules: """
                [defaults]
                format = "BEI16"
                endian = "big"
                bitrate = 96000
                [[rule]]
                match = "music/**"
                format = "aac"
                """)
        let book = RuleBook(
            global: nil, globalPath: nil, byRoot: [folder.file("in"): try RulesFile.load(folder.file("in/cafconv.toml"))],
            commandLine: [])
        let report = Engine.run(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1), rules: book)
        #expect(report.totals.converted == 4 && report.totals.failed == 0, "\(report.files.map { $0.reason ?? "" })")
        let formats = Dictionary(
            uniqueKeysWithValues: report.files.map { (FileSystem.baseName($0.output ?? ""), $0.formatOut ?? "") })
        #expect(formats["theme.caf"] == "aac" && formats["click.caf"] == "BEI16", "\(formats)")
        #expect(report.files.first { $0.output?.hasSuffix("theme.caf") == true }?.proof?.bitRate == 96000)
    }

    @Test("--rules with a file given by name matches it relative to the rules file's folder")
    func singleFileWithRules() throws {
        let folder = TempDirectory()
        studio(folder, rules: "[[rule]]\nmatch = \"sfx/**\"\nformat = \"LEI24\"\n")
        let path = folder.file("in/cafconv.toml")
        let book = RuleBook(global: try RulesFile.load(path), globalPath: path, byRoot: [:], commandLine: [])
        let hit = Engine.run(
            inputs: [folder.file("in/sfx/hit.wav")], output: folder.file("out/hit.caf"), options: ConversionOptions(jobs: 1),
            rules: book)
        #expect(hit.files.first?.formatOut == "LEI24" && hit.warnings.isEmpty)
        let click = Engine.run(
            inputs: [folder.file("in/ui/click.wav")], output: folder.file("out/click.caf"), options: ConversionOptions(jobs: 1),
            rules: book)
        #expect(click.files.first?.formatOut == "LEI16")
    }

    @Test("--rules matches a file by the paths as given, so a sandbox of linked files and a linked folder get the same rule")
    func rulesFolderByNameNotThroughLinks() throws {
        let folder = TempDirectory()
        studio(folder, rules: "[[rule]]\nmatch = \"sfx/h*.wav\"\nformat = \"LEI24\"\n")
        // Bazel's execution root links the source folder; its sandbox links each input file.
        #expect(symlink(folder.file("in"), folder.file("execroot")) == 0)
        _ = folder.write("sandbox/placeholder", [])
        #expect(mkdir(folder.file("sandbox/sfx"), 0o755) == 0)
        #expect(symlink(folder.file("in/cafconv.toml"), folder.file("sandbox/cafconv.toml")) == 0)
        #expect(symlink(folder.file("in/sfx/hit.wav"), folder.file("sandbox/sfx/hit.wav")) == 0)
        for root in ["in", "execroot", "sandbox"] {
            let path = folder.file(root + "/cafconv.toml")
            let book = RuleBook(global: try RulesFile.load(path), globalPath: path, byRoot: [:], commandLine: [])
            let hit = Engine.run(
                inputs: [folder.file(root + "/sfx/hit.wav")], output: folder.file("out/\(root).caf"),
                options: ConversionOptions(jobs: 1), rules: book)
            #expect(hit.files.first?.formatOut == "LEI24", "\(root): \(hit.files.map { $0.reason ?? "" })")
        }
    }

    /// Rules and paths for the index tests: literal prefixes, extensions, sets, escapes, `**`,
    /// and scalars that a Character would combine (`.` followed by a combining accent).
    static let indexPatterns = [
        "sfx/**", "sfx/ui/*.wav", "*.wav", "**/*.wav", "a/**/b.wav", "ui/?.wav", "ui/[ab]*.aif", "ui/\\*.wav",
        "music/theme.wav", "*.tar.gz", "x/*.", "**", "e\u{301}/*.w\u{301}av", "*.\u{301}wav", "sfx/*", "ui/[.]wav",
        "deep/x/y/**/z.caf",
    ]
    static let indexPaths = [
        "sfx/a.wav", "sfx/ui/b.wav", "sfx/ui/b.aif", "a.wav", "ui/a.wav", "ui/ab.wav", "ui/b1.aif", "ui/*.wav", "ui/.wav",
        "music/theme.wav", "music/theme.wavx", "x.tar.gz", "x/y.", "x/y", "a/b.wav", "a/q/r/b.wav", "e\u{301}/k.w\u{301}av",
        "\u{e9}/k.w\u{301}av", "k.\u{301}wav", "k.wav", "deep/x/y/z.caf", "deep/x/y/1/2/z.caf", "deep/x/z.caf", "", "/",
        "sfx//ui/b.wav", "noext", "a.b.c.wav",
    ]

    @Test("the indexed matcher finds the same governing rule as trying every rule in order")
    func indexedGoverningIsTheSame() throws {
        // Every pattern as the first rule, then all of them in order, then in reverse.
        var orders = Self.indexPatterns.map { [$0] }
        orders.append(Self.indexPatterns)
        orders.append(Self.indexPatterns.reversed())
        orders.append(Self.indexPatterns.filter { $0 != "**" })
        for patterns in orders {
            let rules = ConversionRules(
                file: "r.toml",
                rules: try patterns.enumerated().map { index, text in
                    ConversionRule(patterns: [try Glob(text), try Glob("never/\(index)")], settings: [], line: index + 1, number: index + 1)
                })
            let matcher = RuleMatcher(rules)
            for path in Self.indexPaths {
                #expect(matcher.governing(path)?.number == rules.governing(path)?.number, "\(patterns) \(path)")
            }
            var coverage = PatternCoverage([rules], matchers: ["r.toml": matcher])
            for path in Self.indexPaths { coverage.record(path, in: "r.toml") }
            let unmatched = rules.rules.flatMap { rule in
                rule.patterns.filter { glob in !Self.indexPaths.contains { glob.matches($0) } }.map { "\(rule.line) \($0.text)" }
            }
            #expect(coverage.unmatched.map { "\($0.line) \($0.glob.text)" } == unmatched, "\(patterns)")
        }
    }

    /// The issue's case: 4,000 rules over 5,000 files, the first rule matching every file. Each
    /// file was matched against every pattern not matched yet (20 million globs); with the index
    /// a file examines only the patterns its folder and extension could match.
    @Test("4,000 rules over 5,000 files: the patterns examined grow with the files, not rules x files")
    func rulesTimesFiles() throws {
        let folders = 1_000
        var rules = [ConversionRule(patterns: [try Glob("**")], settings: [], line: 1, number: 1)]
        for index in 0..<3_999 {
            // Folders with no file, folders with files, extensions no file has.
            let text = index % 3 == 0 ? "gone\(index)/**" : index % 3 == 1 ? "d\(index % folders)/x\(index)/*.wav" : "*.ext\(index)"
            rules.append(ConversionRule(patterns: [try Glob(text)], settings: [], line: index + 2, number: index + 2))
        }
        let book = ConversionRules(file: "r.toml", rules: rules)
        let matcher = RuleMatcher(book)
        var coverage = PatternCoverage([book], matchers: ["r.toml": matcher])
        var governed = 0
        var examined = 0
        for file in 0..<5_000 {
            let path = "d\(file % folders)/x\(file % 7)/f\(file).wav"
            coverage.record(path, in: "r.toml")
            if matcher.governing(path, examined: &examined)?.number == 1 { governed += 1 }
        }
        #expect(governed == 5_000)
        #expect(examined == 5_000)
        // At most a few candidates per file; trying every unmatched pattern examines millions.
        #expect(coverage.examined < 5 * 5_000, "\(coverage.examined) patterns examined")
        #expect(coverage.unmatched.count == 4_000 - 3)

        // The last rule governs: the rules before it are not tried one by one.
        var last = Array(rules.dropFirst())
        last.append(ConversionRule(patterns: [try Glob("z/only.caf")], settings: [], line: 9_999, number: 4_000))
        let lastMatcher = RuleMatcher(ConversionRules(file: "r.toml", rules: last))
        examined = 0
        #expect(lastMatcher.governing("z/only.caf", examined: &examined)?.number == 4_000)
        #expect(examined < 10, "\(examined) patterns examined")
    }
}

import Foundation
import TestSupport
import Testing

/// The README's Make and Ninja recipes, run for real: `--rules` and `--depfile`, one cafconv
/// process per file. Skipped, saying so, when `make` or `ninja` is not installed.
@Suite("Build systems: --depfile with Make and Ninja")
struct BuildSystemEndToEndTests {
    static let rules = """
        [defaults]
        format = "LEI16"
        [[rule]]
        match = "sfx/**"
        format = "LEI24"
        """

    /// A source tree `Sounds/` (with its rules file) and an empty `Build/`.
    func project(_ folder: TempDirectory) {
        for (index, name) in ["sfx/hit.wav", "sfx/boom.wav", "ui/click.wav"].enumerated() {
            folder.write("Sounds/" + name, WAVFixture.signal(.int16, channels: 1, frames: 300, seed: UInt64(index)).bytes)
        }
        folder.write("Sounds/cafconv.toml", Array(Self.rules.utf8))
    }

    static func tool(_ name: String) -> String? {
        for folder in ["/usr/bin", "/usr/local/bin", "/bin"]
        where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        return nil
    }

    /// Modification times of the outputs, to see which were rewritten.
    func times(_ folder: TempDirectory, _ names: [String]) -> [String: Date] {
        var result: [String: Date] = [:]
        for name in names {
            result[name] =
                (try? FileManager.default.attributesOfItem(atPath: folder.file("Build/" + name)))?[.modificationDate] as? Date
        }
        return result
    }

    static let outputs = ["sfx/hit.caf", "sfx/boom.caf", "ui/click.caf"]

    /// Runs the build; returns the outputs cafconv rewrote.
    func build(_ folder: TempDirectory, _ program: String, _ arguments: [String]) throws -> Set<String> {
        let before = times(folder, Self.outputs)
        Thread.sleep(forTimeInterval: 0.02)
        let result = try run(program, arguments, currentDirectory: folder.path)
        #expect(result.status == 0, "\(program) failed: \(result.text) \(result.stderr)")
        let after = times(folder, Self.outputs)
        return Set(Self.outputs.filter { after[$0] != nil && after[$0] != before[$0] })
    }

    func touch(_ path: String) throws {
        Thread.sleep(forTimeInterval: 0.02)
        try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
    }

    @Test(
        "Make pattern rule: touching one WAV rebuilds one CAF; editing a rule reconverts only the files it governs",
        .enabled(if: tool("make") != nil, "make is not installed (apt-get install make)"))
    func make() throws {
        let make = try #require(Self.tool("make"))
        let folder = TempDirectory()
        project(folder)
        let makefile = """
            CAFCONV := \(RepositoryPaths.executable)
            SOURCES := $(shell find Sounds -name '*.wav')
            OUTPUTS := $(patsubst Sounds/%.wav,Build/%.caf,$(SOURCES))
            all: $(OUTPUTS)
            Build/%.caf: Sounds/%.wav
            \t$(CAFCONV) convert -q --rules Sounds/cafconv.toml $< -o $@ --depfile $@.d
            -include $(OUTPUTS:.caf=.caf.d)

            """
        folder.write("Makefile", Array(makefile.utf8))
        #expect(try build(folder, make, ["-s"]) == Set(Self.outputs))
        let depfile = String(decoding: readFile(folder.file("Build/sfx/hit.caf.d")) ?? [], as: UTF8.self)
        #expect(depfile == "Build/sfx/hit.caf: Sounds/sfx/hit.wav Sounds/cafconv.toml\n")
        #expect(try build(folder, make, ["-s"]).isEmpty)
        try touch(folder.file("Sounds/sfx/hit.wav"))
        #expect(try build(folder, make, ["-s"]) == ["sfx/hit.caf"])
        // Edit the sfx rule: make runs cafconv for every output (each depends on the rules file),
        // and cafconv rewrites only those whose resolved settings changed.
        folder.write("Sounds/cafconv.toml", Array(Self.rules.replacingOccurrences(of: "LEI24", with: "LEI32").utf8))
        #expect(try build(folder, make, ["-s"]) == ["sfx/hit.caf", "sfx/boom.caf"])
    }

    @Test(
        "Ninja with depfile: touching one WAV rebuilds one CAF; editing a rule reconverts only the files it governs",
        .enabled(if: tool("ninja") != nil, "ninja is not installed (apt-get install ninja-build)"))
    func ninja() throws {
        let ninja = try #require(Self.tool("ninja"))
        let folder = TempDirectory()
        project(folder)
        var manifest = """
            rule caf
              command = \(RepositoryPaths.executable) convert -q --rules Sounds/cafconv.toml $in -o $out --depfile $out.d
              depfile = $out.d
              deps = gcc
              restat = 1

            """
        for output in Self.outputs {
            manifest += "build Build/\(output): caf Sounds/\(output.replacingOccurrences(of: ".caf", with: ".wav"))\n"
        }
        folder.write("build.ninja", Array(manifest.utf8))
        #expect(try build(folder, ninja, ["-j", "1"]) == Set(Self.outputs))
        let nothing = try run(ninja, ["-n", "-d", "explain"], currentDirectory: folder.path)
        #expect(nothing.text.contains("no work to do"), "\(nothing.text)")
        try touch(folder.file("Sounds/ui/click.wav"))
        #expect(try build(folder, ninja, ["-j", "1"]) == ["ui/click.caf"])
        folder.write("Sounds/cafconv.toml", Array(Self.rules.replacingOccurrences(of: "LEI24", with: "LEI32").utf8))
        #expect(try build(folder, ninja, ["-j", "1"]) == ["sfx/hit.caf", "sfx/boom.caf"])
        // restat: the outputs cafconv left alone do not make Ninja run them again.
        let again = try run(ninja, ["-n"], currentDirectory: folder.path)
        #expect(again.text.contains("no work to do"), "\(again.text)")
    }
}

/// Issue 34: depfiles that Ninja and Make read right, checked with the real tools.
@Suite("Depfiles with awkward names, read by Ninja and Make")
struct DepfileNamesEndToEndTests {
    static let names = ["a b", "h#x", "d$x", "c:x", "s\\ z", "\u{FC}ber", "x\\y", "a!b@c~d", "e{f}(g)", "h+i,j-k_l"]

    /// Ninja's build-file spelling of a path.
    func ninjaPath(_ path: String) -> String {
        path.replacingOccurrences(of: "$", with: "$$").replacingOccurrences(of: " ", with: "$ ")
            .replacingOccurrences(of: ":", with: "$:")
    }

    @Test(
        "ninja -t deps lists each source as it is named; make finds every prerequisite",
        .enabled(if: BuildSystemEndToEndTests.tool("ninja") != nil && BuildSystemEndToEndTests.tool("make") != nil,
            "ninja or make is not installed (apt-get install ninja-build make)"))
    func realTools() throws {
        let ninja = try #require(BuildSystemEndToEndTests.tool("ninja"))
        let make = try #require(BuildSystemEndToEndTests.tool("make"))
        let folder = TempDirectory()
        var manifest = """
            rule caf
              command = \(RepositoryPaths.executable) convert -q $in -o $out --depfile $out.d
              depfile = $out.d
              deps = gcc

            """
        for (index, name) in Self.names.enumerated() {
            folder.write("Sounds/\(name).wav", WAVFixture.signal(.int16, channels: 1, frames: 100, seed: UInt64(index)).bytes)
            manifest += "build \(ninjaPath("Build/\(name).caf")): caf \(ninjaPath("Sounds/\(name).wav"))\n"
        }
        folder.write("build.ninja", Array(manifest.utf8))
        let built = try run(ninja, ["-j", "1"], currentDirectory: folder.path)
        #expect(built.status == 0, "\(built.text) \(built.stderr)")
        // Ninja moved each depfile into its log: what it recorded is what it parsed.
        let deps = try run(ninja, ["-t", "deps"], currentDirectory: folder.path).text
        for name in Self.names {
            #expect(deps.contains("Build/\(name).caf: #deps 1") && deps.contains("\n    Sounds/\(name).wav\n"), "\(name): \(deps)")
        }
        let again = try run(ninja, ["-n", "-d", "explain"], currentDirectory: folder.path)
        #expect(again.text.contains("no work to do"), "\(again.text) \(again.stderr)")

        // Make: the same depfiles, written by a direct run, included by a Makefile.
        var includes = ""
        for name in Self.names {
            let result = try run(
                RepositoryPaths.executable,
                ["convert", "-q", "Sounds/\(name).wav", "-o", "Make/\(name).caf", "--depfile", "Make/\(Self.names.firstIndex(of: name) ?? 0).d"],
                currentDirectory: folder.path)
            #expect(result.status == 0, "\(result.stderr)")
            includes += "include Make/\(Self.names.firstIndex(of: name) ?? 0).d\n"
        }
        folder.write("Makefile", Array((includes + "Make/%.caf:\n\t@true\n").utf8))
        for name in Self.names {
            // Up to date (0) when the prerequisite was read right; a misread name is "no rule to make" (2).
            let target = "Make/\(name).caf"
            let fresh = try run(make, ["-q", target], currentDirectory: folder.path)
            #expect(fresh.status == 0, "\(name): \(fresh.stderr)")
        }
        Thread.sleep(forTimeInterval: 0.02)
        for name in Self.names {
            try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: folder.file("Sounds/\(name).wav"))
            let target = "Make/\(name).caf"
            let stale = try run(make, ["-q", target], currentDirectory: folder.path)
            #expect(stale.status == 1, "\(name): \(stale.stderr)")
        }
    }

    @Test("a name Ninja 1.11 or GNU Make 4.3 would misread is refused, naming the file and the character")
    func misreadNamesRefused() throws {
        let folder = TempDirectory()
        let names: [(String, String)] = [
            ("amp&er", "'&'"), ("quo'te", "'''"), ("semi;c", "';'"), ("star*", "'*'"), ("q?m", "'?'"), ("dq\"x", "'\"'"),
            ("lt<gt>", "'<'"), ("caret^", "'^'"), ("back`tick", "'`'"), ("per%cent", "'%'"), ("br[a]ck", "'['"),
            ("a=b", "'='"), ("bs\\#x", "a backslash before '#'"), ("bc\\:x", "a backslash before ':'"),
        ]
        for (index, (name, character)) in names.enumerated() {
            folder.write("S/\(index)/\(name).wav", WAVFixture.signal(.int16, channels: 1, frames: 100, seed: UInt64(index)).bytes)
            let result = try run(
                RepositoryPaths.executable,
                ["convert", "-q", folder.file("S/\(index)/\(name).wav"), "-o", folder.file("O/\(index).caf"), "--depfile", folder.file("d")])
            #expect(result.status == 1, "\(name): \(result.stderr)")
            #expect(
                result.stderr.contains("S/\(index)/")
                    && result.stderr.contains(" holds \(character), which Make and Ninja depfiles cannot carry; rename it"),
                "\(name): \(result.stderr)")
            #expect(!exists(folder.file("d")), "\(name)")
        }
    }

    @Test("a name with a tab, a newline or a trailing backslash is refused with a clear message")
    func refused() throws {
        let folder = TempDirectory()
        // A tab in the output's name; a source whose name ends with a backslash.
        for (index, (source, output)) in [("S/0.wav", "O/t\tab.caf"), ("S/back\\", "O/1.caf")].enumerated() {
            folder.write(source, WAVFixture.signal(.int16, channels: 1, frames: 100, seed: UInt64(index)).bytes)
            let result = try run(
                RepositoryPaths.executable, ["convert", "-q", folder.file(source), "-o", folder.file(output), "--depfile", folder.file("d")])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("which Make and Ninja depfiles cannot carry; rename it"), "\(result.stderr)")
            #expect(!exists(folder.file("d")))
        }
    }
}

/// The rules file, `--shard` and the size report as the command line shows them.
@Suite("Rules, shards and sizes on the command line")
struct RulesCommandLineTests {
    func studio(_ folder: TempDirectory, rules: String) {
        for (index, name) in ["sfx/hit.wav", "ui/click.wav"].enumerated() {
            folder.write("Sounds/" + name, WAVFixture.signal(.int16, channels: 1, frames: 300, seed: UInt64(index)).bytes)
        }
        folder.write("Sounds/cafconv.toml", Array(rules.utf8))
    }

    @Test("--dry-run -v names the governing rule of each file; the summary and --json give bytes per rule")
    func dryRunShowsRules() throws {
        let folder = TempDirectory()
        studio(folder, rules: "[defaults]\nformat = \"LEI16\"\n[[rule]]\nmatch = \"sfx/**\"\nformat = \"LEI24\"\n")
        let rules = folder.file("Sounds/cafconv.toml")
        let plan = try run(
            RepositoryPaths.executable, ["convert", "--dry-run", "-v", folder.file("Sounds"), "-o", folder.file("Build")])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.text.contains("hit.caf (no output yet) [rule 1 'sfx/**' (\(rules):3)]"), "\(plan.text)")
        #expect(plan.text.contains("click.caf (no output yet) [defaults (\(rules))]"), "\(plan.text)")
        let done = try run(RepositoryPaths.executable, ["convert", folder.file("Sounds"), "-o", folder.file("Build")])
        #expect(done.status == 0)
        #expect(done.stderr.contains("rule 1 'sfx/**' (\(rules):3): 1 file, "), "\(done.stderr)")
        let json = try run(RepositoryPaths.executable, ["convert", "--json", folder.file("Sounds"), "-o", folder.file("Build")])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let sizes = try #require(report["rules"] as? [[String: Any]])
        #expect(sizes.count == 2 && sizes.allSatisfy { ($0["bytesOut"] as? Int ?? 0) > 0 && ($0["files"] as? Int) == 1 })
    }

    @Test("a rules file with an error: exit 64, the file and line named, nothing written")
    func badRulesFile() throws {
        let folder = TempDirectory()
        studio(folder, rules: "[[rule]]\nmatch = \"sfx/**\"\nbitrat = 128000\n")
        let result = try run(RepositoryPaths.executable, ["convert", folder.file("Sounds"), "-o", folder.file("Build")])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains("cafconv: error: \(folder.file("Sounds/cafconv.toml")):3: unknown key 'bitrat'"),
            "\(result.stderr)")
        #expect(!exists(folder.file("Build")))
    }

    @Test("--shard takes K/N; a bad value is a usage error")
    func shardOption() throws {
        let folder = TempDirectory()
        studio(folder, rules: "")
        for bad in ["0/2", "3/2", "x"] {
            let result = try run(
                RepositoryPaths.executable, ["convert", "--shard", bad, folder.file("Sounds"), "-o", folder.file("B")])
            #expect(result.status == 64 && result.stderr.contains("--shard"), "\(bad): \(result.stderr)")
        }
        var converted = 0
        for shard in ["1/2", "2/2"] {
            let result = try run(
                RepositoryPaths.executable,
                ["convert", "--json", "--shard", shard, folder.file("Sounds"), "-o", folder.file("B")])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
            converted += ((report["totals"] as? [String: Any])?["converted"] as? Int) ?? 0
        }
        #expect(converted == 2)
    }
}

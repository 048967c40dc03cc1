import Foundation
import TestSupport
import Testing

/// What a build log shows: whole lines in order on one pipe, errors when they happen, gates that
/// fail when they checked nothing, --check that says what is wrong, one usage error for a file in
/// the way of -o, --prune that leaves no empty folders, info on folders, warnings with --brief,
/// counts in the singular.
@Suite("cafconv in a CI log, end to end")
struct LogsAndGatesEndToEndTests {
    static let small = WAVFixture.signal(.int16, channels: 1, frames: 100).bytes

    /// `count` small WAVs under `in/` (in two folders) and `bad` files that are not WAV.
    static func tree(_ folder: TempDirectory, count: Int, bad: Int) {
        for index in 0..<count { folder.write("in/\(index % 2 == 0 ? "even" : "odd")/tone-\(index).wav", small) }
        for index in 0..<bad { folder.write("in/odd/broken-\(index).wav", Array("not a wave file \(index)".utf8)) }
    }

    // MARK: interleaving

    @Test("convert > log 2>&1: every line whole; results, then the failed list, then the summary last")
    func convertLogIsWhole() throws {
        let folder = TempDirectory()
        Self.tree(folder, count: 200, bad: 2)
        let log = try runMerged(RepositoryPaths.executable, ["convert", "-j", "2", folder.file("in"), "-o", folder.file("out")])
        #expect(log.status == 1)
        let lines = log.lines
        let result =
            #/^.+/in/(even|odd)/tone-\d+\.wav -> .+/out/(even|odd)/tone-\d+\.caf \(LEI16 -> LEI16, 1 ch, 44100 Hz, 100 frames\)$/#
        let error = #/^cafconv: error: .+/in/odd/broken-\d\.wav: not audio cafconv can read .+$/#
        let listed = #/^  .+/in/odd/broken-\d\.wav: not audio cafconv can read .+$/#
        var kinds: [Character] = []
        for line in lines {
            if line.wholeMatch(of: result) != nil {
                kinds.append("r")
            } else if line.wholeMatch(of: error) != nil {
                kinds.append("e")
            } else if line == "cafconv: 2 files failed:" {
                kinds.append("h")
            } else if line.wholeMatch(of: listed) != nil {
                kinds.append("l")
            } else if line.wholeMatch(of: #/^200 converted, 2 failed \(\d+ bytes written in [0-9.]+ m?s\)$/#) != nil {
                kinds.append("s")
            } else {
                Issue.record("a line that is not whole, or not expected: \(line.debugDescription)")
            }
        }
        // Errors come as files end (before the results, which are printed in input order at the end).
        #expect(String(kinds) == "ee" + String(repeating: "r", count: 200) + "hll" + "s", "\(log.text)")
    }

    @Test("convert --json 2>&1: the JSON document is contiguous, errors are whole lines around it")
    func jsonLogIsWhole() throws {
        let folder = TempDirectory()
        Self.tree(folder, count: 120, bad: 1)
        let log = try runMerged(RepositoryPaths.executable, ["convert", "--json", folder.file("in"), "-o", folder.file("out")])
        #expect(log.status == 1)
        let errors = log.lines.filter { $0.hasPrefix("cafconv: error: ") }
        #expect(errors.count == 1, "\(log.text)")
        let json = log.lines.filter { !$0.hasPrefix("cafconv: error: ") }.joined(separator: "\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((object["files"] as? [Any])?.count == 121)
    }

    @Test("info --brief and verify 2>&1: each error right after its file's line, every line whole")
    func inspectLogIsWhole() throws {
        let folder = TempDirectory()
        var arguments: [String] = []
        for index in 0..<120 {
            arguments.append(folder.write("w\(index).wav", Self.small))
            if index % 40 == 0 { arguments.append(folder.write("junk\(index).wav", Array("junk".utf8))) }
        }
        let info = try runMerged(RepositoryPaths.executable, ["info", "--brief"] + arguments)
        #expect(info.status == 1)
        var previous = ""
        var errors = 0
        for line in info.lines {
            if line.hasPrefix("cafconv: error: ") {
                errors += 1
                let path = try #require(line.wholeMatch(of: #/cafconv: error: (.+/junk\d+\.wav): .+/#)?.1, "\(line)")
                #expect(previous.hasPrefix(path + ": "), "the error for \(path) follows \(previous)")
            } else {
                #expect(
                    line.wholeMatch(
                        of:
                            #/.+/w\d+\.wav: WAV audio, 16-bit signed integer, little-endian, mono, 44100 Hz, 100 frames \(0\.002 s\)/#
                    )
                        != nil || line.wholeMatch(of: #/.+/junk\d+\.wav: .+/#) != nil, "\(line.debugDescription)")
            }
            previous = line
        }
        #expect(errors == 3)

        #expect(try run(RepositoryPaths.executable, ["convert", "-q", folder.path, "-o", folder.file("out")]).status == 1)
        let verify = try runMerged(RepositoryPaths.executable, ["verify", folder.file("out")])
        #expect(verify.status == 0)
        #expect(verify.lines.dropLast().allSatisfy { $0.wholeMatch(of: #/.+/out/w\d+\.caf: ok/#) != nil }, "\(verify.text)")
        #expect(verify.lines.count == 121 && verify.lines.last == "120 passed, 0 failed", "\(verify.text)")
    }

    // MARK: errors when they happen

    @Test("an error is printed when its file fails, while the run goes on; the failed files are listed before the summary")
    func errorsWhenTheyHappen() throws {
        let folder = TempDirectory()
        slowBatch(folder, files: 3)
        folder.write("in/0-bad.wav", Array("junk".utf8))  // sorted first: with -j 1 it fails first
        let process = try WatchedProcess(
            RepositoryPaths.executable, ["convert", "-j", "1", "-d", "alac", folder.file("in"), "-o", folder.file("out")])
        let seen = process.read(until: "cafconv: error: ")
        // With -j 1 the bad file fails first; the last file cannot be done yet.
        #expect(seen.found && !exists(folder.file("out/tone 2 é.caf")), "the error came only after the run: \(process.text)")
        #expect(!process.text.contains(" -> "), "results are printed after the run, errors before")
        #expect(process.finish() == 1)
        let lines = process.text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("cafconv: error: \(folder.file("in/0-bad.wav")): not audio cafconv can read") == true)
        #expect(lines.suffix(3).first == "cafconv: 1 file failed:", "\(process.text)")
        #expect(lines.suffix(2).first?.hasPrefix("  \(folder.file("in/0-bad.wav")): not audio cafconv can read") == true)
        #expect(lines.last?.hasPrefix("3 converted, 1 failed (") == true, "\(process.text)")
    }

    @Test(
        "on a terminal, an error is printed above the progress line, which is drawn again", .enabled(if: which("script") != nil))
    func errorsAboveTheProgressLine() throws {
        let folder = TempDirectory()
        slowBatch(folder, files: 3, frames: 300_000)
        folder.write("in/tone 1 bad.wav", Array("junk".utf8))  // second in sorted order: after a progress line
        let command =
            "env TERM=xterm NO_COLOR=1 '\(RepositoryPaths.executable)' convert -j 1 -d alac '\(folder.file("in"))' -o '\(folder.file("out"))'"
        let screen = try run(try #require(which("script")), ["-qec", command, "/dev/null"]).text
        let error = try #require(screen.range(of: "cafconv: error: "), "\(screen)")
        // The error starts a line of its own: the progress line was drawn (the first file's
        // frames, and "1/4 files" unless the ten-a-second limit held that step back), then erased.
        let before = screen[..<error.lowerBound]
        #expect(
            before.contains("\r1/4 files, ") || before.contains("\r\(folder.file("in/tone 0 é.wav")): "), "\(screen.debugDescription)")
        #expect(before.last == "\r", "\(screen.debugDescription)")
        // ...drawn again below it as the run stands (two files done: the failed one counts), and
        // the run was still going: the line is drawn after it, up to 4/4.
        let after = screen[error.upperBound...]
        let redrawn = try #require(after.range(of: "\n"), "\(screen.debugDescription)")
        #expect(after[redrawn.upperBound...].hasPrefix("2/4 files, "), "\(screen.debugDescription)")
        #expect(after.contains("\r4/4 files, "), "\(screen.debugDescription)")
    }

    // MARK: gates

    @Test("convert on a folder without WAV files fails (also --check and --dry-run); with other inputs too")
    func convertNothing() throws {
        let folder = TempDirectory()
        folder.write("empty/readme.txt", Array("no sound here".utf8))
        folder.write("full/a.wav", Self.small)
        for extra in [[], ["--check"], ["--dry-run"], ["--json"]] {
            let result = try run(
                RepositoryPaths.executable, ["convert"] + extra + [folder.file("empty"), "-o", folder.file("out")])
            #expect(result.status == 1, "\(extra): \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "cafconv: error: \(folder.file("empty")): no audio files found (*.wav, *.wave, "),
                "\(extra): \(result.stderr)")
        }
        let mixed = try run(
            RepositoryPaths.executable, ["convert", folder.file("full"), folder.file("empty"), "-o", folder.file("out")])
        #expect(mixed.status == 1)
        #expect(mixed.stderr.contains("\n1 converted, 1 failed, 1 ignored ("), "\(mixed.stderr)")
    }

    @Test("verify on a folder without CAF files fails, naming the folder (also with -q and --json)")
    func verifyNothing() throws {
        let folder = TempDirectory()
        folder.write("sounds/a.wav", Self.small)
        let empty = folder.file("sounds")
        let result = try run(RepositoryPaths.executable, ["verify", empty])
        #expect(result.status == 1)
        #expect(result.text == "\(empty): caf-files: expected at least one *.caf file, found none\n")
        #expect(result.stderr == "0 passed, 1 failed (no CAF files found under \(empty))\n")
        let quiet = try run(RepositoryPaths.executable, ["verify", "-q", empty])
        #expect(quiet.status == 1 && quiet.text == result.text && quiet.stderr == result.stderr)
        let json = try run(RepositoryPaths.executable, ["verify", "--json", empty])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect((object["totals"] as? [String: Any])?["failed"] as? Int == 1)
        // A folder with CAF files beside an empty one: still a failure.
        #expect(
            try run(RepositoryPaths.executable, ["convert", "-q", folder.file("sounds/a.wav"), "-o", folder.file("made/a.caf")])
                .status == 0)
        let both = try run(RepositoryPaths.executable, ["verify", folder.file("made"), empty])
        #expect(both.status == 1 && both.stderr == "1 passed, 1 failed (no CAF files found under \(empty))\n", "\(both.stderr)")
    }

    // MARK: --check

    @Test("--check lists exactly what is missing, out of date or orphaned (also with -q) and one summary line")
    func checkSaysWhat() throws {
        let folder = TempDirectory()
        for name in ["a", "b", "keep"] { folder.write("in/\(name).wav", Self.small) }
        let paths = [folder.file("in"), "-o", folder.file("out")]
        #expect(try run(RepositoryPaths.executable, ["convert", "-q"] + paths).status == 0)

        let current = try run(RepositoryPaths.executable, ["convert", "--check"] + paths)
        #expect(current.status == 0 && current.text.isEmpty)
        #expect(current.stderr == "check passed: 3 up to date; nothing written\n")
        let quietCurrent = try run(RepositoryPaths.executable, ["convert", "--check", "-q"] + paths)
        #expect(quietCurrent.status == 0 && quietCurrent.text.isEmpty && quietCurrent.stderr.isEmpty)

        unlink(folder.file("in/a.wav"))
        folder.write("in/b.wav", WAVFixture.signal(.int16, channels: 1, frames: 101).bytes)
        folder.write("in/c.wav", Self.small)
        let expected = [
            "out of date: \(folder.file("out/b.caf")) (the source changed)",
            "missing: \(folder.file("out/c.caf")) (from \(folder.file("in/c.wav")))",
            "orphaned: \(folder.file("out/a.caf")) (its source \(folder.file("in/a.wav")) is gone)",
        ]
        for quiet in [false, true] {
            let check = try run(RepositoryPaths.executable, ["convert", "--check"] + (quiet ? ["-q"] : []) + paths)
            #expect(check.status == 1)
            #expect(check.text == expected.joined(separator: "\n") + "\n", "quiet \(quiet): \(check.text)")
            #expect(check.stderr == "check failed: 1 missing, 1 out of date, 1 orphaned, 1 up to date; nothing written\n")
        }
        let verbose = try run(RepositoryPaths.executable, ["convert", "--check", "-v"] + paths)
        #expect(verbose.text.contains("up to date: \(folder.file("out/keep.caf"))\n"))
    }

    // MARK: a file in the way

    @Test(
        "a folder (or several inputs) onto an existing file, or under one: one usage error, exit 64, nothing written",
        arguments: ["file", "file/", "file/deeper"])
    func fileInTheWay(output: String) throws {
        let folder = TempDirectory()
        Self.tree(folder, count: 30, bad: 0)
        folder.write("file", Array("I am a file".utf8))
        for inputs in [[folder.file("in")], [folder.file("in/even/tone-0.wav"), folder.file("in/even/tone-2.wav")]] {
            let result = try run(RepositoryPaths.executable, ["convert"] + inputs + ["-o", folder.file(output)])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.components(separatedBy: "error:").count == 2, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("cafconv: error: -o \(folder.file(output))"), "\(result.stderr)")
            #expect(result.stderr.contains("\(folder.file("file")) is a file") || result.stderr.contains(" is a file, but"))
            #expect(result.stderr.contains("\nUsage: cafconv convert "))
            #expect(result.stdout.isEmpty)
        }
        #expect(readFile(folder.file("file")) == Array("I am a file".utf8))
        // One input file into a file under a file is the same mistake.
        if output == "file/deeper" {
            let single = try run(
                RepositoryPaths.executable, ["convert", folder.file("in/even/tone-0.wav"), "-o", folder.file(output)])
            #expect(single.status == 64, "\(single.stderr)")
        }
        // One input file onto an existing file is how a single output file is named: not an error.
        let one = try run(RepositoryPaths.executable, ["convert", folder.file("in/even/tone-0.wav"), "-o", folder.file("file")])
        #expect(one.status == 0, "\(one.stderr)")
    }

    // MARK: --prune

    @Test("--prune removes the folders that only held pruned outputs, and no other folder")
    func pruneFolders() throws {
        let folder = TempDirectory()
        folder.write("in/gone/deeper/a.wav", Self.small)
        folder.write("in/gone/b.wav", Self.small)
        folder.write("in/mixed/c.wav", Self.small)
        folder.write("in/mixed/d.wav", Self.small)
        folder.write("in/kept/e.wav", Self.small)
        let paths = [folder.file("in"), "-o", folder.file("out")]
        #expect(try run(RepositoryPaths.executable, ["convert", "-q"] + paths).status == 0)
        mkdir(folder.file("out/empty-before"), 0o755)
        folder.write("out/kept/notes.txt", Array("mine".utf8))
        TempDirectory.removeTree(folder.file("in/gone"))
        unlink(folder.file("in/mixed/c.wav"))
        unlink(folder.file("in/kept/e.wav"))
        let result = try run(RepositoryPaths.executable, ["convert", "--prune"] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("1 up to date, 0 failed, 4 pruned"), "\(result.stderr)")
        #expect(!exists(folder.file("out/gone")), "a folder that held only pruned outputs stays")
        #expect(exists(folder.file("out/mixed/d.caf")) && !exists(folder.file("out/mixed/c.caf")))
        #expect(exists(folder.file("out/kept/notes.txt")), "a folder holding another file is kept")
        #expect(exists(folder.file("out/empty-before")), "a folder cafconv did not empty is kept")
        #expect(exists(folder.file("out/.cafconv-manifest")))
    }

    @Test("--prune that keeps a changed orphan says why, and never that --prune deletes it")
    func pruneKeepsChangedOrphan() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.small)
        folder.write("in/b.wav", Self.small)
        let paths = [folder.file("in"), "-o", folder.file("out")]
        #expect(try run(RepositoryPaths.executable, ["convert", "-q"] + paths).status == 0)
        unlink(folder.file("in/a.wav"))
        folder.write("out/a.caf", Array("edited by hand".utf8))
        let result = try run(RepositoryPaths.executable, ["convert", "--prune"] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(exists(folder.file("out/a.caf")))
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("a.caf: orphaned") })
        #expect(line.contains("not pruned: changed since cafconv wrote it"), "\(line)")
        #expect(!line.contains("--prune deletes it"), "\(line)")
    }

    @Test("--prune beside the inputs removes a folder it left empty, never the input folder")
    func pruneBeside() throws {
        let folder = TempDirectory()
        folder.write("in/sub/a.wav", Self.small)
        folder.write("in/b.wav", Self.small)
        #expect(try run(RepositoryPaths.executable, ["convert", "-q", folder.file("in")]).status == 0)
        TempDirectory.removeTree(folder.file("in/sub/a.wav"))
        let result = try run(RepositoryPaths.executable, ["convert", "--prune", folder.file("in")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!exists(folder.file("in/sub/a.caf")))
        #expect(!exists(folder.file("in/sub")), "the folder held only the pruned output")
        #expect(exists(folder.file("in/b.caf")))
    }

    // MARK: info

    @Test("info walks folders like verify: sorted, audio files only; a folder without any is an error")
    func infoWalksFolders() throws {
        let folder = TempDirectory()
        folder.write("lib/b/z.wav", Self.small)
        folder.write("lib/a.WAV", Self.small)
        folder.write("lib/notes.txt", Array("text".utf8))
        folder.write("lib/.hidden.wav", Self.small)
        #expect(
            try run(RepositoryPaths.executable, ["convert", "-q", folder.file("lib/a.WAV"), "-o", folder.file("lib/c.caf")])
                .status == 0)
        let brief = try run(RepositoryPaths.executable, ["info", "--brief", folder.file("lib")])
        #expect(brief.status == 0, "\(brief.stderr)")
        let paths = brief.text.split(separator: "\n").map { String($0.prefix(while: { $0 != ":" })) }
        #expect(paths == ["lib/a.WAV", "lib/b/z.wav", "lib/c.caf"].map { folder.file($0) }, "\(brief.text)")
        let json = try run(RepositoryPaths.executable, ["info", "--json", folder.file("lib") + "/"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])
        #expect(array.compactMap { $0["path"] as? String } == ["lib/a.WAV", "lib/b/z.wav", "lib/c.caf"].map { folder.file($0) })
        folder.write("none/readme.txt", Array("text".utf8))
        let none = try run(RepositoryPaths.executable, ["info", folder.file("none")])
        #expect(none.status == 1)
        #expect(none.stderr.hasPrefix("cafconv: error: \(folder.file("none")): no audio files found"), "\(none.stderr)")
        // --json: the folder is an entry of the array, with its error, and the status is 1.
        let noneJSON = try run(RepositoryPaths.executable, ["info", "--json", folder.file("none")])
        #expect(noneJSON.status == 1)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(noneJSON.stdout)) as? [[String: Any]])
        #expect(entries.count == 1, "\(noneJSON.text)")
        #expect(entries.first?["path"] as? String == folder.file("none"))
        #expect((entries.first?["error"] as? String)?.hasPrefix("no audio files found") == true, "\(noneJSON.text)")
    }

    @Test("info --brief prints each file's warnings on stderr, right after its line")
    func briefWarnings() throws {
        let folder = TempDirectory()
        let bytes = WAVFixture.signal(.int16, channels: 1, frames: 1000).bytes
        let cut = folder.write("cut.wav", Array(bytes.prefix(1000)))
        let whole = folder.write("whole.wav", bytes)
        let log = try runMerged(RepositoryPaths.executable, ["info", "--brief", cut, whole])
        #expect(log.status == 0)
        #expect(log.lines.count == 4, "\(log.text)")
        #expect(log.lines.first?.hasPrefix("\(cut): WAV audio") == true && log.lines.first?.hasSuffix(" [2 warnings]") == true)
        #expect(log.lines.dropFirst().prefix(2).allSatisfy { $0.hasPrefix("cafconv: warning: \(cut): ") }, "\(log.text)")
        #expect(log.lines.last?.hasPrefix("\(whole): WAV audio") == true)
    }

    // MARK: completion and manual

    @Test("bash completion offers folders and the files each command reads", .enabled(if: which("bash") != nil))
    func bashCompletion() throws {
        let folder = TempDirectory()
        for name in ["sub/x.wav", "a.wav", "b.WAV", "c.txt", "d.caf", "e.aiff"] { folder.write("sounds/" + name, Self.small) }
        let script = folder.write(
            "cafconv.bash", try run(RepositoryPaths.executable, ["--generate-completion-script", "bash"]).stdout)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let command = """
                source '\(script)'; cd '\(folder.file("sounds"))'; COMP_WORDS=(cafconv \(quoted)); \
                COMP_CWORD=\(words.count); _cafconv; printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try run(try #require(which("bash")), ["-c", command])
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            return result.text.split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete(["convert", ""]) == ["a.wav", "b.WAV", "d.caf", "e.aiff", "sub"])
        #expect(try complete(["convert", "sub/"]) == ["sub/x.wav"])
        #expect(try complete(["info", ""]) == ["a.wav", "b.WAV", "d.caf", "e.aiff", "sub"])
        #expect(try complete(["verify", ""]) == ["d.caf", "sub"])
        #expect(try complete(["verify", "--against", ""]) == ["a.wav", "b.WAV", "d.caf", "e.aiff", "sub"])
        #expect(try complete(["convert", "-o", ""]).contains("c.txt"), "any name can be an output")
    }

    @Test("fish completion offers folders and the files each command reads", .enabled(if: which("fish") != nil))
    func fishCompletion() throws {
        let folder = TempDirectory()
        for name in ["sub/x.wav", "a.wav", "b.WAV", "c.txt", "d.caf", "e.aiff"] { folder.write("sounds/" + name, Self.small) }
        let script = folder.write(
            "cafconv.fish", try run(RepositoryPaths.executable, ["--generate-completion-script", "fish"]).stdout)
        func complete(_ line: String) throws -> [String] {
            let command = "source '\(script)'; cd '\(folder.file("sounds"))'; complete -C '\(line)'"
            let result = try run(try #require(which("fish")), ["-c", command])
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            return result.text.split(separator: "\n").map { String($0.prefix(while: { $0 != "\t" })) }.sorted()
        }
        #expect(try complete("cafconv convert ") == ["a.wav", "b.WAV", "d.caf", "e.aiff", "sub/"])
        #expect(try complete("cafconv convert sub/") == ["sub/x.wav"])
        #expect(try complete("cafconv info ") == ["a.wav", "b.WAV", "d.caf", "e.aiff", "sub/"])
        #expect(try complete("cafconv verify ") == ["d.caf", "sub/"])
    }

    @Test("the manual is dated by SOURCE_DATE_EPOCH, else by the build, and has FILES, ENVIRONMENT and EXAMPLES")
    func manualSections() throws {
        let dated = try run(RepositoryPaths.executable, ["--generate-manual"], environment: ["SOURCE_DATE_EPOCH": "1795000000"])
        #expect(dated.text.contains("\n.Dd November 18, 2026\n"), "\(dated.text.prefix(200))")
        let built = try run(RepositoryPaths.executable, ["--generate-manual"], environment: ["SOURCE_DATE_EPOCH": ""])
        let modified = try #require(
            try FileManager.default.attributesOfItem(atPath: RepositoryPaths.executable)[.modificationDate] as? Date)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "MMMM d, yyyy"
        #expect(built.text.contains("\n.Dd \(formatter.string(from: modified))\n"), "\(built.text.prefix(200))")
        for part in [
            ".Sh FILES", ".It Pa \\&.cafconv-manifest", ".Sh ENVIRONMENT", ".It Ev NO_COLOR", ".Sh EXAMPLES",
            ".Dl cafconv convert Sounds -o Build/Sounds",
        ] {
            #expect(dated.text.contains("\n" + part + "\n"), "the manual lacks \(part)")
        }
        let sections = dated.text.split(separator: "\n").filter { $0.hasPrefix(".Sh ") }.map { String($0.dropFirst(4)) }
        #expect(sections == ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "FILES", "ENVIRONMENT", "EXAMPLES"])
    }

    // MARK: wording

    @Test("one frame is a frame; one file failed")
    func singular() throws {
        let folder = TempDirectory()
        let input = folder.write("one.wav", WAVFixture.signal(.int16, channels: 1, frames: 1).bytes)
        let convert = try run(RepositoryPaths.executable, ["convert", input, "-o", folder.file("one.caf")])
        #expect(convert.text.hasSuffix(", 44100 Hz, 1 frame)\n"), "\(convert.text)")
        let info = try run(RepositoryPaths.executable, ["info", "--brief", folder.file("one.caf")])
        #expect(info.text.contains(", 1 frame ("), "\(info.text)")
        let block = try run(RepositoryPaths.executable, ["info", folder.file("one.caf")])
        #expect(!block.text.contains(" 1 frames") && !block.text.contains(" 1 bytes"), "\(block.text)")
    }

    @Test("usage errors and file errors start alike: cafconv: error:")
    func oneErrorPrefix() throws {
        let folder = TempDirectory()
        let usage = try run(RepositoryPaths.executable, ["convert", "--nope", "x.wav"])
        let file = try run(RepositoryPaths.executable, ["convert", folder.write("x.wav", Array("junk".utf8))])
        let info = try run(RepositoryPaths.executable, ["info", folder.file("missing.caf")])
        for result in [usage, file, info] {
            #expect(result.stderr.hasPrefix("cafconv: error: "), "\(result.stderr)")
            #expect(!result.stderr.contains("Error: "), "\(result.stderr)")
        }
    }

    // MARK: first contact

    @Test("the README's example of combined short flags is valid")
    func readmeShortFlags() throws {
        let readme = try RepositoryPaths.documentation()
        let sentence = try #require(readme.range(of: "short flags combine"), "the README no longer says how flags combine")
        let rest = readme[sentence.upperBound...].prefix(while: { $0 != ";" })
        let examples = rest.matches(of: #/`(-[^`]+)`/#).map { String($0.1) }
        #expect(!examples.isEmpty)
        for example in examples {
            let result = try run(
                RepositoryPaths.executable,
                ["convert", "--dry-run"] + example.split(separator: " ").map(String.init) + ["missing.wav"])
            #expect(result.status != 64, "\(example): \(result.stderr)")
        }
    }

    @Test("help and the README give the exit statuses, including the gates")
    func exitStatusesDocumented() throws {
        let readme = try RepositoryPaths.documentation()
        for (command, phrase) in [
            ("convert", "a folder held no audio file"), ("verify", "a folder held no CAF file"),
            ("info", "a folder held no audio file"),
        ] {
            let help = try run(RepositoryPaths.executable, [command, "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            #expect(help.contains(phrase), "\(command) --help lacks \(phrase)")
        }
        for phrase in ["| 64 |", "no audio file for `convert`", "no CAF file", ".build/release/cafconv", "make install PREFIX="] {
            #expect(readme.contains(phrase), "README lacks \(phrase)")
        }
    }
}

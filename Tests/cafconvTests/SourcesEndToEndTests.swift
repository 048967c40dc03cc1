import Foundation
import TestSupport
import Testing

/// `cafconv convert` on sources other tools made, and afconvert's grammar, on the built binary.
@Suite("cafconv convert: every source, afconvert's grammar, end to end")
struct SourcesEndToEndTests {
    static let small = WAVFixture.signal(.int16, channels: 2, frames: 1000).bytes

    @Test(
        "AIFF (sox) and big-endian CAF (ffmpeg) in a folder: converted, listed, proven, verified against their sources",
        .enabled(if: which("sox") != nil && which("ffmpeg") != nil, "needs sox and ffmpeg to make the sources"))
    func otherToolsSources() throws {
        let folder = TempDirectory()
        let wav = folder.write("src.wav", Self.small)
        folder.write("in/.keep", [])
        #expect(try run(try #require(which("sox")), [wav, folder.file("in/from-sox.aiff")]).status == 0)
        let ffmpeg = try #require(which("ffmpeg"))
        #expect(
            try run(ffmpeg, ["-v", "error", "-i", wav, "-c:a", "pcm_s16be", folder.file("in/from-ffmpeg.caf")]).status == 0)
        folder.write("in/notes.txt", Array("x".utf8))
        let result = try run(
            RepositoryPaths.executable, ["convert", "-v", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.text.contains("from-sox.aiff -> \(folder.file("out/from-sox.caf")) (BEI16 -> LEI16, 2 ch"), "\(result.text)")
        #expect(result.text.contains("from-ffmpeg.caf -> \(folder.file("out/from-ffmpeg.caf")) (BEI16 -> LEI16, 2 ch"))
        #expect(result.text.contains("source decoded by cafconv"))
        #expect(result.text.contains("ignored: \(folder.file("in/notes.txt")) (not an audio file name)"))
        #expect(
            result.stderr.hasSuffix(")\n") && result.stderr.contains("2 converted, 0 failed, 1 ignored ("), "\(result.stderr)")
        let verify = try run(
            RepositoryPaths.executable, ["verify", "--endian", "little", "--against", folder.file("in"), folder.file("out")])
        #expect(verify.status == 0, "\(verify.text)\(verify.stderr)")
        // --json counts the ignored file and lists it with its reason.
        let json = try run(
            RepositoryPaths.executable, ["convert", "--json", folder.file("in"), "-o", folder.file("out")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let totals = try #require(object["totals"] as? [String: Any])
        #expect(totals["ignored"] as? Int == 1 && totals["upToDate"] as? Int == 2)
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.contains { $0["status"] as? String == "ignored" && $0["reason"] as? String == "not an audio file name" })
    }

    @Test("afconvert's grammar: -f caff, -d in any case, the names cafconv prints")
    func afconvertGrammar() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", Self.small)
        for (format, expected) in [("lei16", "LEI16"), ("bEf32", "BEF32"), ("alac16", "alac16"), ("ALAC", "alac16")] {
            let output = folder.file("out-\(format).caf")
            let result = try run(RepositoryPaths.executable, ["convert", "-f", "caff", "-d", format, input, "-o", output])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(result.text.contains("(LEI16 -> \(expected), 2 ch"), "\(format): \(result.text)")
        }
        let info = try run(RepositoryPaths.executable, ["info", "--brief", folder.file("out-alac16.caf")])
        #expect(info.text.contains("Apple Lossless"), "\(info.text)")
    }

    @Test(
        "usage errors for what cafconv does not do, naming afconvert's option",
        arguments: [
            (["-f", "WAVE"], "-f WAVE: cafconv writes CAF only; use -f caff or leave -f out"),
            (["--bitrate", "128000"], "afconvert's --bitrate is not supported: cafconv's AAC takes only the bit rate, -b"),
            (["--quality", "127"], "afconvert's --quality is not supported"),
            (["-s", "3"], "-s sets the bit-rate strategy of -d"),
            (["-d", "opus", "-s", "9"], "-s 9: the strategy is 0 (constant bit rate) to 3 (variable)"),
            (["-d", "aac", "-s", "0"], "-s 0 asks for a constant bit rate, which -d aac cannot give: libavcodec's AAC"),
            (["--src-complexity", "mats"], "afconvert's --src-complexity is not supported: cafconv resamples with libsoxr"),
            (["-c", "0"], "--channels must be from 1 to 1024"),
            (["-l", "Stereo"], "afconvert's -l is not supported"),
            (["--soundcheck-generate"], "afconvert's --soundcheck-generate is not supported"),
            (["--include", "[ab"], "'[ab': '[' without a closing ']'"),
            (["--bogus"], "Unknown option '--bogus'"),
        ])
    func usageErrors(arguments: [String], message: String) throws {
        let result = try run(RepositoryPaths.executable, ["convert"] + arguments + ["x.wav"])
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    }

    @Test("--include and --exclude on the command line, repeated")
    func includeExclude() throws {
        let folder = TempDirectory()
        for name in ["a/x.wav", "a/y.wav", "b/x.wav", "b/old/z.wav"] { folder.write("in/" + name, Self.small) }
        let result = try run(
            RepositoryPaths.executable,
            [
                "convert", "-v", "--include", "a/**", "--include", "**/old/*", "--exclude", "*y*", folder.file("in"), "-o",
                folder.file("out"),
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(exists(folder.file("out/a/x.caf")) && exists(folder.file("out/b/old/z.caf")))
        #expect(!exists(folder.file("out/a/y.caf")) && !exists(folder.file("out/b/x.caf")))
        #expect(result.text.contains("ignored: \(folder.file("in/a/y.wav")) (excluded by --exclude *y*)"), "\(result.text)")
        #expect(result.text.contains("ignored: \(folder.file("in/b/x.wav")) (matches no --include pattern)"))
        #expect(result.stderr.contains("2 converted, 0 failed, 2 ignored ("), "\(result.stderr)")
    }

    @Test("the README's source table, convert --help and the manual page list the same audio extensions")
    func documentedExtensions() throws {
        let readme = try RepositoryPaths.documentation()
        let section = try #require(readme.components(separatedBy: "## Sources: what `convert` reads").last)
        let table = section.components(separatedBy: "\n\n").dropFirst().first { $0.hasPrefix("| source") } ?? ""
        var documented = Set<String>()
        for row in table.split(separator: "\n") {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { continue }
            for word in cells[2].replacingOccurrences(of: "`", with: " ").split(separator: " ") where word.hasPrefix(".") {
                documented.insert(String(word.dropFirst()))
            }
        }
        let help = try run(RepositoryPaths.executable, ["convert", "--help"]).text.replacingOccurrences(of: "\n", with: " ")
        let manual = try run(RepositoryPaths.executable, ["--generate-manual"]).text.replacingOccurrences(of: "\n", with: " ")
        func listed(_ text: String) -> Set<String> {
            var found = Set<String>()
            var rest = Substring(text)
            while let star = rest.range(of: "*.") {
                rest = rest[star.upperBound...]
                let word = rest.prefix { $0.isLetter || $0.isNumber }
                if !word.isEmpty { found.insert(String(word)) }
            }
            return found
        }
        #expect(documented.count >= 15, "\(documented)")
        #expect(listed(help) == documented, "convert --help: \(listed(help)), README: \(documented)")
        #expect(listed(manual).isSuperset(of: documented), "manual: \(listed(manual)), README: \(documented)")
        // The SwiftPM plugin cannot import cafconv's libraries: its copy of the list must match.
        let plugin = try String(contentsOfFile: RepositoryPaths.root + "/Plugins/CAFConvPlugin/CAFConvPlugin.swift", encoding: .utf8)
        let literal = try #require(plugin.components(separatedBy: "static let audioExtensions: Set<String> = [").last?
            .components(separatedBy: "]").first)
        let pluginList = Set(literal.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines.union(.init(charactersIn: "\""))) }.filter { !$0.isEmpty })
        #expect(pluginList == documented, "plugin: \(pluginList), README: \(documented)")
    }
}

import Foundation
import TestSupport
import Testing

/// `convert --loudness TARGET --loudness-group folder|NAME` (and the rules key `loudness-group`):
/// one gain for a group of files, measured together (album gain), end to end.
@Suite("convert --loudness-group, end to end")
struct LoudnessGroupEndToEndTests {
    typealias Normalise = LoudnessNormalisationEndToEndTests

    /// A stereo 1 kHz sine at 48 kHz: `dBFS` for `seconds`, then (when `then` is given) the
    /// second level for as long; a full-scale sample pair at frame `click` if given.
    static func tone(_ dBFS: Double, seconds: Double, then: Double? = nil, click: Int? = nil) -> [UInt8] {
        let frames = Int(seconds * 48_000)
        let levels = [dBFS] + (then.map { [$0] } ?? [])
        var samples = levels.flatMap { level in
            (0..<frames).flatMap { frame -> [Int32] in
                let value = Int32((pow(10, level / 20) * 32767 * sin(2 * Double.pi * 1000 * Double(frame) / 48_000)).rounded())
                return [value, value]
            }
        }
        if let click {
            samples[2 * click] = 32767
            samples[2 * click + 1] = 32767
        }
        return WAVFixture(encoding: .int16, channels: 2, sampleRate: 48_000, integers: samples).bytes(order: .little)
    }

    /// The report's files of `convert --json`, by file name.
    static func files(_ result: ProcessResult) throws -> [String: [String: Any]] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]], "\(result.stderr)")
        var found: [String: [String: Any]] = [:]
        for file in files {
            let input = try #require(file["input"] as? String)
            found[(input as NSString).lastPathComponent] = file
        }
        return found
    }

    /// `convert --json -d LEF32 --loudness TARGET --loudness-group folder` of `in` into `out`: the
    /// report's files, by name (the run must succeed).
    static func convertGrouped(_ folder: TempDirectory, target: Int) throws -> [String: [String: Any]] {
        let result = try run(
            RepositoryPaths.executable,
            [
                "convert", "--json", "-d", "LEF32", "--loudness", "\(target)", "--loudness-group", "folder", folder.file("in"),
                "-o", folder.file("out"),
            ])
        #expect(result.status == 0, "\(result.stderr)")
        return try files(result)
    }

    static func integrated(_ path: String) throws -> Double {
        try #require(try Normalise.measure(path)["integratedLUFS"] as? Double, "\(path)")
    }

    @Test(
        "a folder's files get one gain: their relative levels stay exactly, and the group's loudness is that of the files measured as one programme"
    )
    func relativeLevelsStay() throws {
        let folder = TempDirectory()
        let quiet = folder.write("in/stems/a.wav", Self.tone(-30, seconds: 5))
        let loud = folder.write("in/stems/b.wav", Self.tone(-20, seconds: 5))
        // The two as one programme: the first then the second.
        let joined = folder.write("joined.wav", Self.tone(-30, seconds: 5, then: -20))
        let out = folder.file("out")
        let files = try Self.convertGrouped(folder, target: -18)
        let a = try #require(files["a.wav"]?["loudness"] as? [String: Any], "\(files)")
        let b = try #require(files["b.wav"]?["loudness"] as? [String: Any], "\(files)")
        let gain = try #require(a["gain"] as? Double)
        #expect(b["gain"] as? Double == gain, "\(a) \(b)")
        #expect(a["groupFiles"] as? Int == 2 && (a["group"] as? String)?.hasSuffix("stems") == true, "\(a)")
        // The group's loudness is the joined programme's, and the gain takes it to the target.
        let whole = try Self.integrated(joined)
        let group = try #require(a["groupLoudness"] as? Double)
        #expect(abs(group - whole) <= 0.05, "group \(group), joined \(whole)")
        #expect(abs(gain - (-18 - group)) < 1e-9, "\(gain) \(group)")
        // Float output: the outputs keep the sources' 10 LU difference.
        let sourceDifference = try Self.integrated(loud) - Self.integrated(quiet)
        let outputDifference = try Self.integrated(out + "/stems/b.caf") - Self.integrated(out + "/stems/a.caf")
        #expect(abs(sourceDifference - outputDifference) < 0.01, "\(sourceDifference) \(outputDifference)")
        #expect(abs(sourceDifference - 10) < 0.1, "\(sourceDifference)")
    }

    @Test("the group's gain is capped by its loudest true peak: every member gets the capped gain and the warning")
    func cappedByLoudestPeak() throws {
        let folder = TempDirectory()
        let clicked = folder.write("in/cues/a.wav", Self.tone(-30, seconds: 3, click: 48_000))
        _ = folder.write("in/cues/b.wav", Self.tone(-30, seconds: 3))
        let peak = try #require(try Normalise.measure(clicked)["truePeakDBTP"] as? Double)
        let out = folder.file("out")
        let files = try Self.convertGrouped(folder, target: -16)
        for name in ["a.wav", "b.wav"] {
            let loudness = try #require(files[name]?["loudness"] as? [String: Any], "\(files)")
            let gain = try #require(loudness["gain"] as? Double)
            // The cap leaves the float output's rounding its room below the ceiling
            // (LoudnessGain.codingHeadroom: 0.0001 dB, the least it leaves).
            let headroom = 0.0001
            #expect(abs(gain - (-1 - headroom - peak)) < 1e-6, "\(name): \(gain), loudest true peak \(peak)")
            let warnings = "\(files[name]?["warnings"] ?? "")"
            #expect(warnings.contains("true peak limited to -1.0 dBTP"), "\(name): \(warnings)")
        }
        let outputPeak = try #require(try Normalise.measure(out + "/cues/a.caf")["truePeakDBTP"] as? Double)
        #expect(abs(outputPeak - -1) <= 0.05, "\(outputPeak)")
    }

    @Test("a changed, added or touched member redoes the whole group (its gain changes); an unchanged group is up to date")
    func incremental() throws {
        let folder = TempDirectory()
        _ = folder.write("in/music/a.wav", Self.tone(-30, seconds: 2))
        _ = folder.write("in/music/b.wav", Self.tone(-24, seconds: 2))
        _ = folder.write("in/sfx/c.wav", Self.tone(-24, seconds: 2))
        _ = folder.write(
            "in/cafconv.toml",
            Array(
                "[defaults]\nformat = \"LEF32\"\nloudness = -18\n\n[[rule]]\nmatch = \"music/**\"\nloudness-group = \"folder\"\n"
                    .utf8))
        let out = folder.file("out")
        let first = try run(RepositoryPaths.executable, ["convert", "--json", folder.file("in"), "-o", out])
        #expect(first.status == 0, "\(first.stderr)")
        let firstGain = try #require((try Self.files(first)["a.wav"]?["loudness"] as? [String: Any])?["gain"] as? Double)
        let again = try run(RepositoryPaths.executable, ["convert", folder.file("in"), "-o", out])
        #expect(again.stderr.contains("3 up to date"), "\(again.stderr)")
        // b louder: a is converted again with the new group gain; c (no group) is left alone.
        _ = folder.write("in/music/b.wav", Self.tone(-20, seconds: 2))
        let changed = try run(RepositoryPaths.executable, ["convert", "--json", folder.file("in"), "-o", out])
        let files = try Self.files(changed)
        #expect(files["a.wav"]?["status"] as? String == "converted", "\(files["a.wav"] ?? [:])")
        #expect(files["c.wav"]?["status"] as? String == "up-to-date", "\(files["c.wav"] ?? [:])")
        let newGain = try #require((files["a.wav"]?["loudness"] as? [String: Any])?["gain"] as? Double)
        #expect(newGain < firstGain - 1, "\(firstGain) -> \(newGain)")
        // A new member joins the group: the group is redone.
        _ = folder.write("in/music/d.wav", Self.tone(-26, seconds: 2))
        let added = try run(RepositoryPaths.executable, ["convert", folder.file("in"), "-o", out])
        #expect(added.stderr.contains("3 converted"), "\(added.stderr)")
        #expect(added.stderr.contains("1 up to date"), "\(added.stderr)")
    }

    @Test(
        "a name groups files across folders (rules key or command line); a silent member keeps the gain; an unmeasurable one fails the group"
    )
    func namedGroups() throws {
        let folder = TempDirectory()
        _ = folder.write("in/x/a.wav", Self.tone(-30, seconds: 2))
        _ = folder.write("in/y/b.wav", Self.tone(-22, seconds: 2))
        _ = folder.write(
            "in/y/silent.wav",
            WAVFixture(encoding: .int16, channels: 2, sampleRate: 48_000, integers: Array(repeating: 0, count: 96_000))
                .bytes(order: .little))
        _ = folder.write(
            "in/cafconv.toml", Array("[defaults]\nformat = \"LEF32\"\nloudness = -18\nloudness-group = \"cues\"\n".utf8))
        let result = try run(RepositoryPaths.executable, ["convert", "--json", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try Self.files(result)
        let gains = try ["a.wav", "b.wav", "silent.wav"].map { name in
            try #require((files[name]?["loudness"] as? [String: Any])?["gain"] as? Double, "\(files[name] ?? [:])")
        }
        #expect(Set(gains).count == 1, "\(gains)")
        #expect((files["a.wav"]?["loudness"] as? [String: Any])?["group"] as? String == "cues")
        // A file that is not audio in a group: every member fails, naming it.
        _ = folder.write("in/x/broken.wav", Array("RIFF....WAVEjunk".utf8))
        let broken = try run(
            RepositoryPaths.executable, ["convert", "--json", "--force", folder.file("in"), "-o", folder.file("out2")])
        #expect(broken.status == 1)
        let reason = try #require(try Self.files(broken)["a.wav"]?["reason"] as? String)
        #expect(reason.contains("--loudness-group cues") && reason.contains("broken.wav"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out2/x/a.caf")))
        let refused = try run(
            RepositoryPaths.executable,
            ["convert", "--loudness", "-18", "--loudness-group", "", folder.file("in/x/a.wav"), "-o", folder.file("z.caf")])
        #expect(refused.status != 0 && refused.stderr.contains("--loudness-group"), "\(refused.stderr)")
    }

    @Test(
        "loudness-group without a loudness target is refused: a usage error on the command line, a rule error naming the rules file and line"
    )
    func groupWithoutTarget() throws {
        let folder = TempDirectory()
        _ = folder.write("in/x/a.wav", Self.tone(-30, seconds: 1))
        let refused = try run(
            RepositoryPaths.executable, ["convert", "--loudness-group", "folder", folder.file("in"), "-o", folder.file("out")])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("loudness-group folder") && refused.stderr.contains("--loudness"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/x/a.caf")))
        // The rules key: a rule that groups files no loudness reaches fails them, naming the file and line.
        _ = folder.write("in/cafconv.toml", Array("[[rule]]\nmatch = \"x/**\"\nloudness-group = \"cues\"\n".utf8))
        let ruled = try run(RepositoryPaths.executable, ["convert", "--json", folder.file("in"), "-o", folder.file("out")])
        #expect(ruled.status == 1, "\(ruled.stderr)")
        let reason = try #require(try Self.files(ruled)["a.wav"]?["reason"] as? String, "\(ruled.stderr)")
        #expect(reason.contains("loudness-group cues") && reason.contains("cafconv.toml:1"), "\(reason)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out/x/a.caf")))
        // With a target beside it the same rule converts.
        _ = folder.write(
            "in/cafconv.toml", Array("[[rule]]\nmatch = \"x/**\"\nloudness = -20\nloudness-group = \"cues\"\n".utf8))
        let converted = try run(RepositoryPaths.executable, ["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(converted.status == 0, "\(converted.stderr)")
    }

    @Test("--shard: each shard plans the group's gain from every member, as one run does; the gather is up to date")
    func shards() throws {
        let folder = TempDirectory()
        for index in 1...6 { _ = folder.write("in/g/f\(index).wav", Self.tone(-5 * Double(index), seconds: 1)) }
        func gains(_ extra: [String], into out: String) throws -> [String: Double] {
            let result = try run(
                RepositoryPaths.executable,
                ["convert", "--json", "--loudness", "-20", "--loudness-group", "folder", folder.file("in"), "-o", out] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            return try Self.files(result).compactMapValues { ($0["loudness"] as? [String: Any])?["gain"] as? Double }
        }
        let whole = try gains([], into: folder.file("whole"))
        #expect(whole.count == 6)
        let gathered = folder.file("gathered")
        var sharded: [String: Double] = [:]
        for shard in ["1/2", "2/2"] {
            let out = folder.file("shard\(shard.prefix(1))")
            sharded.merge(try gains(["--shard", shard], into: out)) { $1 }
            _ = try run("/bin/cp", ["-r", out + "/.", gathered])
        }
        #expect(sharded.count == 6, "\(sharded)")
        for (name, gain) in whole { #expect(sharded[name] == gain, "\(name): \(sharded[name] ?? .nan) in its shard, \(gain) in one run") }
        let check = try run(
            RepositoryPaths.executable,
            ["convert", "--check", "--loudness", "-20", "--loudness-group", "folder", folder.file("in"), "-o", gathered])
        #expect(check.status == 0, "\(check.text)\(check.stderr)")
    }

    @Test("a group mixed to mono: each member is checked against its own mono loudness plus the group's one gain")
    func mixedGroup() throws {
        let folder = TempDirectory()
        // Stereo noise with uncorrelated channels: a mix to mono lowers it by 3 LU.
        _ = folder.write("in/g/a.wav", LoudnessPlanEndToEndTests.noise(channels: 2, seconds: 2, amplitude: 0.05, seed: 1))
        _ = folder.write("in/g/b.wav", LoudnessPlanEndToEndTests.noise(channels: 2, seconds: 2, amplitude: 0.02, seed: 2))
        let result = try run(
            RepositoryPaths.executable,
            [
                "convert", "--json", "-c", "1", "--loudness", "-20", "--loudness-group", "folder", folder.file("in"), "-o",
                folder.file("out"),
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try Self.files(result)
        let gains = Set(files.values.compactMap { ($0["loudness"] as? [String: Any])?["gain"] as? Double })
        #expect(gains.count == 1, "\(files)")
        // The relative level of the two stays: 20 log10(0.05 / 0.02) = 7.96 dB.
        let a = try Self.integrated(folder.file("out/g/a.caf"))
        let b = try Self.integrated(folder.file("out/g/b.caf"))
        #expect(abs((a - b) - 7.96) < 0.1, "\(a) and \(b)")
    }

    @Test("one member converted again (its output deleted) gets the group's gain, the members up to date still counted")
    func partlyUpToDate() throws {
        let folder = TempDirectory()
        _ = folder.write("in/g/a.wav", Self.tone(-10, seconds: 1))
        _ = folder.write("in/g/b.wav", Self.tone(-30, seconds: 1))
        let first = try Self.convertGrouped(folder, target: -20)
        let gain = try #require((first["b.wav"]?["loudness"] as? [String: Any])?["gain"] as? Double)
        try FileManager.default.removeItem(atPath: folder.file("out/g/b.caf"))
        let again = try Self.convertGrouped(folder, target: -20)
        let loudness = try #require(again["b.wav"]?["loudness"] as? [String: Any], "\(again)")
        #expect(loudness["gain"] as? Double == gain, "\(loudness)")
        #expect(loudness["groupFiles"] as? Int == 2, "\(loudness)")
        #expect(again["a.wav"]?["status"] as? String == "up-to-date", "\(again)")
    }

    @Test(
        "a capped group leaves its members' rounding room below the ceiling, and an integer output's ceiling is at most 0 dBTP",
        arguments: [("I8", -5.0, -1.0, -1.0), ("ulaw", -5.0, -1.0, -1.0), ("LEI16", 0.0, 3.0, 0.0)])
    func cappedGroupPassesTheGate(format: String, target: Double, ceiling: Double, gate: Double) throws {
        let folder = TempDirectory()
        _ = folder.write("in/g/a.wav", LoudnessPlanEndToEndTests.noise(channels: 1, seconds: 1, amplitude: 0.3, seed: 4))
        _ = folder.write("in/g/b.wav", LoudnessPlanEndToEndTests.noise(channels: 1, seconds: 1, amplitude: 0.2, seed: 5))
        let result = try run(
            RepositoryPaths.executable,
            [
                "convert", "-d", format, "--loudness", "\(target)", "--true-peak", "\(ceiling)", "--loudness-group", "folder",
                folder.file("in"), "-o", folder.file("out"),
            ])
        #expect(result.status == 0, "\(format): \(result.stderr)")
        let verified = try run(
            RepositoryPaths.executable, ["verify", "--max-true-peak", "\(gate)", folder.file("out/g/a.caf"), folder.file("out/g/b.caf")])
        #expect(verified.status == 0, "\(format): \(verified.text)\(verified.stderr)")
    }
}

import Foundation
import TestSupport
import Testing

@Suite("cafconv info and verify, end to end")
struct InspectVerifyEndToEndTests {
    static let wav = WAVFixture.signal(.int24, channels: 2, frames: 480, sampleRate: 48000).bytes

    /// Converts a fixture with the binary and returns the folder, the WAV and the CAF.
    func made(_ arguments: [String] = []) throws -> (TempDirectory, String, String) {
        let folder = TempDirectory()
        let wav = folder.write("a.wav", Self.wav)
        let caf = folder.file("a.caf")
        let result = try run(RepositoryPaths.executable, ["convert", "-q", wav, "-o", caf] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return (folder, wav, caf)
    }

    @Test("info: text, brief and JSON with the keys the README lists")
    func info() throws {
        let (folder, wav, caf) = try made()
        defer { withExtendedLifetime(folder) {} }
        let text = try run(RepositoryPaths.executable, ["info", caf])
        #expect(text.status == 0)
        #expect(text.text.contains("24-bit signed integer, little-endian"))
        #expect(text.text.contains("Frames:          480"))
        let brief = try run(RepositoryPaths.executable, ["info", "--brief", caf, wav])
        #expect(brief.text.split(separator: "\n").count == 2)
        #expect(brief.text.contains("CAF audio, 24-bit signed integer, little-endian, stereo, 48000 Hz, 480 frames"))
        let json = try run(RepositoryPaths.executable, ["info", "--json", caf])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])
        let object = try #require(array.first)
        // These keys are always written, null or empty when unknown (a missing file has only them).
        let always: Set = [
            "path", "container", "format", "sampleRate", "channels", "bitsPerChannel", "isFloat", "byteOrder",
            "frames", "durationSeconds", "audioOffset", "audioBytes", "chunks", "warnings", "error", "info",
            "markers", "loops", "regions",
        ]
        #expect(always.isSubset(of: object.keys), "\(always.subtracting(object.keys))")
        #expect(object["error"] is NSNull && object["isFloat"] as? Bool == false)
        let missing = try run(RepositoryPaths.executable, ["info", "--json", folder.file("missing.caf")])
        let failed = try #require(try JSONSerialization.jsonObject(with: Data(missing.stdout)) as? [[String: Any]])
        #expect(Set(try #require(failed.first).keys) == always)
        #expect(object["byteOrder"] as? String == "little")
        #expect(object["frames"] as? Int == 480)
        #expect((object["chunks"] as? [[String: Any]])?.first?["type"] as? String == "desc")
    }

    @Test("info exits 1 naming the file when one is unreadable")
    func infoFails() throws {
        let folder = TempDirectory()
        let junk = folder.write("junk.caf", Array("caff-but-not-really".utf8))
        let result = try run(RepositoryPaths.executable, ["info", junk])
        #expect(result.status == 1)
        #expect(result.stderr.contains("junk.caf"))
        // The path is said once, by the report, not again inside the reason.
        let missing = folder.file("missing.caf")
        let gone = try run(RepositoryPaths.executable, ["info", missing])
        #expect(gone.status == 1)
        #expect(gone.stderr == "cafconv: error: \(missing): No such file or directory\n", "\(gone.stderr)")
    }

    @Test("verify: exit 0 on a good file, 1 with one line per failure, 64 on usage errors")
    func verify() throws {
        let (folder, wav, caf) = try made()
        let good = try run(RepositoryPaths.executable, ["verify", "--endian", "little", "--against", wav, caf])
        #expect(good.status == 0, "\(good.text)\(good.stderr)")
        let bad = try run(RepositoryPaths.executable, ["verify", "--endian", "big", "--rate", "44100", caf])
        #expect(bad.status == 1)
        #expect(bad.text.contains("\(caf): byte-order: expected big, found little"))
        #expect(bad.text.contains("\(caf): sample-rate: expected 44100.0, found 48000.0"))
        let json = try run(RepositoryPaths.executable, ["verify", "--json", "--profile", "ios-notification", folder.path])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect((object["totals"] as? [String: Any])?["passed"] as? Int == 1)
        #expect(try run(RepositoryPaths.executable, ["verify", "--profile", "android", caf]).status == 64)
        #expect(try run(RepositoryPaths.executable, ["verify"]).status == 64)
        let conflict = try run(RepositoryPaths.executable, ["verify", "-d", "LEI16", "--endian", "big", caf])
        #expect(conflict.status == 64)
        #expect(conflict.stderr.hasPrefix("cafconv: error: -d LEI16 asks for little-endian samples but --endian asks for big\n"))
    }

    @Test("convert -d ima4 -v and --json report the SNR; verify --against --min-snr gates it; --min-snr alone is a usage error")
    func ima4() throws {
        let (folder, wav, caf) = try made(["-d", "ima4"])
        defer { withExtendedLifetime(folder) {} }  // the folder is deleted when released
        let verbose = try run(RepositoryPaths.executable, ["convert", "-v", "--force", "-d", "ima4", wav, "-o", caf])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(verbose.text.contains("-> ima4, 2 ch, 48000 Hz, 480 frames"), "\(verbose.text)")
        #expect(verbose.text.contains("proof: SNR "), "\(verbose.text)")
        let json = try run(RepositoryPaths.executable, ["convert", "--json", "--force", "-d", "ima4", wav, "-o", caf])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        let proof = try #require(file["proof"] as? [String: Any])
        #expect(proof["comparison"] as? String == "snr" && proof["rule"] as? String == "ima4")
        let snr = try #require(proof["snr"] as? Double)
        #expect(proof["snrFloor"] as? Double == 10)
        let pass = try run(RepositoryPaths.executable, ["verify", "--against", wav, caf])
        #expect(pass.status == 0, "\(pass.text)")
        #expect(pass.text.contains("ok (SNR \(snr) dB"), "\(pass.text)")
        let strict = try run(RepositoryPaths.executable, ["verify", "--against", wav, "--min-snr", String(snr + 1), caf])
        #expect(strict.status == 1)
        #expect(strict.text.contains("against: expected an SNR of at least"), "\(strict.text)")
        let usage = try run(RepositoryPaths.executable, ["verify", "--min-snr", "20", caf])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--min-snr needs --against"), "\(usage.stderr)")
    }
}

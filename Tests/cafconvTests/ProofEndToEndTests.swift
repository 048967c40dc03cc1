import Foundation
import TestSupport
import Testing

/// The proof each output got is said in `convert -v`, `convert --json` and `verify --against`.
@Suite("the proof, end to end: --verbose, --json, verify --against")
struct ProofEndToEndTests {
    @Test("a 24-bit source written as LEI16 is proven exact after rule 24-to-16-bit, never called exact")
    func narrowed() throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        let wav = folder.write("a.wav", WAVFixture.signal(.int24, channels: 2, frames: 480, sampleRate: 48000).bytes)
        let caf = folder.file("a.caf")
        let verbose = try run(RepositoryPaths.executable, ["convert", "-v", "-d", "LEI16", wav, "-o", caf])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        #expect(
            verbose.text.contains(
                "proof: exact after rule 24-to-16-bit; source decoded by cafconv, output by cafkit, every frame"),
            "\(verbose.text)")
        let json = try run(RepositoryPaths.executable, ["convert", "--json", "--force", "-d", "LEI16", wav, "-o", caf])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        let proof = try #require(file["proof"] as? [String: Any])
        #expect(proof["comparison"] as? String == "exact-after-rule")
        #expect(proof["rule"] as? String == "24-to-16-bit")
        #expect(proof["sourceDecoder"] as? String == "cafconv")
        let verify = try run(RepositoryPaths.executable, ["verify", "--against", wav, caf])
        #expect(verify.status == 0)
        #expect(
            verify.text
                == "\(caf): ok (exact after rule 24-to-16-bit; source decoded by cafconv, output by cafkit, every frame)\n")
        let verifyJSON = try run(RepositoryPaths.executable, ["verify", "--json", "--against", wav, caf])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(verifyJSON.stdout)) as? [String: Any])
        let comparison = try #require((report["files"] as? [[String: Any]])?.first?["comparison"] as? [String: Any])
        #expect(comparison["rule"] as? String == "24-to-16-bit")
    }
}

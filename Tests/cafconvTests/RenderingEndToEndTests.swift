import Foundation
import TestSupport
import Testing

/// A failure is rendered once: the text output's sentence and the JSON report's `reason` and
/// `code` come from the same record; `verify`'s line and JSON object from the same finding.
@Suite("One rendering of failures, text and JSON")
struct RenderingEndToEndTests {
    @Test("convert: the error line's reason is the JSON's reason, with its code")
    func convertFailure() throws {
        let folder = TempDirectory()
        let input = folder.write("notes.wav", Array("just some text, no audio".utf8))
        let text = try run(RepositoryPaths.executable, ["convert", input, "-o", folder.file("out.caf")])
        let json = try run(RepositoryPaths.executable, ["convert", "--json", input, "-o", folder.file("out.caf")])
        #expect(text.status == 1 && json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        let reason = try #require(file["reason"] as? String)
        #expect(file["code"] as? String == "not-audio")
        let line = text.stderr.split(separator: "\n").first.map(String.init)
        #expect(line == "cafconv: error: \(input): \(reason)", "\(text.stderr)")
    }

    @Test("verify: each text line is the JSON failure's rule, expected and found")
    func verifyFailure() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let output = folder.file("out.caf")
        #expect(try run(RepositoryPaths.executable, ["convert", "-q", input, "-o", output]).status == 0)
        let arguments = ["verify", "--channels", "2", "--endian", "big", output]
        let text = try run(RepositoryPaths.executable, arguments)
        let json = try run(RepositoryPaths.executable, arguments + ["--json"])
        #expect(text.status == 1 && json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        #expect(file["status"] as? String == "failed")
        let failures = try #require(file["failures"] as? [[String: Any]])
        let lines = failures.map { failure in
            "\(output): \(failure["rule"] as? String ?? "?"): expected \(failure["expected"] as? String ?? "?"), found \(failure["found"] as? String ?? "?")"
        }
        #expect(failures.map { $0["rule"] as? String } == ["byte-order", "channels"])
        let printed = String(decoding: text.stdout, as: UTF8.self)
        #expect(printed.split(separator: "\n").map(String.init) == lines, "\(printed)")
    }
}

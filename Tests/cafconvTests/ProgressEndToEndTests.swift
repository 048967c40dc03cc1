import Foundation
import TestSupport
import Testing

/// Progress inside files (issue 32): JSON events for wrappers, a heartbeat in logs, nothing when
/// not asked or quiet. `CAFCONV_PROGRESS_INTERVAL_MS` is the test hook for the pace.
@Suite("convert progress, end to end")
struct ProgressEndToEndTests {
    /// A long-ish source: 600,000 stereo frames (about 19 blocks of the encoder's reading).
    static func longSource(in folder: TempDirectory) -> String {
        folder.write("long.wav", WAVFixture.signal(.int16, channels: 2, frames: 600_000).bytes)
    }

    /// The JSON objects among stderr's lines.
    static func events(_ stderr: String) throws -> [[String: Any]] {
        try stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("--progress=json: progress events with monotonic frame counts, then a file event whose count is the total")
    func jsonEvents() throws {
        let folder = TempDirectory()
        let input = Self.longSource(in: folder)
        let result = try run(
            RepositoryPaths.executable,
            ["convert", "--progress=json", "-d", "LEI24", input, "-o", folder.file("long.caf")],
            environment: ["CAFCONV_PROGRESS_INTERVAL_MS": "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try Self.events(result.stderr)
        let progress = events.filter { $0["event"] as? String == "progress" }
        #expect(progress.count >= 10, "\(result.stderr)")
        let counts = progress.compactMap { $0["framesDone"] as? Int }
        #expect(counts.count == progress.count)
        #expect(counts == counts.sorted(), "monotonic: \(counts)")
        #expect(progress.allSatisfy { $0["framesTotal"] as? Int == 600_000 && $0["input"] as? String == input })
        let last = try #require(events.last)
        #expect(last["event"] as? String == "file")
        #expect(last["status"] as? String == "converted")
        #expect(last["framesDone"] as? Int == 600_000)
        #expect(last["framesTotal"] as? Int == 600_000)
        #expect(last["filesDone"] as? Int == 1 && last["filesTotal"] as? Int == 1)
    }

    @Test("a log (stderr not a terminal) gets heartbeat lines for a file slower than the period; -q and --progress=none get none")
    func heartbeat() throws {
        let folder = TempDirectory()
        let input = Self.longSource(in: folder)
        let arguments = ["convert", "-d", "LEI24", input, "-o", folder.file("long.caf")]
        let fast = ["CAFCONV_PROGRESS_INTERVAL_MS": "1"]
        let logged = try run(RepositoryPaths.executable, arguments, environment: fast)
        #expect(logged.status == 0, "\(logged.stderr)")
        let beats = logged.stderr.split(separator: "\n").filter { $0.hasPrefix("cafconv: \(input): ") }
        #expect(!beats.isEmpty, "\(logged.stderr)")
        #expect(beats.allSatisfy { $0.contains("of 600.0k frames") }, "\(beats)")
        #expect(try Self.events(logged.stderr).isEmpty, "no JSON unless asked")
        for quiet in [["-q"], ["--progress=none"]] {
            let silent = try run(RepositoryPaths.executable, arguments + quiet, environment: fast)
            #expect(silent.status == 0, "\(silent.stderr)")
            #expect(!silent.stderr.contains("frames"), "\(quiet): \(silent.stderr)")
        }
        // At the default period (5 s) a file this short has no heartbeat.
        let short = try run(RepositoryPaths.executable, arguments)
        #expect(!short.stderr.contains("frames"), "\(short.stderr)")
    }
}

import BinaryIO
import CAFKit
import Foundation
import TestSupport
import Testing

/// A folder of mono sine WAVs that `-d alac -j 1` takes well over a second to convert (ALAC is
/// encoded, then decoded again and compared).
func slowBatch(_ folder: TempDirectory, files: Int = 6, frames: Int = 1_000_000) {
    for file in 0..<files {
        let step = 0.01 * Double(file + 1)
        let samples = (0..<frames).map { Int32(12000 * sin(Double($0) * step)) }
        folder.write(
            "in/tone \(file) é.wav", WAVFixture(encoding: .int16, channels: 1, integers: samples).bytes)
    }
}

/// Starts the binary, waits until `started` exists (the run is under way, so a loaded machine
/// cannot deliver the signal before the handler is installed), sends `signal` `delay` seconds
/// later (then each of `then` at once), and returns how it ended. `ignoring` names signals the binary inherits as ignored (a
/// shell's `trap '' INT` before `exec`, as for a background job).
func interrupted(
    _ arguments: [String], signal: Int32, then: [Int32] = [], after delay: Double, started: String,
    ignoring: [String] = []
) throws -> (status: Int32, bySignal: Bool) {
    let script = "trap '' \(ignoring.joined(separator: " ")); exec \"$0\" \"$@\""
    let process =
        ignoring.isEmpty
        ? try BoundedProcess(RepositoryPaths.executable, arguments)
        : try BoundedProcess("/bin/sh", ["-c", script, RepositoryPaths.executable] + arguments)
    let deadline = Date().addingTimeInterval(10)
    var ended = process.pollOutcome()
    while !exists(started) && ended == nil && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.005)
        ended = process.pollOutcome()
    }
    if ended == nil {
        Thread.sleep(forTimeInterval: delay)
        for number in [signal] + then { kill(process.pid, number) }
    }
    let outcome = ended ?? process.wait(timeout: 120)
    if outcome.timedOut { throw BoundedProcess.Timeout(description: "cafconv \(arguments) did not end within 120 s after the signal") }
    // As Foundation reported it: the signal's number when a signal ended it.
    return (outcome.bySignal ? outcome.status - 128 : outcome.status, outcome.bySignal)
}

@Suite("cafconv convert in builds and CI, end to end")
struct PipelineEndToEndTests {
    @Test(
        "SIGINT and SIGTERM stop the batch: exit 130, no temporary left, every output valid; a re-run finishes",
        arguments: [SIGINT, SIGTERM])
    func sigint(signal: Int32) throws {
        let folder = TempDirectory()
        slowBatch(folder)
        let arguments = ["convert", "-j", "1", "-d", "alac", folder.file("in"), "-o", folder.file("out")]
        let ended = try interrupted(arguments, signal: signal, after: 0.1, started: folder.file("out"))
        #expect(ended.status == 130 && !ended.bySignal)
        #expect(temporaryFiles(under: folder.path).isEmpty, "\(temporaryFiles(under: folder.path))")
        let before = try expectValidOutputs(folder.file("out"))
        #expect(before < 6, "the batch finished before the signal; make it larger")
        let again = try run(RepositoryPaths.executable, arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("\(6 - before) converted"), "\(again.stderr)")
        #expect(try expectValidOutputs(folder.file("out")) == 6)
    }

    @Test("a SIGINT the binary inherited as ignored stays ignored (as in background jobs); SIGTERM still stops it")
    func inheritedIgnore() throws {
        let folder = TempDirectory()
        slowBatch(folder)
        let arguments = ["convert", "-j", "1", "-d", "alac", folder.file("in"), "-o", folder.file("out")]
        // SIGINT, then SIGTERM while the run is surely still going. Were SIGINT handled, SIGTERM
        // would be a second signal and end the process by the signal; ignored, SIGTERM is the
        // first, and the run stops cleanly with 130.
        let ended = try interrupted(
            arguments, signal: SIGINT, then: [SIGTERM], after: 0.1, started: folder.file("out"), ignoring: ["INT"])
        #expect(ended.status == 130 && !ended.bySignal)
        #expect(try expectValidOutputs(folder.file("out")) < 6, "the batch finished before the signal; make it larger")
        #expect(temporaryFiles(under: folder.path).isEmpty, "\(temporaryFiles(under: folder.path))")
    }

    @Test("a second signal stops at once, by that signal; the next run cleans up and finishes")
    func secondSignal() throws {
        let folder = TempDirectory()
        slowBatch(folder)
        let arguments = ["convert", "-j", "1", "-d", "alac", folder.file("in"), "-o", folder.file("out")]
        // Two different signals, so both are delivered even if neither has landed yet (a second
        // SIGINT would merge with a pending first one), and the run stops faster than a sleep.
        let ended = try interrupted(arguments, signal: SIGINT, then: [SIGTERM], after: 0.1, started: folder.file("out"))
        #expect(ended.bySignal && [SIGINT, SIGTERM].contains(ended.status))
        #expect(try expectValidOutputs(folder.file("out")) < 6, "the batch finished before the signal; make it larger")
        let again = try run(RepositoryPaths.executable, arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(temporaryFiles(under: folder.path).isEmpty, "\(temporaryFiles(under: folder.path))")
        #expect(try expectValidOutputs(folder.file("out")) == 6)
    }

    @Test("SIGKILL at any moment: every file at an output path is valid; the next run cleans up and finishes")
    func sigkill() throws {
        let folder = TempDirectory()
        slowBatch(folder)
        let arguments = ["convert", "-j", "1", "-d", "alac", folder.file("in"), "-o", folder.file("out")]
        let ended = try interrupted(arguments, signal: SIGKILL, after: 0.1, started: folder.file("out"))
        #expect(ended.bySignal && ended.status == SIGKILL)
        #expect(try expectValidOutputs(folder.file("out")) < 6, "the batch finished before the signal; make it larger")
        let again = try run(RepositoryPaths.executable, arguments)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(temporaryFiles(under: folder.path).isEmpty, "\(temporaryFiles(under: folder.path))")
        #expect(try expectValidOutputs(folder.file("out")) == 6)
        let third = try run(RepositoryPaths.executable, arguments)
        #expect(third.stderr.contains("0 converted, 6 up to date"), "\(third.stderr)")
    }

    @Test(
        "peak memory does not grow with file size (blocks are streamed)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func boundedMemory() throws {
        let folder = TempDirectory()
        func peakKilobytes(frames: Int) throws -> Int {
            let name = "f\(frames).wav"
            let format: [UInt8] = [1, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x10, 0xB1, 2, 0, 4, 0, 16, 0]
            folder.write(name, WAVFixture.riff(chunks: [("fmt ", format), ("data", [UInt8](repeating: 7, count: frames * 4))]))
            let result = try run(
                "/usr/bin/time",
                ["-f", "peak=%M", RepositoryPaths.executable, "convert", folder.file(name), "-o", folder.file(name + ".caf")])
            #expect(result.status == 0, "\(result.stderr)")
            let line = try #require(result.stderr.split(separator: "\n").last { $0.hasPrefix("peak=") })
            return try #require(Int(line.dropFirst(5)))
        }
        let small = try peakKilobytes(frames: 100_000)
        let large = try peakKilobytes(frames: 8_000_000)  // 32 MB of audio
        #expect(large < small + 8 * 1024, "peak \(large) KB for 32 MB of audio vs \(small) KB for 0.4 MB")
    }

    @Test("--check and --dry-run write nothing; --check exits 1 while anything is out of date")
    func check() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", EndToEndTests.good)
        folder.write("in/b b.wav", EndToEndTests.good)
        let paths = [folder.file("in"), "-o", folder.file("out")]
        let dry = try run(RepositoryPaths.executable, ["convert", "--dry-run"] + paths)
        #expect(dry.status == 0)
        #expect(dry.text.contains("convert: \(folder.file("in/a.wav"))"), "\(dry.text)")
        #expect(!exists(folder.file("out")))
        #expect(try run(RepositoryPaths.executable, ["convert", "--check"] + paths).status == 1)
        #expect(!exists(folder.file("out")))
        #expect(try run(RepositoryPaths.executable, ["convert"] + paths).status == 0)
        #expect(try run(RepositoryPaths.executable, ["convert", "--check"] + paths).status == 0)
        unlink(folder.file("in/a.wav"))
        let orphan = try run(RepositoryPaths.executable, ["convert", "--check"] + paths)
        #expect(orphan.status == 1)
        #expect(orphan.text.contains("orphaned: \(folder.file("out/a.caf"))"), "\(orphan.text)")
        let pruned = try run(RepositoryPaths.executable, ["convert", "--prune"] + paths)
        #expect(pruned.status == 0)
        #expect(pruned.text.contains("pruned \(folder.file("out/a.caf"))"))
        #expect(!exists(folder.file("out/a.caf")))
        #expect(try run(RepositoryPaths.executable, ["convert", "--check"] + paths).status == 0)
    }

    @Test("--json on a re-run: up-to-date records with formats and frames, and totals")
    func jsonRerun() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", EndToEndTests.good)
        let arguments = ["convert", "--json", folder.file("in"), "-o", folder.file("out")]
        #expect(try run(RepositoryPaths.executable, arguments).status == 0)
        let result = try run(RepositoryPaths.executable, arguments)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        #expect(file["status"] as? String == "up-to-date")
        #expect(file["formatOut"] as? String == "LEI16")
        #expect(file["frames"] as? Int == 1000)
        let totals = try #require(object["totals"] as? [String: Any])
        #expect(totals["upToDate"] as? Int == 1 && totals["converted"] as? Int == 0)
    }

    @Test("without a terminal: no carriage returns or escape sequences, and a summary on stderr")
    func noTerminal() throws {
        let folder = TempDirectory()
        slowBatch(folder, files: 2, frames: 50000)
        let result = try run(RepositoryPaths.executable, ["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"))
        #expect(!result.text.contains("\r") && !result.text.contains("\u{1B}"))
        #expect(result.stderr.contains("2 converted, 0 failed"))
    }

    @Test(
        "on a terminal: a progress line redrawn with \\r; NO_COLOR and TERM=dumb are honoured",
        .enabled(if: which("script") != nil))
    func terminal() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", EndToEndTests.good)
        folder.write("in/bad.wav", Array("junk".utf8))
        func underTerminal(_ environment: String, _ output: String) throws -> String {
            let command =
                "\(environment) '\(RepositoryPaths.executable)' convert '\(folder.file("in"))' -o '\(folder.file(output))'"
            return try run(try #require(which("script")), ["-qec", command, "/dev/null"]).text
        }
        let colored = try underTerminal("env -u NO_COLOR TERM=xterm", "one")
        // script(1) turns every newline into \r\n, so look for the redrawn line itself.
        #expect(colored.contains("\r2/2 files, "), "\(colored)")
        #expect(colored.contains("\u{1B}[1;31merror:"), "\(colored)")
        let plain = try underTerminal("env TERM=xterm NO_COLOR=1", "two")
        #expect(plain.contains("\r2/2 files, ") && !plain.contains("\u{1B}"), "\(plain)")
        let dumb = try underTerminal("env -u NO_COLOR TERM=dumb", "three")
        #expect(!dumb.contains("files, ") && !dumb.contains("\u{1B}"), "\(dumb)")
        #expect(dumb.contains("1 converted, 1 failed"), "\(dumb)")
    }
}

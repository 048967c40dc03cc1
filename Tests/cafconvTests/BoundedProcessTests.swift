import Foundation
import TestSupport
import Testing

@Suite("BoundedProcess (the Bazel tests' child processes)")
struct BoundedProcessTests {
    @Test("a child that outlives its deadline is killed and reaped, and the wait reports the timeout")
    func deadline() throws {
        let child = try BoundedProcess("/bin/sleep", ["60"])
        let started = Date()
        let outcome = child.wait(timeout: 0.5)
        #expect(outcome.timedOut && outcome.status == -1)
        #expect(Date().timeIntervalSince(started) < 30)
        // Reaped: no such child any more.
        #expect(kill(child.pid, 0) != 0)
    }

    @Test("a child that exits is reaped with its status; a child left running by it does not hold the wait")
    func exitStatus() throws {
        let folder = TempDirectory("bounded")
        // The shell exits at once and leaves a sleep behind holding its stdout and stderr.
        let ran = try BoundedProcess.run(
            "/bin/sh", ["-c", "sleep 30 & echo out; echo err >&2; exit 3"], in: folder.path, timeout: 20)
        #expect(ran.status == 3)
        #expect(String(decoding: ran.stdout, as: UTF8.self) == "out\n" && ran.stderr == "err\n")
    }

    @Test("run past its deadline throws, naming the command and its stderr")
    func runTimeout() throws {
        do {
            _ = try BoundedProcess.run("/bin/sh", ["-c", "echo waiting >&2; exec sleep 60"], timeout: 0.5)
            Issue.record("no timeout")
        } catch let timeout as BoundedProcess.Timeout {
            #expect(timeout.description.contains("/bin/sh -c") && timeout.description.contains("waiting"), "\(timeout)")
        }
    }
}

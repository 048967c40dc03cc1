import Foundation
import TestSupport
import Testing

/// A child process started with `posix_spawn` and reaped with `waitpid` by the test itself, with a
/// deadline. Foundation's `Process.waitUntilExit` is not used here: under Swift Testing it was seen
/// to wait forever on a `bazel` client that had already exited (the child stayed a zombie, never
/// reaped, its exit never noticed), so `BazelEndToEndTests` hung after a successful build.
struct BoundedProcess {
    /// What one run ended with.
    struct Outcome {
        /// The exit status, 128 + signal, or -1 when the deadline passed (the child was killed).
        var status: Int32
        var timedOut: Bool
    }

    let pid: pid_t
    let program: String

    /// Starts `program`; stdin is /dev/null, stdout and stderr go to the files named (created,
    /// truncated), never to pipes, so nothing the child leaves running can keep the test waiting.
    init(
        _ program: String, _ arguments: [String], currentDirectory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        stdout: String = "/dev/null", stderr: String = "/dev/null"
    ) throws {
        self.program = program
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // glibc's posix_spawn_file_actions_addchdir_np is not in Swift's Glibc module: coreutils' env -C.
        let command = currentDirectory.map { ["/usr/bin/env", "-C", $0, program] } ?? [program]
        let argv = (command + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, nil, argv + [nil], envp + [nil])
        guard result == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot start \(program): \(String(cString: strerror(result)))"])
        }
        self.pid = pid
    }

    /// Waits up to `timeout` seconds; then kills the child (SIGKILL) and reports a timeout.
    func wait(timeout: Double) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                let signal = status & 0x7f
                return Outcome(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, timedOut: false)
            }
            if reaped < 0 && errno != EINTR { return Outcome(status: -1, timedOut: false) }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return Outcome(status: -1, timedOut: true)
            }
            usleep(20_000)
        }
    }

    /// Asks the child to end (SIGTERM), kills it after `grace` seconds.
    func stop(grace: Double = 10) {
        kill(pid, SIGTERM)
        _ = wait(timeout: grace)
    }

    /// Runs `program` to its end or for `timeout` seconds at most, recording an issue on timeout;
    /// returns the status with what it wrote to stdout and stderr.
    static func run(
        _ program: String, _ arguments: [String], in folder: String, currentDirectory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, timeout: Double
    ) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let out = folder + "/.run.out"
        let err = folder + "/.run.err"
        let child = try BoundedProcess(
            program, arguments, currentDirectory: currentDirectory, environment: environment, stdout: out, stderr: err)
        let outcome = child.wait(timeout: timeout)
        let stderr = String(decoding: readBytes(err), as: UTF8.self)
        if outcome.timedOut {
            Issue.record("\(program) \(arguments.joined(separator: " ")) did not end within \(Int(timeout)) s; killed. stderr: \(stderr)")
        }
        return (outcome.status, readBytes(out), stderr)
    }

    private static func readBytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }
}

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
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with `waitpid` by the test itself, with a
/// deadline. Foundation's `Process.waitUntilExit` is not used here: under Swift Testing it was seen
/// to wait forever on a `bazel` client that had already exited (the child stayed a zombie, never
/// reaped, its exit never noticed), so `BazelEndToEndTests` hung after a successful build. Every
/// test child process goes through it (`run`, `runMerged`, `WatchedProcess` and the suites' own
/// helpers), so none can hang a suite.
public struct BoundedProcess: Sendable {
    /// What one run ended with.
    public struct Outcome: Sendable {
        /// The exit status, 128 + signal, or -1 when the deadline passed (the child was killed).
        public var status: Int32
        public var timedOut: Bool
        /// Whether a signal ended it (`status` is then 128 + the signal).
        public var bySignal = false
        /// The minor page faults the child took (its `rusage`), when it was reaped by ``pollOutcome()``.
        public var minorFaults = 0
    }

    /// A child that did not end within its deadline (it was killed): the command and its stderr.
    public struct Timeout: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The deadline of ``run(_:_:in:currentDirectory:environment:stdin:timeout:)`` unless told.
    public static let defaultTimeout: Double = 600

    public let pid: pid_t
    public let program: String

    /// Starts `program`; stdin is the file named (/dev/null unless told), stdout and stderr go to
    /// the files named (created, truncated; the same name for both puts them on one descriptor,
    /// in the order written), never to pipes, so nothing the child leaves running can keep the
    /// test waiting. `stdinPipe`: stdin is that pipe's reading end instead (the test writes the
    /// other end and closes it; the child holds no copy of it).
    public init(
        _ program: String, _ arguments: [String], currentDirectory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        stdin: String = "/dev/null", stdinPipe: Pipe? = nil, stdout: String = "/dev/null", stderr: String = "/dev/null"
    ) throws {
        self.program = program
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdinPipe {
            let reading = stdinPipe.fileHandleForReading.fileDescriptor
            let writing = stdinPipe.fileHandleForWriting.fileDescriptor
            posix_spawn_file_actions_adddup2(&actions, reading, 0)
            posix_spawn_file_actions_addclose(&actions, reading)
            posix_spawn_file_actions_addclose(&actions, writing)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if stderr == stdout && stdout != "/dev/null" {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
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
        try? stdinPipe?.fileHandleForReading.close()
    }

    /// The exit status (or 128 + signal) if the child has ended (it is reaped then), `nil` while
    /// it runs; -1 when it cannot be waited for (already reaped).
    public func poll() -> Int32? { pollOutcome()?.status }

    /// ``poll()`` with whether a signal ended the child.
    public func pollOutcome() -> Outcome? {
        var status: Int32 = 0
        var usage = rusage()
        let reaped = wait4(pid, &status, WNOHANG, &usage)
        if reaped == pid {
            let signal = status & 0x7f
            return Outcome(
                status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, timedOut: false, bySignal: signal != 0,
                minorFaults: usage.ru_minflt)
        }
        if reaped < 0 && errno != EINTR { return Outcome(status: -1, timedOut: false) }
        return nil
    }

    /// Waits up to `timeout` seconds; then kills the child (SIGKILL) and reports a timeout.
    public func wait(timeout: Double) -> Outcome {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let outcome = pollOutcome() { return outcome }
            var status: Int32 = 0
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return Outcome(status: -1, timedOut: true)
            }
            usleep(20_000)
        }
    }

    /// Asks the child to end (SIGTERM), kills it after `grace` seconds.
    public func stop(grace: Double = 10) {
        kill(pid, SIGTERM)
        _ = wait(timeout: grace)
    }

    /// Runs `program` to its end or for `timeout` seconds at most; past it the child is killed
    /// and ``Timeout`` thrown, naming the command and its stderr. Returns the status with what it
    /// wrote to stdout and stderr (their files go in `folder`, a new temporary folder unless told).
    public static func run(
        _ program: String, _ arguments: [String], in folder: String? = nil, currentDirectory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, stdin: String = "/dev/null",
        timeout: Double = defaultTimeout
    ) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let (outcome, stdout, stderr) = try runOutcome(
            program, arguments, in: folder, currentDirectory: currentDirectory, environment: environment, stdin: stdin,
            timeout: timeout)
        return (outcome.status, stdout, stderr)
    }

    /// ``run(_:_:in:currentDirectory:environment:stdin:timeout:)`` with the whole ``Outcome``
    /// (the child's page faults among it).
    public static func runOutcome(
        _ program: String, _ arguments: [String], in folder: String? = nil, currentDirectory: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, stdin: String = "/dev/null",
        timeout: Double = defaultTimeout
    ) throws -> (outcome: Outcome, stdout: [UInt8], stderr: String) {
        let scratch = folder == nil ? TempDirectory("bounded") : nil
        let place = folder ?? scratch?.path ?? "/tmp"
        let out = place + "/.run.out"
        let err = place + "/.run.err"
        let child = try BoundedProcess(
            program, arguments, currentDirectory: currentDirectory, environment: environment, stdin: stdin,
            stdout: out, stderr: err)
        let outcome = child.wait(timeout: timeout)
        let stderr = String(decoding: readBytes(err), as: UTF8.self)
        if outcome.timedOut {
            let command = ([program] + arguments).joined(separator: " ")
            throw Timeout(description: "\(command) did not end within \(Int(timeout)) s; killed. stderr: \(stderr)")
        }
        return (outcome, readBytes(out), stderr)
    }

    /// The bytes of the file at `path` (empty when it cannot be read).
    public static func readBytes(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }
}

import Foundation

/// What a program wrote with stdout and stderr on one pipe, as a CI log captures it
/// (`> log 2>&1`).
public struct MergedResult: Sendable {
    /// The exit status (or 128 + signal).
    public var status: Int32
    /// Both streams, in the order they reached the pipe.
    public var text: String
    /// `text` cut into lines (the empty piece after a final newline dropped).
    public var lines: [String] {
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// Runs `program` with stdout and stderr on one descriptor (a file) and waits for it, at most
/// `timeout` seconds (see ``BoundedProcess``). `environment` is added to the test's own.
public func runMerged(
    _ program: String, _ arguments: [String], environment: [String: String] = [:],
    timeout: Double = BoundedProcess.defaultTimeout
) throws -> MergedResult {
    let streams = TempDirectory("merged")
    let log = streams.file("log")
    let child = try BoundedProcess(
        program, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
        stdout: log, stderr: log)
    let outcome = child.wait(timeout: timeout)
    let text = String(decoding: BoundedProcess.readBytes(log), as: UTF8.self)
    if outcome.timedOut {
        throw BoundedProcess.Timeout(
            description: "\(program) \(arguments.joined(separator: " ")) did not end within \(Int(timeout)) s; killed. output: \(text)")
    }
    return MergedResult(status: outcome.status, text: text)
}

/// A running program whose stdout and stderr are read from one file as they come, so a test can
/// see what was written before the program ended. Bounded like ``BoundedProcess``: `timeout`
/// seconds from the start, then it is killed.
public final class WatchedProcess {
    private let child: BoundedProcess
    private let streams = TempDirectory("watched")
    private let deadline: Date
    private var ended: Int32?
    /// Everything read so far.
    public private(set) var text = ""

    /// Starts `program`.
    public init(_ program: String, _ arguments: [String], timeout: Double = BoundedProcess.defaultTimeout) throws {
        let log = streams.file("log")
        child = try BoundedProcess(program, arguments, stdout: log, stderr: log)
        deadline = Date().addingTimeInterval(timeout)
    }

    private func refresh() { text = String(decoding: BoundedProcess.readBytes(streams.file("log")), as: UTF8.self) }

    /// Reads until `text` contains `needle`, the program ends or the deadline passes; returns
    /// whether the program was still running when `needle` arrived.
    public func read(until needle: String) -> (found: Bool, stillRunning: Bool) {
        while true {
            if ended == nil { ended = child.poll() }
            if ended == nil && Date() >= deadline { ended = child.wait(timeout: 0).status }
            let running = ended == nil
            refresh()
            if text.contains(needle) { return (true, running) }
            if !running { return (false, false) }
            usleep(10_000)
        }
    }

    /// Waits for the exit status (killed at the deadline: -1) and reads the rest.
    public func finish() -> Int32 {
        if ended == nil { ended = child.wait(timeout: max(0, deadline.timeIntervalSinceNow)).status }
        refresh()
        return ended ?? -1
    }
}

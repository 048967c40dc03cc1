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

/// Runs `program` with stdout and stderr on one pipe and waits for it. `environment` is added to
/// the test's own.
public func runMerged(
    _ program: String, _ arguments: [String], environment: [String: String] = [:]
) throws -> MergedResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    return MergedResult(status: status, text: String(decoding: data, as: UTF8.self))
}

/// A running program whose stdout and stderr are read on one pipe as they come, so a test can
/// see what was written before the program ended.
public final class WatchedProcess {
    private let process = Process()
    private let pipe = Pipe()
    private var bytes = Data()
    /// Everything read so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Starts `program`.
    public init(_ program: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Reads until `text` contains `needle` or the pipe ends; returns whether the program was
    /// still running when `needle` arrived.
    public func read(until needle: String) -> (found: Bool, stillRunning: Bool) {
        while !text.contains(needle) {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { return (false, process.isRunning) }
            bytes += data
        }
        return (true, process.isRunning)
    }

    /// Reads the rest and waits for the exit status.
    public func finish() -> Int32 {
        bytes += pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

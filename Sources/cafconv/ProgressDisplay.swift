import BinaryIO
import CommandLineKit
import Conversion
import ConversionModel
import JSONKit
import OutputFiles
import Synchronization
import SystemLayer

/// `convert --progress`: how a run shows where it is inside each file.
enum ProgressMode: String, CaseIterable, Sendable {
    /// On a terminal: the live line, with the file in progress (frames, rate, ETA). In a log: a
    /// heartbeat line for each file that takes longer than ``ProgressDisplay/heartbeatSeconds``.
    case auto
    /// JSON lines on stderr for wrappers (docs/convert.md, "Progress events").
    case json
    /// Nothing.
    case none
}

/// Progress inside files: the terminal line, the heartbeat lines of a log, or JSON events. It
/// gets a ``FrameProgress`` per job from the engine (whose readers count frames per block and
/// call back at most once per interval) and the finished files from `LiveLog`.
final class ProgressDisplay: Sendable {
    enum Kind {
        case line(ProgressLine)
        case heartbeat
        case json
    }

    /// A log's heartbeat: the first line once a file has taken this long, then one per period.
    static let heartbeatSeconds: UInt64 = 5
    /// The terminal line's and the JSON events' pace.
    static let livePeriod: UInt64 = 250_000_000

    let kind: Kind
    let interval: UInt64
    /// How names are shown (the pipes' private copies by the names given).
    let named: @Sendable (String) -> String
    private let inFlight = Mutex<[String: FrameProgress]>([:])

    /// The display a run asks for, or `nil` for none (`auto` shows nothing with `-q` or `--json`).
    /// `CAFCONV_PROGRESS_INTERVAL_MS` sets the pace (tests use it; the heartbeat's first line
    /// waits the same).
    init?(mode: ProgressMode, quiet: Bool, json: Bool, line: ProgressLine?, named: @escaping @Sendable (String) -> String) {
        self.named = named
        switch mode {
        case .none: return nil
        case .json: kind = .json
        case .auto:
            if quiet || json { return nil }
            kind = line.map(Kind.line) ?? .heartbeat
        }
        let given = getenv("CAFCONV_PROGRESS_INTERVAL_MS").flatMap { UInt64(String(cString: $0)) }
        switch kind {
        case .heartbeat: interval = given.map { $0 &* 1_000_000 } ?? Self.heartbeatSeconds * 1_000_000_000
        case .line, .json: interval = given.map { $0 &* 1_000_000 } ?? Self.livePeriod
        }
    }

    /// The engine's factory: a counter for `job` that calls back here.
    func counter(for job: Job) -> FrameProgress {
        let counter = FrameProgress(input: job.input, interval: interval) { [weak self] progress in self?.due(progress) }
        inFlight.withLock { $0[job.input] = counter }
        return counter
    }

    /// A file's counter says its time has come.
    func due(_ progress: FrameProgress) {
        let now = progress.clock()
        switch kind {
        case .line(let line): line.updateFile(Self.text(progress, now: now, named: named))
        case .heartbeat: Console.error("cafconv: " + Self.text(progress, now: now, named: named))
        case .json: Console.error(Self.event(progress, now: now, named: named).text(pretty: false))
        }
    }

    /// A file is done (the engine's raw step): its last event (JSON), and the line forgets it.
    func finished(_ step: Engine.Progress) {
        let progress = inFlight.withLock { $0.removeValue(forKey: step.result.input) }
        switch kind {
        case .line(let line): line.updateFile(nil)
        case .heartbeat: break
        case .json:
            var fields: [String: JSONValue] = [
                "event": .string("file"), "input": .string(named(step.result.input)),
                "status": .string(step.result.status.rawValue), "filesDone": .integer(step.filesDone),
                "filesTotal": .integer(step.filesTotal),
            ]
            if let output = step.result.output { fields["output"] = .string(named(output)) }
            if let progress {
                fields["framesDone"] = .integer(progress.framesDone)
                fields["framesTotal"] = progress.framesTotal.map(JSONValue.integer) ?? .null
            }
            Console.error(JSONValue.object(fields).text(pretty: false))
        }
    }

    /// `a.wav: 1.2M of 5.0M frames (24%), 2.3M frames/s, ETA 2 s` (``FrameProgress/summary(at:)``).
    static func text(_ progress: FrameProgress, now: UInt64, named: (String) -> String) -> String {
        PathBytes.display(named(progress.input)) + ": " + progress.summary(at: now)
    }

    /// A JSON progress event: `{"event":"progress","input":…,"framesDone":…,"framesTotal":…,
    /// "seconds":…}`.
    static func event(_ progress: FrameProgress, now: UInt64, named: (String) -> String) -> JSONValue {
        .object([
            "event": .string("progress"), "input": .string(named(progress.input)),
            "framesDone": .integer(progress.framesDone),
            "framesTotal": progress.framesTotal.map(JSONValue.integer) ?? .null,
            "seconds": .double((Double(now &- progress.started) / 1e6).rounded() / 1e3),
        ])
    }
}

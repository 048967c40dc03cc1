import BinaryIO
import CommandLineKit
import Conversion
import ConversionModel
import IncrementalState
import Inspection
import JSONKit
import OutputFiles
import Rules
import Synchronization
import SystemLayer
import Transcoding
import Verification

/// Renders reports: results on stdout, diagnostics and the summary on stderr. Every line goes
/// through `Console`, which writes each line whole and stdout before stderr.
enum Output {
    struct Style {
        var json: Bool
        var quiet: Bool
        var verbose: Bool
        var dryRun = false
        var check = false
        var color = false
    }

    /// How many failed files the list at the end of a run names.
    static let failedListLimit = 20

    /// Encodes any report as sorted, pretty JSON (the layout of Foundation's `JSONEncoder` with
    /// `.sortedKeys`, `.prettyPrinted` and `.withoutEscapingSlashes`).
    static func json(_ value: some Encodable) -> String {
        (try? JSONValueEncoder().text(value)) ?? "{}"
    }

    /// `cafconv: error:` (red on a colour terminal): the prefix of every error line.
    static func errorPrefix(color: Bool = false) -> String {
        "cafconv: " + (color ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:")
    }

    /// `cafconv: warning:` (yellow on a colour terminal).
    static func warningPrefix(color: Bool = false) -> String {
        "cafconv: " + (color ? "\u{1B}[1;33mwarning:\u{1B}[0m" : "warning:")
    }

    /// `input: reason`: a failed file as the error line and the list of failures show it. The
    /// reason is the one the JSON report shows (``FileResult/record(_:)`` sets both).
    static func failure(_ file: FileResult) -> String { "\(file.input): \(file.reason ?? "failed")" }

    /// The stderr lines one record calls for: its error, its warnings and, outside --dry-run and
    /// --check (which list orphans on stdout), an orphan warning. `convert` prints them when the
    /// file is done, and again at the end only those that were not printed then.
    static func diagnostics(for file: FileResult, style: Style) -> [String] {
        // Progress events carry the raw result (names, and warnings that may quote the file's
        // metadata): everything but the coloured prefix is escaped here, as in the final report.
        let shown = PathBytes.display
        var lines: [String] = []
        if file.status == .failed {
            lines.append("\(errorPrefix(color: style.color)) \(shown(failure(file)))")
        }
        guard !style.quiet else { return lines }
        for text in file.warnings { lines.append("\(warningPrefix(color: style.color)) \(shown("\(file.input): \(text)"))") }
        if file.status == .orphaned && !style.json && !style.dryRun {
            // The hint only where --prune would delete it: not for an output it refused.
            let refused = file.reason?.contains("not pruned") == true
            lines.append(
                "\(warningPrefix(color: style.color)) "
                    + shown(
                        "\(file.output ?? "?"): orphaned, \(file.reason ?? "its source is gone") (source was \(file.input)\(refused ? "" : "; --prune deletes it"))"
                    ))
        }
        return lines
    }

    /// Prints a finished run. `printed` holds the diagnostics already printed while it ran.
    static func render(_ report: ConversionReport, style: Style, printed: Set<String> = []) {
        for file in report.files {
            for line in diagnostics(for: file, style: style) where !printed.contains(line) { Console.error(line) }
        }
        if !style.quiet {
            for text in report.warnings { Console.error("\(warningPrefix(color: style.color)) \(text)") }
        }
        if style.json {
            Console.output(json(report))
            return
        }
        if style.check {
            renderCheck(report, style: style)
            return
        }
        if style.quiet { return }
        let totals = report.totals
        if style.dryRun {
            for file in report.files {
                switch file.status {
                case .outOfDate:
                    let reason = file.reason ?? "out of date"
                    Console.output("convert: \(file.input) -> \(file.output ?? "?") (\(reason))\(ruleNote(file, style))")
                case .upToDate:
                    Console.output("up to date: \(file.output ?? "?")\(ruleNote(file, style))")
                case .orphaned:
                    Console.output("orphaned: \(file.output ?? "?") (\(file.reason ?? "its source is gone"))")
                case .ignored where style.verbose:
                    Console.output("ignored: \(file.input) (\(file.reason ?? "not an input"))")
                default:
                    continue
                }
            }
            var summary = "dry run: \(totals.outOfDate) to convert, \(totals.upToDate) up to date"
            summary += ", \(totals.orphaned) orphaned, \(totals.failed) failed"
            if totals.ignored > 0 { summary += ", \(totals.ignored) ignored" }
            summary += "; nothing written"
            Console.error(summary)
            return
        }
        var results = 0
        for file in report.files {
            switch file.status {
            case .converted:
                var line = "\(file.input) -> \(file.output ?? "?") (\(file.formatIn ?? "?") -> \(file.formatOut ?? "?")"
                line += ", \(file.channels ?? 0) ch, \(file.sampleRate ?? 0) Hz, \(count(file.frames ?? 0, "frame")))"
                if style.verbose {
                    line += " \(count(file.bytes ?? 0, "byte")) in \(formatMilliseconds(file.milliseconds ?? 0))"
                    if let samples = file.samples { line += ", samples \(samples.rawValue)" }
                    if let proof = file.proof { line += ", proof: \(proof)" }
                    line += ruleNote(file, style)
                }
                Console.output(line)
            case .upToDate where style.verbose:
                Console.output("\(file.input) -> \(file.output ?? "?") (up to date)\(ruleNote(file, style))")
            case .pruned:
                Console.output("pruned \(file.output ?? "?") (its source \(file.input) is gone)")
            case .ignored where style.verbose:
                Console.output("ignored: \(file.input) (\(file.reason ?? "not an input"))")
                continue
            default:
                continue
            }
            results += 1
        }
        // Results printed after the errors may have pushed them out of sight: list them again.
        if results > 0 { renderFailedList(report) }
        renderSizes(report)
        var summary = "\(totals.converted) converted"
        if totals.upToDate > 0 { summary += ", \(totals.upToDate) up to date" }
        summary += ", \(totals.failed) failed"
        if totals.orphaned > 0 { summary += ", \(totals.orphaned) orphaned" }
        if totals.pruned > 0 { summary += ", \(totals.pruned) pruned" }
        if totals.skipped > 0 { summary += ", \(totals.skipped) not done" }
        if totals.ignored > 0 { summary += ", \(totals.ignored) ignored" }
        summary += " (\(count(totals.bytes, "byte")) written in \(formatMilliseconds(totals.milliseconds)))"
        if report.interrupted { summary += "; interrupted: run again to finish" }
        Console.error(summary)
    }

    /// `-v`: ` [rule 2 'sfx/**' (Sounds/cafconv.toml:7)]` after a file's line, when a rules file
    /// governs it.
    static func ruleNote(_ file: FileResult, _ style: Style) -> String {
        guard style.verbose, let rule = file.rule else { return "" }
        return " [\(rule)]"
    }

    /// With a rules file: one stderr line per rule, the bytes of the sources it governs and of
    /// their CAF files (converted and up to date), before the summary.
    static func renderSizes(_ report: ConversionReport) {
        for size in report.rules ?? [] {
            var line = "\(size.rule): \(count(size.files, "file")), \(ProgressLine.size(size.bytesIn)) in"
            line += " -> \(ProgressLine.size(size.bytesOut)) out"
            if size.bytesIn > 0 { line += " (\(size.bytesOut * 100 / size.bytesIn)%)" }
            Console.error(line)
        }
    }

    /// When anything failed: the failed files again, with their reasons, just above the summary,
    /// so they are not lost above the results (at most `failedListLimit` of them).
    static func renderFailedList(_ report: ConversionReport) {
        let failed = report.files.filter { $0.status == .failed }
        guard !failed.isEmpty else { return }
        var lines = ["cafconv: \(count(failed.count, "file")) failed:"]
        for file in failed.prefix(failedListLimit) { lines.append("  \(failure(file))") }
        if failed.count > failedListLimit {
            lines.append("  ... and \(failed.count - failedListLimit) more (their errors are above)")
        }
        Console.error(lines.joined(separator: "\n"))
    }

    /// `--check`: exactly what is missing, out of date or orphaned on stdout (also with `-q`; the
    /// up-to-date outputs only with `-v`), and one summary line on stderr (with `-q` only when the
    /// check fails).
    static func renderCheck(_ report: ConversionReport, style: Style) {
        var missing = 0
        for file in report.files {
            switch file.status {
            case .outOfDate:
                let output = file.output ?? "?"
                if !Planner.exists(output) {
                    missing += 1
                    Console.output("missing: \(output) (from \(file.input))")
                } else {
                    Console.output("out of date: \(output) (\(file.reason ?? "out of date"))")
                }
            case .orphaned:
                Console.output("orphaned: \(file.output ?? "?") (its source \(file.input) is gone)")
            case .upToDate where style.verbose:
                Console.output("up to date: \(file.output ?? "?")")
            default:
                continue
            }
        }
        let totals = report.totals
        if report.isCurrent {
            if !style.quiet { Console.error("check passed: \(totals.upToDate) up to date; nothing written") }
            return
        }
        var parts: [String] = []
        if missing > 0 { parts.append("\(missing) missing") }
        if totals.outOfDate - missing > 0 { parts.append("\(totals.outOfDate - missing) out of date") }
        if totals.orphaned > 0 { parts.append("\(totals.orphaned) orphaned") }
        if totals.failed > 0 { parts.append("\(totals.failed) failed") }
        parts.append("\(totals.upToDate) up to date")
        Console.error("check failed: " + parts.joined(separator: ", ") + "; nothing written")
    }

    /// `1 frame`, `2 frames`, `0 bytes`.
    static func count(_ value: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
        InfoText.count(value, singular, plural)
    }

    /// A number without a fractional part when it has none (44100, not 44100.0).
    static func number(_ value: Double) -> String { InfoText.number(value) }

    static func formatMilliseconds(_ value: Double) -> String {
        if value >= 1000 { return "\(Double(Int(value / 10)) / 100) s" }
        return "\(Double(Int(value * 10)) / 10) ms"
    }
}

/// Prints what a `convert` run finds while it runs: each file's error and warnings as soon as the
/// file is done (above the progress line on a terminal), and feeds the progress line.
final class LiveLog: Sendable {
    private let style: Output.Style
    private let line: ProgressLine?
    private let printedLines = Mutex<Set<String>>([])

    init(style: Output.Style, line: ProgressLine?) {
        self.style = style
        self.line = line
    }

    /// Handles one step of the run (called from worker threads).
    func handle(_ step: Engine.Progress) {
        let lines = Output.diagnostics(for: step.result, style: style)
        if !lines.isEmpty {
            printedLines.withLock { $0.formUnion(lines) }
            if let line {
                line.print(lines, step: step)
            } else {
                for text in lines { Console.error(text) }
            }
        }
        // Held back by the ten-a-second limit right after a redraw, except the last step's.
        line?.update(step)
    }

    /// The diagnostics printed so far.
    var printed: Set<String> { printedLines.withLock { $0 } }
}

/// What stderr is connected to.
struct Terminal {
    /// stderr is a terminal and `TERM` is not `dumb`: a live progress line may be drawn.
    var interactive: Bool
    /// `interactive` and `NO_COLOR` is unset or empty.
    var color: Bool

    static var current: Terminal {
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        let interactive = isatty(2) == 1 && term != "dumb" && !term.isEmpty
        let noColor = getenv("NO_COLOR").map { String(cString: $0) } ?? ""
        return Terminal(interactive: interactive, color: interactive && noColor.isEmpty)
    }
}

/// A live progress line on stderr (files done/total, bytes, rate, ETA; and the file in progress
/// with its frames, rate and ETA, from ``ProgressDisplay``), redrawn with `\r` at most ten times
/// a second. Only used on a terminal.
final class ProgressLine: Sendable {
    private struct State {
        var lastDraw: UInt64 = 0
        var text = ""
        var width = 0
        /// The files part, and the part of the file in progress.
        var files = ""
        var file: String?
    }

    private let started = ProgressLine.now()
    private let state = Mutex(State())

    static func now() -> UInt64 { FrameProgress.monotonicNanoseconds() }

    /// The files part of the line at one step of the run.
    private func files(_ step: Engine.Progress, now: UInt64) -> String {
        let seconds = Double(now - started) / 1e9
        let rate = seconds > 0 ? Double(step.bytesDone) / seconds : 0
        var text = "\(step.filesDone)/\(step.filesTotal) files, \(Self.size(step.bytesDone)) of \(Self.size(step.bytesTotal))"
        if rate > 0 {
            text += ", \(Self.size(UInt64(rate)))/s"
            let remaining = Double(step.bytesTotal - min(step.bytesDone, step.bytesTotal)) / rate
            text += ", ETA \(Int(remaining.rounded(.up))) s"
        }
        return text
    }

    /// Redraws the line for one step of the run.
    func update(_ step: Engine.Progress) {
        guard step.filesTotal > 0 else { return }
        let now = Self.now()
        let text = files(step, now: now)
        state.withLock { state in
            state.files = text
            guard now - state.lastDraw >= 100_000_000 || step.filesDone == step.filesTotal else { return }
            Self.draw(&state, now: now)
        }
    }

    /// Shows the file in progress (`nil`: none) after the files part.
    func updateFile(_ text: String?) {
        let now = Self.now()
        state.withLock { state in
            guard text != nil || state.file != nil else { return }
            state.file = text
            Self.draw(&state, now: now)
        }
    }

    private static func draw(_ state: inout State, now: UInt64, above lines: [String] = []) {
        state.lastDraw = now
        let text = [state.files, state.file ?? ""].filter { !$0.isEmpty }.joined(separator: "; ")
        var output = "\r"
        if !lines.isEmpty {
            // Erased, the lines written, then the line drawn again on a fresh row.
            output += String(repeating: " ", count: state.width) + "\r" + lines.joined(separator: "\n") + "\n"
            state.width = 0
        }
        output += text + String(repeating: " ", count: max(0, state.width - text.count))
        state.text = text
        state.width = text.count
        Console.error(output, terminator: "")
    }

    /// Prints whole lines above the progress line: erases it, writes them, draws it again as the
    /// run stands now: at `step` (the step whose result the lines tell) when given, else with the
    /// last step seen (one the ten-a-second limit held back included).
    func print(_ lines: [String], step: Engine.Progress? = nil) {
        let now = Self.now()
        let text = step.flatMap { $0.filesTotal > 0 ? files($0, now: now) : nil }
        state.withLock { state in
            if let text { state.files = text }
            Self.draw(&state, now: now, above: lines)
        }
    }

    /// Erases the line.
    func clear() {
        state.withLock { state in
            guard state.width > 0 else { return }
            Console.error("\r" + String(repeating: " ", count: state.width) + "\r", terminator: "")
            state.width = 0
            state.text = ""
        }
    }

    static func size(_ bytes: UInt64) -> String {
        if bytes >= 1 << 20 { return "\(Double(bytes * 10 / (1 << 20)) / 10) MiB" }
        if bytes >= 1 << 10 { return "\(Double(bytes * 10 / (1 << 10)) / 10) KiB" }
        return "\(bytes) B"
    }
}

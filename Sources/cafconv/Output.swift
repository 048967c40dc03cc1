import CommandLineKit
import Conversion
import JSONKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Renders reports: results on stdout, diagnostics and the summary on stderr.
enum Output {
    struct Style {
        var json: Bool
        var quiet: Bool
        var verbose: Bool
        var dryRun = false
        var check = false
        var color = false
    }

    /// Encodes any report as sorted, pretty JSON (the layout of Foundation's `JSONEncoder` with
    /// `.sortedKeys`, `.prettyPrinted` and `.withoutEscapingSlashes`).
    static func json(_ value: some Encodable) -> String {
        (try? JSONValueEncoder().text(value)) ?? "{}"
    }

    static func render(_ report: ConversionReport, style: Style) {
        let error = style.color ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
        let warning = style.color ? "\u{1B}[1;33mwarning:\u{1B}[0m" : "warning:"
        for file in report.files {
            if file.status == .failed {
                Console.error("cafconv: \(error) \(file.input): \(file.reason ?? "failed")")
            }
            if !style.quiet {
                for text in file.warnings { Console.error("cafconv: \(warning) \(file.input): \(text)") }
                if file.status == .orphaned && !style.json {
                    Console.error(
                        "cafconv: \(warning) \(file.output ?? "?"): orphaned, \(file.reason ?? "its source is gone") (source was \(file.input); --prune deletes it)"
                    )
                }
            }
        }
        if !style.quiet {
            for text in report.warnings { Console.error("cafconv: \(warning) \(text)") }
        }
        if style.json {
            Console.output(json(report))
            return
        }
        if style.quiet { return }
        let totals = report.totals
        if style.dryRun {
            for file in report.files {
                switch file.status {
                case .outOfDate:
                    Console.output("convert: \(file.input) -> \(file.output ?? "?") (\(file.reason ?? "out of date"))")
                case .upToDate:
                    Console.output("up to date: \(file.output ?? "?")")
                case .orphaned:
                    Console.output("orphaned: \(file.output ?? "?") (\(file.reason ?? "its source is gone"))")
                default:
                    continue
                }
            }
            var summary = "\(style.check ? "check" : "dry run"): \(totals.outOfDate) to convert, \(totals.upToDate) up to date"
            summary += ", \(totals.orphaned) orphaned, \(totals.failed) failed; nothing written"
            Console.error(summary)
            return
        }
        for file in report.files {
            switch file.status {
            case .converted:
                var line = "\(file.input) -> \(file.output ?? "?") (\(file.formatIn ?? "?") -> \(file.formatOut ?? "?")"
                line += ", \(file.channels ?? 0) ch, \(file.sampleRate ?? 0) Hz, \(file.frames ?? 0) frames)"
                if style.verbose {
                    line += " \(file.bytes ?? 0) bytes in \(formatMilliseconds(file.milliseconds ?? 0))"
                    if let samples = file.samples { line += ", samples \(samples.rawValue)" }
                }
                Console.output(line)
            case .upToDate where style.verbose:
                Console.output("\(file.input) -> \(file.output ?? "?") (up to date)")
            case .pruned:
                Console.output("pruned \(file.output ?? "?") (its source \(file.input) is gone)")
            default:
                continue
            }
        }
        var summary = "\(totals.converted) converted"
        if totals.upToDate > 0 { summary += ", \(totals.upToDate) up to date" }
        summary += ", \(totals.failed) failed"
        if totals.orphaned > 0 { summary += ", \(totals.orphaned) orphaned" }
        if totals.pruned > 0 { summary += ", \(totals.pruned) pruned" }
        if totals.skipped > 0 { summary += ", \(totals.skipped) not done" }
        summary += " (\(totals.bytes) bytes written in \(formatMilliseconds(totals.milliseconds)))"
        if report.interrupted { summary += "; interrupted: run again to finish" }
        Console.error(summary)
    }

    /// A number without a fractional part when it has none (44100, not 44100.0).
    static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func formatMilliseconds(_ value: Double) -> String {
        if value >= 1000 { return "\(Double(Int(value / 10)) / 100) s" }
        return "\(Double(Int(value * 10)) / 10) ms"
    }
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

/// A live progress line on stderr (files done/total, bytes, rate, ETA), redrawn with `\r` at most
/// ten times a second. Only used on a terminal.
final class ProgressLine: Sendable {
    private struct State {
        var lastDraw: UInt64 = 0
        var width = 0
    }

    private let started = ProgressLine.now()
    private let state = Mutex(State())

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Redraws the line for one step of the run.
    func update(_ step: Engine.Progress) {
        guard step.filesTotal > 0 else { return }
        let now = Self.now()
        state.withLock { state in
            guard now - state.lastDraw >= 100_000_000 || step.filesDone == step.filesTotal else { return }
            state.lastDraw = now
            let seconds = Double(now - started) / 1e9
            let rate = seconds > 0 ? Double(step.bytesDone) / seconds : 0
            var text = "\(step.filesDone)/\(step.filesTotal) files, \(Self.size(step.bytesDone)) of \(Self.size(step.bytesTotal))"
            if rate > 0 {
                text += ", \(Self.size(UInt64(rate)))/s"
                let remaining = Double(step.bytesTotal - min(step.bytesDone, step.bytesTotal)) / rate
                text += ", ETA \(Int(remaining.rounded(.up))) s"
            }
            let padding = String(repeating: " ", count: max(0, state.width - text.count))
            state.width = text.count
            Console.error("\r" + text + padding, terminator: "")
        }
    }

    /// Erases the line.
    func clear() {
        state.withLock { state in
            guard state.width > 0 else { return }
            Console.error("\r" + String(repeating: " ", count: state.width) + "\r", terminator: "")
            state.width = 0
        }
    }

    static func size(_ bytes: UInt64) -> String {
        if bytes >= 1 << 20 { return "\(Double(bytes * 10 / (1 << 20)) / 10) MiB" }
        if bytes >= 1 << 10 { return "\(Double(bytes * 10 / (1 << 10)) / 10) KiB" }
        return "\(bytes) B"
    }
}

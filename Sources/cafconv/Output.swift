import Conversion
import FoundationEssentials

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
    }

    static func standardError(_ line: String) {
        let text = Array((line + "\n").utf8)
        text.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let wrote = write(2, raw.baseAddress.map { $0 + done }, raw.count - done)
                if wrote <= 0 { return }
                done += wrote
            }
        }
    }

    static func standardOutput(_ line: String) {
        print(line)
    }

    /// Encodes any report as sorted, pretty JSON.
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    static func render(_ report: ConversionReport, style: Style) {
        for file in report.files {
            if file.status == .failed {
                standardError("cafconv: error: \(file.input): \(file.reason ?? "failed")")
            }
            if !style.quiet {
                for warning in file.warnings { standardError("cafconv: warning: \(file.input): \(warning)") }
            }
        }
        if style.json {
            standardOutput(json(report))
            return
        }
        if !style.quiet {
            for file in report.files where file.status == .converted {
                var line = "\(file.input) -> \(file.output ?? "?") (\(file.formatIn ?? "?") -> \(file.formatOut ?? "?")"
                line += ", \(file.channels ?? 0) ch, \(file.sampleRate ?? 0) Hz, \(file.frames ?? 0) frames)"
                if style.verbose {
                    line += " \(file.bytes ?? 0) bytes in \(formatMilliseconds(file.milliseconds ?? 0))"
                }
                standardOutput(line)
            }
            let totals = report.totals
            var summary = "\(totals.converted) converted"
            if totals.upToDate > 0 { summary += ", \(totals.upToDate) up to date" }
            summary += ", \(totals.failed) failed"
            summary += " (\(totals.bytes) bytes written in \(formatMilliseconds(totals.milliseconds)))"
            standardError(summary)
        }
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

import CommandLineKit
import Conversion

/// `cafconv info`: what is inside CAF, WAV and AIFF files.
struct Info {
    static let brief = Flag("brief", help: "One line per file, like file(1).")
    static let json = Flag("json", help: "Print one JSON array, one object per file.")

    static let command = Command(
        "info",
        abstract: "Describe CAF, WAV and AIFF files: format, byte order, frames, chunks.",
        discussion: """
            The container is told from the magic bytes, not the name: a .caf that is really AIFF is \
            reported as AIFF. CAF files are also checked against the rules of the CAF specification; \
            the first broken rule is reported as the file's error.

            Exit status: 0 every file is readable and valid; 1 any file is unreadable or invalid \
            (its error names the byte offset and the rule); 64 usage error.
            """,
        positionals: Positionals("files", help: "Audio files to describe."),
        options: [brief, json])

    let files: [String]
    let brief: Bool
    let json: Bool

    /// Reads and checks the options.
    init(_ invocation: Invocation) throws(CommandLineError) {
        files = invocation.positionals
        brief = invocation[Self.brief]
        json = invocation[Self.json]
        if files.isEmpty { throw CommandLineError("give at least one file") }
        if brief && json { throw CommandLineError("--brief and --json cannot be used together") }
    }

    func run() -> Int32 {
        let reports = files.map { Inspector.inspect(path: $0) }
        if json {
            Console.output(Output.json(reports))
        } else {
            for (index, report) in reports.enumerated() {
                if brief {
                    Console.output(Self.briefLine(report))
                } else {
                    if index > 0 { Console.output("") }
                    Console.output(Self.block(report))
                }
            }
        }
        for report in reports where report.error != nil {
            Console.error("cafconv: error: \(report.path): \(report.error ?? "")")
        }
        return reports.contains(where: { $0.error != nil }) ? ExitStatus.failure : ExitStatus.success
    }

    static func containerName(_ report: AudioFileInfo) -> String {
        switch report.container {
        case "caf": return "CAF"
        case "wav": return "WAV"
        case "aiff": return "AIFF"
        default: return "unknown"
        }
    }

    static func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return "\((value * 1000).rounded() / 1000) s"
    }

    static func briefLine(_ report: AudioFileInfo) -> String {
        guard report.format != nil else { return "\(report.path): \(report.error ?? "unreadable")" }
        var parts = ["\(containerName(report)) audio", report.formatDescription ?? report.format ?? "?"]
        if let channels = report.channels {
            parts.append(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")
        }
        if let rate = report.sampleRate { parts.append("\(Output.number(rate)) Hz") }
        if let frames = report.frames { parts.append("\(frames) frames (\(seconds(report.durationSeconds)))") }
        var line = "\(report.path): " + parts.joined(separator: ", ")
        if report.error != nil {
            line += " [invalid]"
        } else if !report.warnings.isEmpty {
            line += " [\(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s")]"
        }
        return line
    }

    static func block(_ report: AudioFileInfo) -> String {
        var lines = ["File:            \(report.path)"]
        func add(_ label: String, _ value: String?) {
            guard let value else { return }
            lines.append(label.padded(17) + value)
        }
        add("Container:", containerName(report))
        if let format = report.format {
            add("Format:", "\(report.formatDescription ?? format) ('\(format)')")
        }
        if let channels = report.channels {
            add("Channels:", "\(channels)" + (report.channelLayout.map { " (\($0))" } ?? ""))
        }
        add("Sample rate:", report.sampleRate.map { "\(Output.number($0)) Hz" })
        if let valid = report.validBitsPerChannel, valid != report.bitsPerChannel { add("Valid bits:", "\(valid)") }
        add("Frames:", report.frames.map(String.init))
        add("Duration:", report.durationSeconds.map { seconds($0) })
        if let offset = report.audioOffset, let bytes = report.audioBytes {
            add("Audio:", "\(bytes) bytes at offset \(offset)")
        }
        if let packets = report.packets {
            add("Packets:", "\(packets), priming \(report.primingFrames ?? 0), remainder \(report.remainderFrames ?? 0)")
        } else if let framesPerPacket = report.framesPerPacket {
            add("Packets:", "\(framesPerPacket) frames, \(report.bytesPerPacket ?? 0) bytes each")
        }
        if !report.chunks.isEmpty {
            lines.append("Chunks:")
            for chunk in report.chunks {
                lines.append(
                    "  '\(chunk.type)'".padded(10)
                        + "at \(chunk.offset)".padded(14) + "size \(chunk.size)")
            }
        }
        if !report.info.isEmpty {
            lines.append("Info:")
            for item in report.info { lines.append("  \(item.key): \(item.value)") }
        }
        if !report.markers.isEmpty {
            lines.append("Markers:")
            for marker in report.markers.prefix(32) { lines.append("  frame \(Output.number(marker.frame)): \(marker.name)") }
            if report.markers.count > 32 { lines.append("  ... \(report.markers.count - 32) more") }
        }
        if !report.loops.isEmpty {
            lines.append("Loops:")
            for loop in report.loops {
                lines.append(
                    "  frames \(loop.start)...\(loop.end)"
                        + (loop.playCount.map { $0 == 0 ? ", forever" : ", \($0) times" } ?? ""))
            }
        }
        for warning in report.warnings { lines.append("Warning:         \(warning)") }
        if let error = report.error { lines.append("Error:           \(error)") }
        return lines.joined(separator: "\n")
    }
}

extension String {
    /// The string followed by spaces up to `width` characters (never cut).
    func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

import CommandLineKit
import Conversion
import Inspection

/// `cafconv info`: what is inside CAF, WAV and AIFF files.
struct Info {
    static let brief = Flag("brief", help: "One line per file, like file(1).")
    static let json = Flag("json", help: "Print one JSON array, one object per file.")

    static let name = "info"
    static let abstract = "Describe CAF, WAV and AIFF files: format, byte order, frames, chunks."
    static let command = Command(
        name,
        abstract: abstract,
        discussion: """
            Folders are searched recursively for *.caf, *.wav, *.wave, *.aif, *.aiff and *.aifc \
            files (any case); a folder without any is an error. The container is told from the \
            magic bytes, not the name: a .caf that is really AIFF is reported as AIFF. CAF files are \
            also checked against the rules of the CAF specification; the first broken rule is \
            reported as the file's error.

            Descriptions go to stdout; errors, and with --brief each file's warnings, go to stderr \
            right after the file's line.

            Exit status: 0 every file is readable and valid; 1 any file is unreadable or invalid \
            (its error names the byte offset and the rule), or a folder held no audio file; 64 \
            usage error.
            """,
        positionals: Positionals(
            "files", help: "Audio files, or folders to search for them.",
            completion: .fileTypes(["caf", "wav", "wave", "aif", "aiff", "aifc"])),
        options: [brief, json])

    let files: [String]
    let brief: Bool
    let json: Bool

    /// Reads and checks the options.
    init(_ invocation: Invocation) throws(CommandLineError) {
        files = invocation.positionals
        brief = invocation[Self.brief]
        json = invocation[Self.json]
        if files.isEmpty { throw CommandLineError("give at least one file or folder") }
        if brief && json { throw CommandLineError("--brief and --json cannot be used together") }
    }

    func run() -> Int32 {
        var failed = false
        var reports: [AudioFileInfo] = []
        var described = 0
        func describe(_ path: String) {
            let report = Inspector.inspect(path: path)
            if report.error != nil { failed = true }
            if json {
                reports.append(report)
                return
            }
            if brief {
                Console.output(Self.briefLine(report))
                for warning in report.warnings { Console.error("\(Output.warningPrefix()) \(report.path): \(warning)") }
            } else {
                if described > 0 { Console.output("") }
                for line in Self.block(report) { Console.output(line) }
            }
            described += 1
            if let error = report.error { Console.error("\(Output.errorPrefix()) \(report.path): \(error)") }
        }
        for path in files {
            guard Planner.isFolder(path) else {
                describe(path)
                continue
            }
            let found = Planner.files(under: path, matching: Inspector.isAudioName)
            if found.isEmpty {
                failed = true
                let reason = "no audio files found (*.caf, *.wav, *.wave, *.aif, *.aiff, *.aifc, searched recursively)"
                // With --json the folder is an entry of the array, like any file that fails.
                if json {
                    reports.append(Inspector.failure(path, error: reason))
                } else {
                    Console.error("\(Output.errorPrefix()) \(path): \(reason)")
                }
            }
            for relative in found { describe(path.hasSuffix("/") ? path + relative : path + "/" + relative) }
        }
        if json { Console.output(Output.json(reports)) }
        return failed ? ExitStatus.failure : ExitStatus.success
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
        if let frames = report.frames { parts.append("\(Output.count(frames, "frame")) (\(seconds(report.durationSeconds)))") }
        var line = "\(report.path): " + parts.joined(separator: ", ")
        if report.error != nil {
            line += " [invalid]"
        } else if !report.warnings.isEmpty {
            line += " [\(Output.count(report.warnings.count, "warning"))]"
        }
        return line
    }

    /// The lines that describe one file. (Printed one by one: joining them was the process's
    /// first call of the standard library's generic `joined(separator:)`, ~0.13 M instructions.)
    static func block(_ report: AudioFileInfo) -> [String] {
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
            add("Audio:", "\(Output.count(bytes, "byte")) at offset \(offset)")
        }
        if let packets = report.packets {
            add("Packets:", "\(packets), priming \(report.primingFrames ?? 0), remainder \(report.remainderFrames ?? 0)")
        } else if let framesPerPacket = report.framesPerPacket {
            add(
                "Packets:",
                "\(Output.count(framesPerPacket, "frame")), \(Output.count(report.bytesPerPacket ?? 0, "byte")) each")
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
            for marker in report.markers.prefix(32) {
                let name = marker.name.isEmpty ? "" : "\(marker.name) "
                lines.append("  frame \(Output.number(marker.frame)): \(name)(\(marker.type) #\(marker.id))")
            }
            if report.markers.count > 32 { lines.append("  ... \(report.markers.count - 32) more") }
        }
        if !report.loops.isEmpty {
            lines.append("Loops:")
            for loop in report.loops {
                lines.append(
                    "  frames \(loop.start)...\(loop.end), \(loop.kind)" + (loop.role.map { ", \($0) loop" } ?? "")
                        + (loop.playCount.map { $0 == 0 ? ", forever" : ", " + Output.count($0, "time") } ?? "")
                        + (loop.name.map { ": \($0)" } ?? ""))
            }
        }
        if !report.regions.isEmpty {
            lines.append("Regions:")
            for region in report.regions.prefix(32) {
                let span = [region.start, region.end].map { $0.map(Output.number) ?? "?" }.joined(separator: "...")
                lines.append(
                    "  #\(region.id) frames \(span), flags \(region.flags)" + (region.name.isEmpty ? "" : ": \(region.name)"))
            }
            if report.regions.count > 32 { lines.append("  ... \(report.regions.count - 32) more") }
        }
        if let inst = report.instrument {
            var parts = ["base note \(Output.number(inst.baseNote))"]
            if let low = inst.lowNote, let high = inst.highNote { parts.append("notes \(low)...\(high)") }
            if let low = inst.lowVelocity, let high = inst.highVelocity { parts.append("velocities \(low)...\(high)") }
            if let gain = inst.gain { parts.append("gain \(Output.number(gain)) dB") }
            if let id = inst.sustainRegion { parts.append("sustain region #\(id)") }
            if let id = inst.releaseRegion { parts.append("release region #\(id)") }
            add("Instrument:", parts.joined(separator: ", "))
        }
        for warning in report.warnings { lines.append("Warning:         \(warning)") }
        if let error = report.error { lines.append("Error:           \(error)") }
        return lines
    }
}

extension String {
    /// The string followed by spaces up to `width` characters (never cut).
    func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

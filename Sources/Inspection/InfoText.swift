import BinaryIO

/// The text `cafconv info` prints for a report: a block of lines per file, or one line with
/// `--brief`. Every line is passed through ``PathBytes/display(_:)``: text from a file (INFO
/// titles, cue labels, marker names, CAF strings, AIFF text chunks) cannot drive the terminal or
/// forge a line; `--json` carries the same text exactly.
public enum InfoText {
    /// `N singular` or `N plurals`.
    public static func count(_ value: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
        "\(value) " + (value == 1 ? singular : plural ?? singular + "s")
    }

    /// A number without a fractional part when it has none (44100, not 44100.0).
    public static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    public static func containerName(_ report: AudioFileInfo) -> String {
        switch report.container {
        case "caf": return "CAF"
        case "wav": return "WAV"
        case "aiff": return "AIFF"
        case "flac": return "FLAC"
        case "mp3": return "MP3"
        case "ogg": return "Ogg"
        case "au": return "Sun/NeXT AU"
        case "w64": return "Wave64"
        case let other?: return other
        default: return "unknown"
        }
    }

    public static func seconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return "\((value * 1000).rounded() / 1000) s"
    }

    public static func briefLine(_ report: AudioFileInfo) -> String {
        guard report.format != nil else { return PathBytes.display("\(report.path): \(report.error ?? "unreadable")") }
        var parts = ["\(containerName(report)) audio", report.formatDescription ?? report.format ?? "?"]
        if let channels = report.channels {
            parts.append(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")
        }
        if let rate = report.sampleRate { parts.append("\(number(rate)) Hz") }
        if let frames = report.frames { parts.append("\(count(frames, "frame")) (\(seconds(report.durationSeconds)))") }
        var line = "\(report.path): " + parts.joined(separator: ", ")
        if report.error != nil {
            line += " [invalid]"
        } else if !report.warnings.isEmpty {
            line += " [\(count(report.warnings.count, "warning"))]"
        }
        return PathBytes.display(line)
    }

    /// The packet count, with the layout of constant packets (IMA4: 64 frames in 34 bytes a
    /// channel) and the `pakt` priming and remainder when there is one; `nil` without packets.
    static func packetsLine(_ report: AudioFileInfo) -> String? {
        var layout: String?
        if let frames = report.framesPerPacket, frames > 0, let bytes = report.bytesPerPacket, bytes > 0 {
            layout = "\(count(frames, "frame")), \(count(bytes, "byte")) each"
        }
        guard let packets = report.packets else { return layout }
        var line = "\(packets)" + (layout.map { " (\($0))" } ?? "")
        if report.primingFrames != nil || report.remainderFrames != nil {
            line += ", priming \(report.primingFrames ?? 0), remainder \(report.remainderFrames ?? 0)"
        }
        return line
    }

    /// The `inst` chunk in one line: base note, note and velocity ranges, gain, loop regions.
    static func instrumentLine(_ inst: AudioFileInfo.Instrument) -> String {
        var parts = ["base note \(number(inst.baseNote))"]
        if let low = inst.lowNote, let high = inst.highNote { parts.append("notes \(low)...\(high)") }
        if let low = inst.lowVelocity, let high = inst.highVelocity { parts.append("velocities \(low)...\(high)") }
        if let gain = inst.gain { parts.append("gain \(number(gain)) dB") }
        if let id = inst.sustainRegion { parts.append("sustain region #\(id)") }
        if let id = inst.releaseRegion { parts.append("release region #\(id)") }
        return parts.joined(separator: ", ")
    }

    /// The lines that describe one file. (Printed one by one: joining them would be the
    /// process's only call of the standard library's generic `joined(separator:)`, paid at
    /// every start.)
    public static func block(_ report: AudioFileInfo) -> [String] {
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
        add("Sample rate:", report.sampleRate.map { "\(number($0)) Hz" })
        if let valid = report.validBitsPerChannel, valid != report.bitsPerChannel { add("Valid bits:", "\(valid)") }
        add("Frames:", report.frames.map(String.init))
        add("Duration:", report.durationSeconds.map { seconds($0) })
        if let offset = report.audioOffset, let bytes = report.audioBytes {
            add("Audio:", "\(count(bytes, "byte")) at offset \(offset)")
        }
        add("Packets:", packetsLine(report))
        add("Bit rate:", report.bitRate.map { "\($0) bits per second" })
        if let maximum = report.maximumPacketSize {
            let bound = report.packetSizeUpperBound.map { ", upper bound \($0)" } ?? ""
            add("Packet size:", "at most \(count(maximum, "byte"))" + bound)
        }
        add("Source depth:", report.sourceBitDepth)
        add("Opus header:", report.opusHeader)
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
                lines.append("  frame \(number(marker.frame)): \(name)(\(marker.type) #\(marker.id))")
            }
            if report.markers.count > 32 { lines.append("  ... \(report.markers.count - 32) more") }
        }
        if !report.loops.isEmpty {
            lines.append("Loops:")
            for loop in report.loops {
                lines.append(
                    "  frames \(loop.start)...\(loop.end), \(loop.kind)" + (loop.role.map { ", \($0) loop" } ?? "")
                        + (loop.playCount.map { $0 == 0 ? ", forever" : ", " + count($0, "time") } ?? "")
                        + (loop.name.map { ": \($0)" } ?? ""))
            }
        }
        if !report.regions.isEmpty {
            lines.append("Regions:")
            for region in report.regions.prefix(32) {
                let span = [region.start, region.end].map { $0.map(number) ?? "?" }.joined(separator: "...")
                lines.append(
                    "  #\(region.id) frames \(span), flags \(region.flags)" + (region.name.isEmpty ? "" : ": \(region.name)"))
            }
            if report.regions.count > 32 { lines.append("  ... \(report.regions.count - 32) more") }
        }
        add("Instrument:", report.instrument.map(instrumentLine))
        for warning in report.warnings { lines.append("Warning:         \(warning)") }
        if let error = report.error { lines.append("Error:           \(error)") }
        // Names, chunk text, info strings, markers, warnings: every piece may come from the
        // file, so every line is escaped as a whole (one line stays one line).
        return lines.map(PathBytes.display)
    }
}

extension String {
    /// The string followed by spaces up to `width` characters (never cut).
    func padded(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

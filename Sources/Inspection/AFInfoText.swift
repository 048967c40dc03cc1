import BinaryIO

/// What `cafconv afinfo` prints for a report: Apple's afinfo's lines, field names, order and
/// number formats (the macOS 12 and later spelling: `Int16` for the common linear PCM layouts,
/// codes without quotes), so that scripts that grep afinfo's output read cafconv's the same
/// way. The published outputs each line is checked against are listed in
/// `Tests/cafconvTests/AFInfoEndToEndTests.swift`; docs/afinfo.md says what differs.
public enum AFInfoText {
    /// The full description of one file, from `File:` to the closing `----`; with `info`, the
    /// file's information strings too (afinfo's `-i`).
    public static func block(_ report: AudioFileInfo, info: Bool = false) -> [String] {
        var lines = [
            "File:           \(report.path)", "File type ID:   \(report.fileTypeID ?? "????")", "Num Tracks:     1", "----",
            "Data format:    " + dataFormat(report),
        ]
        if let layout = layoutName(report) {
            lines.append("Channel layout: \(layout)")
        } else {
            lines.append("                no channel layout.")
        }
        if let seconds = report.durationSeconds { lines.append("estimated duration: \(fixed(seconds, 6)) sec") }
        if let bytes = report.audioBytes { lines.append("audio bytes: \(bytes)") }
        if let packets = packets(report) { lines.append("audio packets: \(packets)") }
        if let rate = report.bitRate { lines.append("bit rate: \(rate) bits per second") }
        if let bound = report.packetSizeUpperBound { lines.append("packet size upper bound: \(bound)") }
        if let maximum = report.maximumPacketSize { lines.append("maximum packet size: \(maximum)") }
        if let offset = report.audioOffset { lines.append("audio data file offset: \(offset)") }
        if let optimized = report.optimized { lines.append(optimized ? "optimized" : "not optimized") }
        if let frames = frameLine(report) { lines.append(frames) }
        if report.format?.hasPrefix("aac") == true {
            lines.append("format list:")
            lines.append(formatListItem + dataFormat(report))
            if let layout = layoutName(report) { lines.append("Channel layout: \(layout)") }
        }
        if let depth = report.sourceBitDepth { lines.append("source bit depth: \(depth)") }
        if info && !report.info.isEmpty {
            lines.append("info dictionary:")
            for item in report.info { lines.append("    " + item.key.padded(33) + ": \"\(item.value)\"") }
        }
        lines.append("----")
        // Every line may hold text from the file or its name: escaped whole, as `info` does; the
        // tab afinfo writes after `format:` is its own.
        return lines.map { line in
            guard line.hasPrefix(formatListItem) else { return PathBytes.display(line) }
            return formatListItem + PathBytes.display(String(line.dropFirst(formatListItem.count)))
        }
    }

    /// The start of afinfo's format list entry, with its tab.
    static let formatListItem = "[ 0] format:\t"

    /// afinfo's `-b`: the name, the type and the track count, then the duration and the format.
    public static func brief(_ report: AudioFileInfo) -> [String] {
        [
            "\(report.path), \(report.fileTypeID ?? "????"), Num Tracks:     1", "----",
            "\(report.durationSeconds.map { fixed($0, 3) } ?? "?") sec, format:  " + dataFormat(report),
        ].map(PathBytes.display)
    }

    /// The stream description as afinfo writes it: `%2d ch, %6.0f Hz, ` and then the common
    /// linear PCM names (`Int16`, `Float32`, with `, interleaved` for more than one channel), or
    /// the code and flags with the linear PCM layout in words, or the packet layout.
    public static func dataFormat(_ report: AudioFileInfo) -> String {
        let channels = report.channels ?? 0
        let rate = report.sampleRate.map { $0.isFinite ? fixed(abs($0), 0) : "\($0)" } ?? "0"
        let head = right("\(channels)", 2) + " ch, " + right(rate, 6) + " Hz, "
        guard let format = report.format else { return head }
        let flags = report.formatFlags ?? 0
        let code = String(format.padded(4).prefix(4)) + " (0x" + right(String(flags, radix: 16, uppercase: true), 8, "0") + ")"
        let bits = report.bitsPerChannel ?? 0
        if format == "lpcm" {
            if let common = commonName(report) { return head + common + (channels > 1 ? ", interleaved" : "") }
            return head + code + " " + linearWords(report, bits: bits, flags: flags)
        }
        let framesPerPacket = report.framesPerPacket ?? 0
        if format == "alac" || format == "flac", let depth = report.sourceBitDepth {
            return head + code + " from \(depth.dropFirst())-bit source, \(framesPerPacket) frames/packet"
        }
        return head + code
            + " \(bits) bits/channel, \(report.bytesPerPacket ?? 0) bytes/packet, \(framesPerPacket) frames/packet, \(report.bytesPerFrame ?? 0) bytes/frame"
    }

    /// `Int16`, `Int32`, `Float32`, `Float64`: packed little-endian (native) samples.
    static func commonName(_ report: AudioFileInfo) -> String? {
        let flags = report.formatFlags ?? 0
        guard flags & 8 != 0, flags & 2 == 0, let bits = report.bitsPerChannel else { return nil }
        if flags & 1 != 0 { return bits == 32 || bits == 64 ? "Float\(bits)" : nil }
        guard flags & 4 != 0 else { return nil }
        return bits == 16 || bits == 32 ? "Int\(bits)" : nil
    }

    /// `24-bit little-endian signed integer`, `8-bit unsigned integer`, `32-bit big-endian float`;
    /// `, packed in 4 bytes` when the word is wider than the sample.
    static func linearWords(_ report: AudioFileInfo, bits: Int, flags: UInt32) -> String {
        let channels = UInt32(clamping: max(report.channels ?? 1, 1))
        let word = Int((report.bytesPerFrame ?? 0) / channels)
        let isFloat = flags & 1 != 0
        let endian = word > 1 ? (flags & 2 != 0 ? " big-endian" : " little-endian") : ""
        let sign = isFloat ? "" : flags & 4 != 0 ? " signed" : " unsigned"
        var text = "\(bits)-bit\(endian)\(sign) \(isFloat ? "float" : "integer")"
        if word > 0, word * 8 != bits { text += ", \(flags & 8 != 0 ? "packed" : "unpacked") in \(word) bytes" }
        return text
    }

    /// afinfo's names of the common layouts; `nil` when the file has none (or one afinfo would
    /// name differently and cafconv does not know how).
    static func layoutName(_ report: AudioFileInfo) -> String? {
        switch report.channelLayout {
        case "Mono"?: "Mono"
        case "Stereo"?, "WAVE channel mask 0x3"?: "Stereo (L R)"
        case "StereoHeadphones"?: "Stereo Headphones (L R)"
        case "Quadraphonic"?: "Quadraphonic (L R Ls Rs)"
        case "MPEG 5.1 A"?: "MPEG 5.1 A (L R C LFE Ls Rs)"
        case "MPEG 7.1 A"?: "MPEG 7.1 A (L R C LFE Ls Rs Lc Rc)"
        default: nil
        }
    }

    /// Packets: the report's count, else (linear PCM, G.711) the audio bytes over the frame size.
    static func packets(_ report: AudioFileInfo) -> Int64? {
        if let packets = report.packets { return packets }
        guard let bytes = report.audioBytes, let frame = report.bytesPerFrame, frame > 0 else { return nil }
        return Int64(clamping: bytes / UInt64(frame))
    }

    /// `audio V valid frames + P priming + R remainder = T`: what a CAF's `pakt` (or, without
    /// one, its whole packets) says; other containers have no such count (afinfo prints none).
    static func frameLine(_ report: AudioFileInfo) -> String? {
        guard report.container == "caf" || report.primingFrames != nil, let valid = report.frames else { return nil }
        let priming = Int64(report.primingFrames ?? 0)
        var remainder = Int64(report.remainderFrames ?? 0)
        var total = Int64(clamping: valid) &+ priming &+ remainder
        if let count = packets(report), let frames = report.framesPerPacket ?? (report.format == "lpcm" ? 1 : nil) {
            let (whole, overflow) = count.multipliedReportingOverflow(by: Int64(frames))
            if !overflow, report.remainderFrames == nil, whole >= total {
                remainder = whole - total
                total = whole
            }
        }
        return "audio \(valid) valid frames + \(priming) priming + \(remainder) remainder = \(total)"
    }

    /// `value` with `decimals` digits after the point, rounded to nearest (printf's `%.*f` for
    /// the values afinfo prints: finite and not negative).
    package static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite, value >= 0, value < 1e15 else { return "\(value)" }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        guard let scaled = UInt64(exactly: (value * scale).rounded()) else { return "\(value)" }
        let divisor = UInt64(scale)
        let whole = "\(scaled / divisor)"
        guard decimals > 0 else { return whole }
        return whole + "." + right("\(scaled % divisor)", decimals, "0")
    }

    /// `text` right-aligned in `width` characters (never cut).
    package static func right(_ text: String, _ width: Int, _ fill: Character = " ") -> String {
        text.count >= width ? text : String(repeating: fill, count: width - text.count) + text
    }
}

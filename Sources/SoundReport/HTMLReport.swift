import SoundLevels

/// The report as one self-contained HTML page: a summary, then a table with one row per file
/// (sortable by column, filterable by name, usable by keyboard) whose last cell is the file's
/// waveform as SVG. No network: no external script, style, font or image, and a content
/// security policy that forbids them. Deterministic: the same entries give the same bytes.
public enum HTMLReport {
    /// The width of a waveform in SVG user units: a frame `f` of a file of `n` frames (and its
    /// source's full length when longer) sits at `x = f / n * width`.
    public static let waveWidth = 1000.0
    /// The height of one channel's lane in SVG user units; a sample `v` of channel `c` sits at
    /// `y = c * laneHeight + laneHeight / 2 - v * amplitude`.
    public static let laneHeight = 60.0
    public static let amplitude = 28.0
    /// Loops, markers and regions drawn per file at most (the rest are counted).
    public static let marksDrawn = 64

    /// A column of the table.
    struct Column {
        var key: String
        var label: String
        var numeric: Bool
    }

    static let columns: [Column] = [
        Column(key: "name", label: "Name", numeric: false),
        Column(key: "format", label: "Format", numeric: false),
        Column(key: "duration", label: "Duration (s)", numeric: true),
        Column(key: "size", label: "Size", numeric: true),
        Column(key: "bitrate", label: "Bit rate (kb/s)", numeric: true),
        Column(key: "channels", label: "Ch", numeric: true),
        Column(key: "rate", label: "Rate (Hz)", numeric: true),
        Column(key: "peak", label: "Peak (dBFS)", numeric: true),
        Column(key: "truepeak", label: "True peak (dBTP)", numeric: true),
        Column(key: "loudness", label: "Loudness (LUFS)", numeric: true),
        Column(key: "snr", label: "SNR (dB)", numeric: true),
        Column(key: "status", label: "Status", numeric: false),
    ]

    /// The page for `entries` (failures first, then by name), titled `title`.
    public static func render(_ entries: [ReportEntry], title: String = "Sound report") -> String {
        let ordered = order(entries)
        var html = ""
        html.reserveCapacity(4096 + ordered.count * 12_000)
        html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html +=
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta name=\"generator\" content=\"cafconv report\">\n"
        html += "<title>\(HTMLText.escape(title))</title>\n<style>\n\(style)</style>\n</head>\n<body>\n"
        html += "<header><h1>\(HTMLText.escape(title))</h1>\n"
        summary(ordered, into: &html)
        html += "</header>\n<main>\n"
        html +=
            "<div class=\"controls\"><label for=\"filter\">Filter by name</label> <input id=\"filter\" type=\"search\" placeholder=\"name contains… (press /)\" autocomplete=\"off\"> <span id=\"shown\" role=\"status\" aria-live=\"polite\">\(ordered.count) of \(ordered.count) shown</span></div>\n"
        html += "<table id=\"files\">\n<caption>One row per file; press a column's button to sort by it.</caption>\n<thead><tr>"
        for column in columns {
            html +=
                "<th scope=\"col\" data-key=\"\(column.key)\" data-kind=\"\(column.numeric ? "num" : "text")\"><button type=\"button\">\(column.label)</button></th>"
        }
        html += "<th scope=\"col\" data-key=\"wave\">Waveform</th></tr></thead>\n<tbody>\n"
        for (index, entry) in ordered.enumerated() { row(entry, index: index, into: &html) }
        html += "</tbody>\n</table>\n</main>\n<script>\n\(script)</script>\n</body>\n</html>\n"
        return html
    }

    /// Failures first, then by name (then path), so the page reads the same every time.
    public static func order(_ entries: [ReportEntry]) -> [ReportEntry] {
        entries.enumerated().sorted { left, right in
            let (a, b) = (left.element, right.element)
            if (a.failure != nil) != (b.failure != nil) { return a.failure != nil }
            if a.name != b.name { return a.name < b.name }
            if a.sound.path != b.sound.path { return a.sound.path < b.sound.path }
            return left.offset < right.offset
        }.map(\.element)
    }

    // MARK: The summary

    static func summary(_ entries: [ReportEntry], into html: inout String) {
        let failed = entries.filter { $0.failure != nil }
        let warned = entries.filter { !$0.warnings.isEmpty }
        let clipped = entries.filter { ($0.sound.samplePeak ?? 0) >= 1 }
        html += "<section id=\"summary\" aria-label=\"Summary\">\n<p class=\"counts\">"
        html += "<strong data-summary=\"files\">\(entries.count)</strong> \(entries.count == 1 ? "file" : "files"), "
        html += "<strong data-summary=\"failed\">\(failed.count)</strong> failed, "
        html += "<strong data-summary=\"warned\">\(warned.count)</strong> with warnings, "
        html += "<strong data-summary=\"clipped\">\(clipped.count)</strong> clipped (a sample at full scale)</p>\n"
        if !failed.isEmpty {
            html += "<div class=\"failures\"><h2>Failures</h2><ul>"
            for entry in failed {
                html +=
                    "<li><a href=\"#\(anchor(entry))\">\(HTMLText.escape(entry.name))</a>: \(HTMLText.escape(entry.failure ?? ""))</li>"
            }
            html += "</ul></div>\n"
        }
        // Counts by format.
        var counts: [String: Int] = [:]
        for entry in entries where entry.failure == nil { counts[formatName(entry.sound), default: 0] += 1 }
        if !counts.isEmpty {
            html += "<div><h2>Formats</h2><ul class=\"formats\">"
            for (name, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                html += "<li><span class=\"n\">\(count)</span> \(HTMLText.escape(name))</li>"
            }
            html += "</ul></div>\n"
        }
        // Sizes.
        let after = entries.reduce(UInt64(0)) { $0 &+ ($1.sound.bytes ?? 0) }
        html += "<div><h2>Sizes</h2><p>"
        if entries.contains(where: { $0.source != nil }) {
            let before = entries.reduce(UInt64(0)) { $0 &+ ($1.source?.bytes ?? 0) }
            html +=
                "before <strong data-summary=\"before\" data-bytes=\"\(before)\">\(HTMLText.bytes(before))</strong>, after <strong data-summary=\"after\" data-bytes=\"\(after)\">\(HTMLText.bytes(after))</strong>"
        } else {
            html += "total <strong data-summary=\"after\" data-bytes=\"\(after)\">\(HTMLText.bytes(after))</strong>"
        }
        html += "</p></div>\n"
        // Loudest and quietest, by loudness when measured, else by true peak.
        let candidates = entries.filter { $0.failure == nil && $0.sound.envelope != nil }
        let byLoudness = !candidates.isEmpty && candidates.allSatisfy { $0.sound.loudnessUnmeasured == nil }
        let measured = candidates.filter { level($0, byLoudness: byLoudness) != nil }
        if !measured.isEmpty {
            let sorted = measured.sorted { (level($0, byLoudness: byLoudness) ?? 0) > (level($1, byLoudness: byLoudness) ?? 0) }
            let unit = byLoudness ? "LUFS" : "dBTP"
            html += "<div><h2>Outliers (by \(byLoudness ? "loudness" : "true peak; loudness not measured"))</h2>"
            for (label, list) in [("Loudest", Array(sorted.prefix(3))), ("Quietest", Array(sorted.reversed().prefix(3)))] {
                html += "<p class=\"outliers\" data-summary=\"\(label.lowercased())\">\(label): "
                html += list.map { entry in
                    "<a href=\"#\(anchor(entry))\">\(HTMLText.escape(entry.name))</a> (\(decibelText(level(entry, byLoudness: byLoudness), unit: unit)))"
                }.joined(separator: ", ")
                html += "</p>"
            }
            html += "</div>\n"
        }
        html += "</section>\n"
    }

    /// The loudness cell: LUFS, "silent" below the gate, or "not measured" with the reason.
    static func loudnessCell(_ sound: ReportSound, into html: inout String) {
        if let loudness = sound.loudness, loudness.isFinite {
            let text = HTMLText.fixed(loudness, 1)
            cell("loudness", "Loudness (LUFS)", value: text, text: text, into: &html)
        } else if sound.loudnessUnmeasured == nil {
            // Measured, and below the -70 LUFS absolute gate: sorts below every loudness.
            cell("loudness", "Loudness (LUFS)", value: "-1000", text: "<span class=\"muted\">silent</span>", into: &html)
        } else {
            let why = HTMLText.escape(sound.loudnessUnmeasured ?? "")
            cell(
                "loudness", "Loudness (LUFS)", value: "",
                text: "<span class=\"muted\" title=\"\(why)\">not measured</span>", into: &html)
        }
    }

    /// The level outliers are picked by: the integrated loudness when every file's was measured
    /// (silence, below the gate, is the lowest), else the true peak (in dB; silence is the lowest).
    static func level(_ entry: ReportEntry, byLoudness: Bool) -> Double? {
        if byLoudness { return entry.sound.loudness ?? -1000 }
        guard let peak = entry.sound.truePeak else { return nil }
        return HTMLText.decibels(peak) ?? -1000
    }

    static func decibelText(_ value: Double?, unit: String) -> String {
        guard let value else { return "?" }
        return value <= -1000 ? "silent" : HTMLText.fixed(value, 1) + " " + unit
    }

    static func formatName(_ sound: ReportSound) -> String {
        [sound.container, sound.format].compactMap { $0 }.joined(separator: " ").nonEmpty ?? "unknown"
    }

    /// The row's id: its position in the ordered list (names may hold anything).
    static func anchor(_ entry: ReportEntry) -> String {
        "f-" + String(UInt64(truncatingIfNeeded: stableHash(entry.sound.path)), radix: 36)
    }

    /// FNV-1a of the path's bytes: the same path gives the same id on every run.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    // MARK: A row

    static func cell(
        _ key: String, _ label: String, value: String, text: String, title: String? = nil, into html: inout String
    ) {
        html += "<td data-key=\"\(key)\" data-label=\"\(label)\" data-v=\"\(HTMLText.escape(value))\""
        if let title { html += " title=\"\(HTMLText.escape(title))\"" }
        html += ">\(text)</td>"
    }

    static func number(_ value: Double?, _ decimals: Int) -> (value: String, text: String) {
        guard let value, value.isFinite else { return ("", "—") }
        let text = HTMLText.fixed(value, decimals)
        return (text, text)
    }

    static func decibels(_ level: Double?) -> (value: String, text: String) {
        guard let level else { return ("", "—") }
        guard let db = HTMLText.decibels(level) else { return ("-1000", "−∞") }
        let text = HTMLText.fixed(db, 2)
        return (text, text)
    }

    static func row(_ entry: ReportEntry, index: Int, into html: inout String) {
        let sound = entry.sound
        var classes: [String] = []
        if entry.failure != nil { classes.append("failed") }
        if !entry.warnings.isEmpty { classes.append("warned") }
        if (sound.samplePeak ?? 0) >= 1 { classes.append("clipped") }
        html +=
            "<tr id=\"\(anchor(entry))\" data-i=\"\(index)\" data-name=\"\(HTMLText.escape(entry.name.lowercased()))\"\(classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"")>"
        cell(
            "name", "Name", value: entry.name,
            text: "<span class=\"name\">\(HTMLText.escape(entry.name))</span><span class=\"path\">\(HTMLText.escape(sound.path))</span>",
            into: &html)
        let format = formatName(sound)
        cell(
            "format", "Format", value: format,
            text: HTMLText.escape(sound.formatLine ?? format),
            into: &html)
        var duration = number(sound.duration, 3)
        if let own = sound.duration, let before = entry.source?.duration, abs(own - before) >= 0.0005 {
            duration.text += "<span class=\"line changed\">source \(HTMLText.fixed(before, 3))</span>"
        }
        cell("duration", "Duration (s)", value: duration.value, text: duration.text, into: &html)
        if let bytes = sound.bytes {
            var text = HTMLText.bytes(bytes)
            if let before = entry.source?.bytes { text += "<span class=\"line\">source \(HTMLText.bytes(before))</span>" }
            cell("size", "Size", value: "\(bytes)", text: text, into: &html)
        } else {
            cell("size", "Size", value: "", text: "—", into: &html)
        }
        let bitRate = number(sound.bitRate.map { $0 / 1000 }, 1)
        cell("bitrate", "Bit rate (kb/s)", value: bitRate.value, text: bitRate.text, into: &html)
        let channels = number(sound.channels.map(Double.init), 0)
        cell("channels", "Ch", value: channels.value, text: channels.text, into: &html)
        var rate = number(sound.sampleRate, sound.sampleRate.map { $0.rounded() == $0 } ?? true ? 0 : 3)
        if let sourceRate = entry.source?.sampleRate, sourceRate != sound.sampleRate {
            rate.text += "<span class=\"line\">source \(HTMLText.fixed(sourceRate, sourceRate.rounded() == sourceRate ? 0 : 3))</span>"
        }
        cell("rate", "Rate (Hz)", value: rate.value, text: rate.text, into: &html)
        let peak = decibels(sound.samplePeak)
        cell(
            "peak", "Peak (dBFS)", value: peak.value,
            text: peak.text + ((sound.samplePeak ?? 0) >= 1 ? " <span class=\"badge\">clipped</span>" : ""), into: &html)
        let truePeak = decibels(sound.truePeak)
        cell("truepeak", "True peak (dBTP)", value: truePeak.value, text: truePeak.text, into: &html)
        loudnessCell(sound, into: &html)
        let snr = number(entry.snr, 2)
        cell("snr", "SNR (dB)", value: snr.value, text: snr.text, into: &html)
        // Status: failure, warnings, proof.
        var status = ""
        let state: String
        if let failure = entry.failure {
            state = "0 failed"
            status += "<strong class=\"bad\">failed</strong> <span class=\"why\">\(HTMLText.escape(failure))</span>"
        } else if !entry.warnings.isEmpty {
            state = "1 warnings"
            status += "<strong class=\"warn\">\(entry.warnings.count == 1 ? "1 warning" : "\(entry.warnings.count) warnings")</strong>"
        } else {
            state = "2 ok"
            status += "<strong class=\"ok\">ok</strong>"
        }
        if let proof = entry.proof { status += "<span class=\"line proof\">\(HTMLText.escape(proof))</span>" }
        if !entry.warnings.isEmpty {
            status += "<ul class=\"warnings\">"
            for warning in entry.warnings { status += "<li>\(HTMLText.escape(warning))</li>" }
            status += "</ul>"
        }
        cell("status", "Status", value: state, text: status, into: &html)
        html += "<td data-key=\"wave\" data-label=\"Waveform\">"
        waveform(entry, into: &html)
        html += "</td></tr>\n"
    }

    // MARK: The waveform

    /// The SVG of a file's envelope (and its source's, beneath it), its loops, markers and
    /// regions, and their labels.
    public static func waveform(_ entry: ReportEntry, into html: inout String) {
        let sound = entry.sound
        guard let envelope = sound.envelope, envelope.frames > 0 else {
            html += "<span class=\"muted\">\(entry.failure == nil ? "no audio" : "—")</span>"
            return
        }
        let lanes = max(1, envelope.channels.count)
        let height = laneHeight * Double(lanes)
        // Both sides on one time axis: the longer one fills the width.
        let ownSeconds = seconds(envelope.frames, sound.sampleRate)
        var fullSeconds = ownSeconds
        if let source = entry.source, let sourceEnvelope = source.envelope {
            fullSeconds = max(fullSeconds, seconds(sourceEnvelope.frames, source.sampleRate))
        }
        let ownWidth = fullSeconds > 0 ? waveWidth * ownSeconds / fullSeconds : waveWidth
        html +=
            "<div class=\"wave\" data-frames=\"\(envelope.frames)\" data-span=\"\(envelope.span)\" data-width=\"\(HTMLText.fixed(ownWidth, 3))\">"
        html +=
            "<svg viewBox=\"0 0 \(HTMLText.fixed(waveWidth, 0)) \(HTMLText.fixed(height, 0))\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"waveform of \(HTMLText.escape(entry.name)), \(lanes == 1 ? "1 channel" : "\(lanes) channels")\" style=\"height:\(lanes * 3)em\">"
        let marks = sound.marks.prefix(marksDrawn)
        let frameWidth = ownWidth / Double(envelope.frames)
        // Loops and regions beneath the signal.
        for mark in marks where mark.end != nil {
            let x0 = mark.start * frameWidth
            let x1 = (mark.end ?? mark.start) * frameWidth
            html +=
                "<rect class=\"\(mark.kind.rawValue)\" x=\"\(HTMLText.fixed(x0, 3))\" y=\"0\" width=\"\(HTMLText.fixed(max(0, x1 - x0), 3))\" height=\"\(HTMLText.fixed(height, 0))\" data-start=\"\(HTMLText.fixed(mark.start, 0))\" data-end=\"\(HTMLText.fixed(mark.end ?? mark.start, 0))\"/>"
        }
        if let source = entry.source, let sourceEnvelope = source.envelope, sourceEnvelope.frames > 0 {
            let sourceWidth = fullSeconds > 0 ? waveWidth * seconds(sourceEnvelope.frames, source.sampleRate) / fullSeconds : waveWidth
            for (channel, lane) in sourceEnvelope.channels.prefix(lanes).enumerated() {
                polygon(lane, envelope: sourceEnvelope, width: sourceWidth, channel: channel, kind: "src", into: &html)
            }
        }
        for (channel, lane) in envelope.channels.enumerated() {
            let centre = laneHeight * Double(channel) + laneHeight / 2
            html +=
                "<line class=\"axis\" x1=\"0\" x2=\"\(HTMLText.fixed(waveWidth, 0))\" y1=\"\(HTMLText.fixed(centre, 1))\" y2=\"\(HTMLText.fixed(centre, 1))\"/>"
            polygon(lane, envelope: envelope, width: ownWidth, channel: channel, kind: "env", into: &html)
        }
        // Markers and the starts and ends of loops and regions above it.
        for mark in marks {
            for (edge, frame) in [("start", mark.start), ("end", mark.end)] {
                guard let frame else { continue }
                let x = HTMLText.fixed(frame * frameWidth, 3)
                html +=
                    "<line class=\"edge \(mark.kind.rawValue) \(edge)\" x1=\"\(x)\" x2=\"\(x)\" y1=\"0\" y2=\"\(HTMLText.fixed(height, 0))\" data-frame=\"\(HTMLText.fixed(frame, 0))\"/>"
            }
        }
        html += "</svg>"
        for mark in marks {
            let percent = HTMLText.fixed(mark.start * frameWidth / waveWidth * 100, 3)
            html +=
                "<span class=\"label \(mark.kind.rawValue)\" style=\"left:\(percent)%\" data-frame=\"\(HTMLText.fixed(mark.start, 0))\">\(HTMLText.escape(mark.label))</span>"
        }
        if sound.marks.count > marksDrawn {
            html += "<span class=\"more\">\(sound.marks.count - marksDrawn) more marks not drawn</span>"
        }
        html += "</div>"
    }

    static func seconds(_ frames: Int64, _ rate: Double?) -> Double {
        guard let rate, rate > 0 else { return Double(frames) }
        return Double(frames) / rate
    }

    /// One channel's envelope as a closed outline: the maxima left to right, the minima back;
    /// each column at the x of its middle frame.
    static func polygon(
        _ lane: ChannelEnvelope, envelope: Envelope, width: Double, channel: Int, kind: String, into html: inout String
    ) {
        let centre = laneHeight * Double(channel) + laneHeight / 2
        let frames = Double(envelope.frames)
        let span = Double(envelope.span)
        let count = min(lane.minimum.count, lane.maximum.count)
        guard count > 0, frames > 0 else { return }
        var xs: [Double] = []
        xs.reserveCapacity(count)
        for column in 0..<count {
            let first = Double(column) * span
            let last = min(first + span, frames) - 1
            xs.append((first + last) / 2 / frames * width)
        }
        var points: [UInt8] = []
        points.reserveCapacity(count * 2 * 16)
        func point(_ x: Double, _ value: Float) {
            let clamped = Swift.max(-1.5, Swift.min(1.5, Double(value)))
            HTMLText.appendFixed(x, 2, to: &points)
            points.append(UInt8(ascii: ","))
            HTMLText.appendFixed(centre - clamped * amplitude, 1, to: &points)
        }
        for column in 0..<count {
            point(xs[column], lane.maximum[column])
            points.append(UInt8(ascii: " "))
        }
        for column in stride(from: count - 1, through: 0, by: -1) {
            point(xs[column], lane.minimum[column])
            if column != 0 { points.append(UInt8(ascii: " ")) }
        }
        html += "<polygon class=\"\(kind)\" data-channel=\"\(channel)\" points=\""
        html += String(decoding: points, as: UTF8.self)
        html += "\"/>"
    }

    // MARK: Style and script

    static let style = """
        :root { color-scheme: light dark; --fg: #1b1f24; --muted: #5c6670; --bg: #ffffff; --line: #d5dbe1; --wave: #1f6feb;
          --src: #9aa5b1; --loop: rgba(46, 160, 67, 0.22); --region: rgba(191, 135, 0, 0.18); --marker: #cf222e; --bad: #cf222e; --warn: #9a6700; --ok: #1a7f37; }
        @media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9aa5b1; --bg: #0d1117; --line: #30363d; --wave: #58a6ff;
          --src: #6e7681; --loop: rgba(63, 185, 80, 0.25); --region: rgba(210, 153, 34, 0.22); --marker: #ff7b72; --bad: #ff7b72; --warn: #d29922; --ok: #3fb950; } }
        * { box-sizing: border-box; }
        body { margin: 0; padding: 1rem; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
        h1 { font-size: 1.4rem; margin: 0 0 .5rem; } h2 { font-size: 1rem; margin: .6rem 0 .2rem; }
        #summary { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: .2rem 1.5rem; }
        #summary .counts { grid-column: 1 / -1; font-size: 1.05rem; margin: 0; }
        .failures { grid-column: 1 / -1; color: var(--bad); } .failures a { color: inherit; }
        ul.formats { list-style: none; padding: 0; margin: 0; } .formats .n { display: inline-block; min-width: 2.5em; font-weight: 600; }
        .controls { margin: 1rem 0 .5rem; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        #filter { font: inherit; padding: .3rem .5rem; min-width: 16rem; max-width: 100%; }
        table { border-collapse: collapse; width: 100%; } caption { text-align: left; color: var(--muted); padding: .2rem 0; }
        th, td { border-bottom: 1px solid var(--line); padding: .35rem .4rem; vertical-align: top; text-align: left; }
        td[data-key=duration], td[data-key=size], td[data-key=bitrate], td[data-key=channels], td[data-key=rate], td[data-key=peak],
        td[data-key=truepeak], td[data-key=loudness], td[data-key=snr] { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        th button { font: inherit; font-weight: 600; background: none; border: 0; padding: .1rem .2rem; color: inherit; cursor: pointer; text-align: left; }
        th button:focus-visible, #filter:focus-visible, a:focus-visible { outline: 2px solid var(--wave); outline-offset: 1px; }
        th[aria-sort=ascending] button::after { content: " ▲"; } th[aria-sort=descending] button::after { content: " ▼"; }
        .name { font-weight: 600; overflow-wrap: anywhere; } .path, .line { display: block; color: var(--muted); font-size: .85em; overflow-wrap: anywhere; }
        td[data-key=name] { min-width: 8rem; max-width: 18rem; } td[data-key=format] { min-width: 8rem; max-width: 14rem; }
        .muted { color: var(--muted); } .bad { color: var(--bad); } .warn { color: var(--warn); } .ok { color: var(--ok); }
        .badge { background: var(--bad); color: #fff; border-radius: .3em; padding: 0 .3em; font-size: .8em; }
        .warnings { margin: .2rem 0 0; padding-left: 1.1rem; color: var(--warn); font-size: .85em; }
        .why { word-break: break-word; }
        td[data-key=wave] { width: 30%; min-width: 12rem; }
        .wave { position: relative; padding-top: 1.1em; }
        .wave svg { display: block; width: 100%; }
        .wave .env { fill: var(--wave); stroke: var(--wave); stroke-width: 1; vector-effect: non-scaling-stroke; }
        .wave .src { fill: var(--src); opacity: .55; stroke: none; }
        .wave .axis { stroke: var(--line); stroke-width: 1; vector-effect: non-scaling-stroke; }
        .wave rect.loop { fill: var(--loop); } .wave rect.region { fill: var(--region); }
        .wave line.edge { stroke: var(--marker); stroke-width: 1; vector-effect: non-scaling-stroke; }
        .wave line.loop { stroke: var(--ok); } .wave line.region { stroke: var(--warn); }
        .wave .label { position: absolute; top: 0; font-size: .72em; line-height: 1.1em; white-space: nowrap; max-width: 40%; overflow: hidden; text-overflow: ellipsis; border-left: 1px solid var(--marker); padding-left: 2px; }
        .wave .label.loop { border-color: var(--ok); color: var(--ok); } .wave .label.region { border-color: var(--warn); color: var(--warn); }
        .wave .more { position: absolute; right: 0; top: 0; font-size: .72em; color: var(--muted); }
        tr.failed td[data-key=name] { border-left: 3px solid var(--bad); }
        @media (max-width: 760px) {
          body { padding: .5rem; }
          table, tbody, tr, td { display: block; width: 100%; }
          thead tr { display: flex; flex-wrap: wrap; gap: .2rem; } thead th { border: 1px solid var(--line); border-radius: .3rem; padding: .1rem; }
          thead th[data-key=wave] { display: none; }
          tr { border-bottom: 2px solid var(--line); padding: .4rem 0; }
          td { border: 0; padding: .1rem 0; text-align: left !important; }
          td::before { content: attr(data-label) ": "; color: var(--muted); font-weight: 400; }
          td[data-key=name]::before, td[data-key=wave]::before { content: none; }
          td[data-key=wave] { width: 100%; min-width: 0; }
        }

        """

    static let script = """
        (function () {
          "use strict";
          var table = document.getElementById("files");
          var body = table.tBodies[0];
          var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
          var filter = document.getElementById("filter");
          var shown = document.getElementById("shown");
          function value(row, key) {
            var cell = row.querySelector('td[data-key="' + key + '"]');
            return cell ? cell.getAttribute("data-v") : "";
          }
          function sortBy(th) {
            var key = th.getAttribute("data-key");
            var numeric = th.getAttribute("data-kind") === "num";
            var direction = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
            heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
            th.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
            var rows = Array.prototype.slice.call(body.rows);
            rows.sort(function (a, b) {
              var x = value(a, key), y = value(b, key), order = 0;
              if (numeric) {
                // Rows without a value go last either way.
                if (x === "" || y === "") { order = x === y ? 0 : (x === "" ? 1 : -1); }
                else { order = direction * (parseFloat(x) - parseFloat(y)); }
              } else {
                order = direction * (x < y ? -1 : x > y ? 1 : 0);
              }
              return order || (+a.getAttribute("data-i") - +b.getAttribute("data-i"));
            });
            rows.forEach(function (row) { body.appendChild(row); });
          }
          heads.forEach(function (th) {
            var button = th.querySelector("button");
            if (button) { button.addEventListener("click", function () { sortBy(th); }); }
          });
          function applyFilter() {
            var text = filter.value.toLowerCase(), count = 0;
            Array.prototype.forEach.call(body.rows, function (row) {
              var hit = row.getAttribute("data-name").indexOf(text) !== -1;
              row.hidden = !hit;
              if (hit) { count += 1; }
            });
            shown.textContent = count + " of " + body.rows.length + " shown";
          }
          filter.addEventListener("input", applyFilter);
          filter.addEventListener("keydown", function (event) {
            if (event.key === "Escape") { filter.value = ""; applyFilter(); }
          });
          document.addEventListener("keydown", function (event) {
            if (event.key === "/" && document.activeElement !== filter) { event.preventDefault(); filter.focus(); }
          });
        })();

        """
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}

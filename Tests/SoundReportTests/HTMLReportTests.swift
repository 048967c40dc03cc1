import SoundLevels
import Foundation
import SoundReport
import Testing

/// The text between `start` and the next `end` after it, for each occurrence.
func slices(_ html: String, from start: String, to end: String) -> [String] {
    var found: [String] = []
    var rest = html[...]
    while let open = rest.range(of: start) {
        rest = rest[open.upperBound...]
        guard let close = rest.range(of: end) else { break }
        found.append(String(rest[..<close.lowerBound]))
        rest = rest[close.upperBound...]
    }
    return found
}

/// The points of a polygon's `points` attribute.
func points(_ text: String) -> [(x: Double, y: Double)] {
    text.split(separator: " ").compactMap { pair in
        let parts = pair.split(separator: ",")
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else { return nil }
        return (x, y)
    }
}

/// A mono sound of `frames` frames, silent but for one sample of `level` at `impulse`.
func impulseSound(path: String, frames: Int, impulse: Int, level: Double, marks: [ReportMark] = []) -> ReportSound {
    var meter = SoundMeter(channels: 1, expectedFrames: Int64(frames))
    var samples = [Double](repeating: 0, count: frames)
    samples[impulse] = level
    meter.add(doubles: samples, frames: frames)
    return ReportSound(
        path: path, container: "CAF", format: "16-bit little-endian signed integer", channels: 1, sampleRate: 48000,
        frames: Int64(frames), bytes: UInt64(frames * 2 + 4096), samplePeak: meter.samplePeak,
        truePeak: meter.truePeakValue, envelope: meter.envelope, marks: marks)
}

@Suite struct HTMLReportTests {
    /// The SVG's numbers: the envelope's crest sits at the x of its frame, a loop's rectangle
    /// and edges at the x of its frames, labels at the same place in percent.
    @Test func envelopeAndLoopsAtTheirFrames() throws {
        let loop = ReportMark(kind: .loop, start: 12_000, end: 36_000, label: "sustain loop")
        let marker = ReportMark(kind: .marker, start: 30_000, label: "hit")
        let sound = impulseSound(path: "a.caf", frames: 48_000, impulse: 24_000, level: 0.9, marks: [loop, marker])
        let html = HTMLReport.render([ReportEntry(name: "a.caf", sound: sound)])
        let polygon = try #require(slices(html, from: "<polygon class=\"env\" data-channel=\"0\" points=\"", to: "\"").first)
        let outline = points(polygon)
        #expect(outline.count == 2 * 400)
        let crest = try #require(outline.min { $0.y < $1.y })
        // 48000 frames in 400 columns of 120: the impulse's column's middle frame is 24059.5.
        #expect(abs(crest.x - 24_059.5 / 48_000 * 1000) < 0.01)
        #expect(abs(crest.y - (30 - 0.9 * 28)) < 0.01)
        #expect(html.contains("<rect class=\"loop\" x=\"250.000\" y=\"0\" width=\"500.000\""))
        #expect(html.contains("<line class=\"edge loop start\" x1=\"250.000\" x2=\"250.000\""))
        #expect(html.contains("<line class=\"edge loop end\" x1=\"750.000\" x2=\"750.000\""))
        #expect(html.contains("<line class=\"edge marker start\" x1=\"625.000\" x2=\"625.000\""))
        #expect(html.contains("style=\"left:62.500%\" data-frame=\"30000\">hit</span>"))
        #expect(html.contains("style=\"left:25.000%\" data-frame=\"12000\">sustain loop</span>"))
    }

    /// The values of a row: duration, size, bit rate, peaks (in dB), loudness "not measured".
    @Test func rowValues() {
        let sound = impulseSound(path: "dir/b.caf", frames: 48_000, impulse: 10, level: 0.5)
        let html = HTMLReport.render([ReportEntry(name: "b.caf", sound: sound, proof: "exact; source decoded by cafconv")])
        #expect(html.contains("<td data-key=\"duration\" data-label=\"Duration (s)\" data-v=\"1.000\">1.000</td>"))
        #expect(html.contains("data-key=\"size\" data-label=\"Size\" data-v=\"100096\">100.1 kB"))
        #expect(html.contains("data-key=\"bitrate\" data-label=\"Bit rate (kb/s)\" data-v=\"800.8\""))
        #expect(html.contains("data-key=\"peak\" data-label=\"Peak (dBFS)\" data-v=\"-6.02\">-6.02<"))
        #expect(html.contains("data-key=\"loudness\" data-label=\"Loudness (LUFS)\" data-v=\"\"><span class=\"muted\" title=\"not measured\">not measured"))
        #expect(html.contains("<span class=\"line proof\">exact; source decoded by cafconv</span>"))
    }

    /// Names and metadata from files are text, never markup.
    @Test func hostileTextIsEscaped() {
        let evil = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&\u{202E}fdp.caf\u{1B}[31m"
        var sound = impulseSound(
            path: "/x/" + evil, frames: 1000, impulse: 1, level: 0.1,
            marks: [ReportMark(kind: .marker, start: 5, label: "</span><script>alert(3)</script>")])
        sound.format = "<b>format</b>"
        let entry = ReportEntry(name: evil, sound: sound, warnings: ["<i>warn</i>"], failure: "<svg onload=alert(4)>")
        let html = HTMLReport.render([entry], title: "<title>")
        #expect(slices(html, from: "<script", to: ">").count == 1)
        #expect(!html.contains("<img"))
        #expect(!html.contains("<svg onload"))
        #expect(!html.contains("<b>"))
        #expect(!html.contains("<i>warn"))
        #expect(!html.contains("\u{202E}"))
        #expect(!html.contains("\u{1B}"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;&#39;&amp;\\u{202E}fdp.caf\\x1B[31m"))
    }

    /// No network: no URL to fetch anywhere, and a policy that forbids any.
    @Test func selfContained() {
        let html = HTMLReport.render([ReportEntry(name: "a", sound: impulseSound(path: "a", frames: 100, impulse: 1, level: 1))])
        #expect(html.contains("default-src 'none'"))
        #expect(!html.contains("http://") && !html.contains("https://"))
        #expect(!html.contains(" src=") && !html.contains("href=\"http") && !html.contains("@import") && !html.contains("url("))
    }

    /// Failures first (the summary lists them), then by name; counts by format; sizes before and
    /// after; the same entries give the same bytes.
    @Test func summaryAndOrder() {
        let a = impulseSound(path: "a.caf", frames: 1000, impulse: 1, level: 1.0)
        let b = impulseSound(path: "b.caf", frames: 1000, impulse: 1, level: 0.01)
        var source = a
        source.bytes = 10_000
        let entries = [
            ReportEntry(name: "b.caf", sound: b, source: source),
            ReportEntry(name: "a.caf", sound: a, source: source),
            ReportEntry(name: "z-broken.wav", sound: ReportSound(path: "z-broken.wav"), failure: "not a WAV file"),
        ]
        let html = HTMLReport.render(entries)
        #expect(html == HTMLReport.render(entries))
        #expect(!html.contains("line changed"))
        var shorter = b
        shorter.frames = 500
        let resampled = HTMLReport.render([ReportEntry(name: "b.caf", sound: shorter, source: b)])
        #expect(resampled.contains("data-v=\"0.010\">0.010<span class=\"line changed\">source 0.021</span>"))
        let names = slices(html, from: "<span class=\"name\">", to: "</span>")
        #expect(names == ["z-broken.wav", "a.caf", "b.caf"])
        #expect(html.contains("<strong data-summary=\"failed\">1</strong>"))
        #expect(html.contains("<strong data-summary=\"clipped\">1</strong>"))
        #expect(html.contains("<li><span class=\"n\">2</span> CAF 16-bit little-endian signed integer</li>"))
        #expect(html.contains("data-summary=\"before\" data-bytes=\"20000\""))
        #expect(html.contains("data-summary=\"after\" data-bytes=\"12192\""))
        let loudest = slices(html, from: "data-summary=\"loudest\">", to: "</p>").first ?? ""
        #expect(loudest.hasPrefix("Loudest: <a href=\"#f-") && loudest.contains(">a.caf</a>"))
        let quietest = slices(html, from: "data-summary=\"quietest\">", to: "</p>").first ?? ""
        #expect(quietest.contains(">b.caf</a> (-40.0 dBTP)"))
    }

    /// Bounded work: every file's envelope has the meter's column count at most, so the page
    /// grows by a bounded amount per file whatever the files' lengths (300 files of an hour
    /// would otherwise be gigabytes).
    @Test func pageSizeIsBoundedPerFile() {
        let short = impulseSound(path: "s.caf", frames: 1000, impulse: 1, level: 0.5)
        var long = short
        // Ten minutes at 48 kHz, as the meter leaves it: 400 columns of 72 000 frames.
        let columns = (0..<400).map { Float($0 % 7) / 7 }
        long.envelope = Envelope(
            span: 72_000, frames: 28_800_000, channels: [ChannelEnvelope(minimum: columns.map { -$0 }, maximum: columns)])
        long.frames = 28_800_000
        let one = HTMLReport.render([ReportEntry(name: "s", sound: long)]).utf8.count
        let many = HTMLReport.render((0..<300).map { ReportEntry(name: "f\($0)", sound: $0 == 0 ? short : long) }).utf8.count
        #expect(one < 40_000)
        #expect(many < 300 * 30_000)
    }
}

@Suite struct HTMLTextTests {
    @Test func fixedNumbers() {
        #expect(HTMLText.fixed(-0.5, 1) == "-0.5")
        #expect(HTMLText.fixed(12, 2) == "12.00")
        #expect(HTMLText.fixed(0.005, 2) == "0.01")
        #expect(HTMLText.fixed(-6.0206, 2) == "-6.02")
        #expect(HTMLText.fixed(44100, 0) == "44100")
    }

    /// The byte writer the waveforms use writes what `fixed` writes.
    @Test func appendFixedAgreesWithFixed() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 0.04, -0.04, 0.05, -0.05, 1, -1, 999.995, 1000, 501.2396, -12.345, 1e-9]
        for _ in 0..<2000 { values.append(Double.random(in: -2000...2000, using: &generator)) }
        for value in values {
            for decimals in 0...3 {
                var bytes: [UInt8] = []
                HTMLText.appendFixed(value, decimals, to: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == HTMLText.fixed(value, decimals), "\(value) \(decimals)")
            }
        }
    }
}

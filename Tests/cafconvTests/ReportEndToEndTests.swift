import Foundation
import TestSupport
import Testing

/// The folder the report tests render: signals whose values are known.
enum ReportFolder {
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + le32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// A 16-bit WAV at 48 kHz of interleaved `samples`, with `extra` chunks before `data`.
    static func wave(_ samples: [Int16], channels: Int = 1, extra: [UInt8] = []) -> [UInt8] {
        let rate: UInt32 = 48000
        let align = UInt32(2 * channels)
        let fmt = chunk("fmt ", [1, 0, UInt8(channels), 0] + le32(rate) + le32(rate * align) + [UInt8(align), 0, 16, 0])
        let data = chunk("data", samples.flatMap { value in [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] })
        let body = Array("WAVE".utf8) + fmt + extra + data
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    static func sine(frames: Int, amplitude: Double, frequency: Double = 1000) -> [Int16] {
        (0..<frames).map { n in
            let value = amplitude * sin(2 * Double.pi * frequency * Double(n) / 48000) * 32768
            return Int16(clamping: Int(value.rounded()))
        }
    }

    /// Frame positions of `impulse.wav`, `looped.wav`: 48 000 frames, 400 columns of 120.
    static let crestFrame = 24_000
    static let troughFrame = 6_000
    static let loopStart = 12_000
    static let loopEnd = 36_000
    static let markerFrame = 30_000

    /// sine-1k.wav (-6 dBFS, 1 s), noise-stereo.wav, silence.wav, clipped.wav (a sine of 1.5
    /// clipped to full scale), looped.wav (a `smpl` loop 12000...36000 and a cue at 30000 named
    /// `hit <b>`), impulse.wav (silence but +full scale at 24000 and -full scale at 6000) and
    /// broken.wav (a RIFF header and nothing else that holds).
    static func make() -> TempDirectory {
        let folder = TempDirectory("cafconv-report")
        _ = folder.write("sounds/sine-1k.wav", wave(sine(frames: 48000, amplitude: 0.5)))
        var generator = SplitMix64(seed: 7)
        let noise = (0..<48000).map { _ in Int16(truncatingIfNeeded: Int(generator.next() % 16384) - 8192) }
        _ = folder.write("sounds/noise-stereo.wav", wave(noise, channels: 2))
        _ = folder.write("sounds/silence.wav", wave([Int16](repeating: 0, count: 24000)))
        _ = folder.write("sounds/clipped.wav", wave(sine(frames: 12000, amplitude: 1.5, frequency: 200)))
        let smpl = chunk("smpl", [0, 0, 20833, 60, 0, 0, 0, 1, 0, 0, 0, UInt32(loopStart), UInt32(loopEnd), 0, 0].flatMap(le32))
        let cue = chunk("cue ", le32(1) + le32(1) + le32(UInt32(markerFrame)) + Array("data".utf8) + le32(0) + le32(0) + le32(UInt32(markerFrame)))
        let adtl = chunk("LIST", Array("adtl".utf8) + chunk("labl", le32(1) + Array("hit <b>".utf8) + [0]))
        _ = folder.write("sounds/looped.wav", wave(sine(frames: 48000, amplitude: 0.25, frequency: 100), extra: smpl + cue + adtl))
        var impulse = [Int16](repeating: 0, count: 48000)
        impulse[crestFrame] = Int16.max
        impulse[troughFrame] = Int16.min
        _ = folder.write("sounds/impulse.wav", wave(impulse))
        _ = folder.write("sounds/broken.wav", Array("RIFF".utf8) + le32(100) + Array("WAVEfmt ".utf8) + le32(16) + [1, 0])
        return folder
    }

    /// Renders the folder's report; returns its path and the command's result.
    static func render(_ folder: TempDirectory) throws -> (path: String, result: ProcessResult) {
        let page = folder.file("report.html")
        let result = try run(RepositoryPaths.executable, ["report", folder.file("sounds"), "-o", page])
        return (page, result)
    }
}

@Suite("cafconv report, end to end")
struct ReportEndToEndTests {
    /// One row per file with its values, failures first; the exit status says a file failed.
    @Test func rowsAndValues() throws {
        let folder = ReportFolder.make()
        let (page, result) = try ReportFolder.render(folder)
        #expect(result.status == 1)
        #expect(result.stderr.contains("broken.wav"))
        #expect(result.stderr.contains("7 files, 1 failed"))
        let html = try #require(readFile(page).map { String(decoding: $0, as: UTF8.self) })
        let names = html.components(separatedBy: "<span class=\"name\">").dropFirst().map { $0.components(separatedBy: "<")[0] }
        #expect(names == ["broken.wav", "clipped.wav", "impulse.wav", "looped.wav", "noise-stereo.wav", "silence.wav", "sine-1k.wav"])
        func row(_ name: String) -> String {
            html.components(separatedBy: "<span class=\"name\">\(name)</span>").dropFirst().first?.components(separatedBy: "</tr>")[0] ?? ""
        }
        #expect(row("sine-1k.wav").contains("data-key=\"duration\" data-label=\"Duration (s)\" data-v=\"1.000\""))
        #expect(row("sine-1k.wav").contains("data-key=\"peak\" data-label=\"Peak (dBFS)\" data-v=\"-6.02\""))
        #expect(row("sine-1k.wav").contains("WAV audio, 16-bit signed integer, little-endian, mono, 48000 Hz, 48000 frames (1.0 s)"))
        #expect(row("noise-stereo.wav").contains("data-key=\"channels\" data-label=\"Ch\" data-v=\"2\""))
        #expect(row("noise-stereo.wav").contains("<polygon class=\"env\" data-channel=\"1\""))
        #expect(row("silence.wav").contains("data-v=\"-1000\">−∞</td>"))
        #expect(row("clipped.wav").contains("data-v=\"0.00\">0.00 <span class=\"badge\">clipped</span>"))
        #expect(row("broken.wav").contains("<strong class=\"bad\">failed</strong>"))
        #expect(row("looped.wav").contains("<rect class=\"loop\" x=\"250.000\""))
        #expect(row("looped.wav").contains("data-frame=\"30000\">hit &lt;b&gt;</span>"))
        #expect(html.contains("<strong data-summary=\"failed\">1</strong>"))
        // The same files give the same page.
        let again = folder.file("again.html")
        _ = try run(RepositoryPaths.executable, ["report", folder.file("sounds"), "-o", again])
        #expect(readFile(again) == readFile(page))
    }

    /// `--against` puts each CAF beside its source: both envelopes, the proof, sizes before
    /// and after, and an IMA4 file's SNR.
    @Test func againstSources() throws {
        let folder = ReportFolder.make()
        let sources = folder.file("sounds")
        // IMA4 cannot carry a lone full-scale sample (its proof refuses it): those two stay out.
        _ = TempDirectory.removeTree(folder.file("sounds/broken.wav"))
        _ = TempDirectory.removeTree(folder.file("sounds/impulse.wav"))
        let built = folder.file("built")
        let converted = try run(RepositoryPaths.executable, ["convert", "-q", "-d", "ima4", sources, "-o", built])
        try #require(converted.status == 0, "\(converted.stderr)")
        let page = folder.file("pairs.html")
        let result = try run(RepositoryPaths.executable, ["report", built, "--against", sources, "-o", page])
        #expect(result.status == 0, "\(result.stderr)")
        let html = try #require(readFile(page).map { String(decoding: $0, as: UTF8.self) })
        #expect(html.components(separatedBy: "<polygon class=\"src\" data-channel=\"0\"").count == 6)
        #expect(html.contains("data-summary=\"before\""))
        let sine = html.components(separatedBy: "<span class=\"name\">sine-1k.caf</span>").dropFirst().first ?? ""
        #expect(sine.contains("<span class=\"line proof\">SNR "))
        let snr = sine.components(separatedBy: "data-key=\"snr\" data-label=\"SNR (dB)\" data-v=\"").dropFirst().first?
            .components(separatedBy: "\"")[0]
        #expect((snr.flatMap(Double.init) ?? 0) > 20)
    }

    /// `convert --report`: the run's page, failures first with their reason (a file that is not
    /// audio, an impulse IMA4 cannot carry), each output beside its source with its proof.
    @Test func convertWritesTheReport() throws {
        let folder = ReportFolder.make()
        let page = folder.file("run.html")
        let result = try run(
            RepositoryPaths.executable, ["convert", "-q", "-d", "ima4", folder.file("sounds"), "-o", folder.file("built"), "--report", page])
        #expect(result.status == 1)
        let html = try #require(readFile(page).map { String(decoding: $0, as: UTF8.self) })
        let names = html.components(separatedBy: "<span class=\"name\">").dropFirst().map { $0.components(separatedBy: "<")[0] }
        #expect(names.count == 7)
        #expect(Array(names.prefix(2)).map { $0.hasSuffix("broken.wav") || $0.hasSuffix("impulse.wav") } == [true, true])
        #expect(html.contains("<strong data-summary=\"failed\">2</strong>"))
        #expect(html.contains("its IMA4 audio has an SNR of"))
        // Four lossy proofs with their SNR; silence comes back exact.
        #expect(html.components(separatedBy: "<span class=\"line proof\">SNR ").count == 5)
        #expect(html.contains("<span class=\"line proof\">exact; "))
        #expect(html.components(separatedBy: "<polygon class=\"src\" data-channel=\"0\"").count == 7)
        // A dry run writes no page.
        let dry = folder.file("dry.html")
        _ = try run(RepositoryPaths.executable, ["convert", "-q", "--dry-run", folder.file("sounds"), "-o", folder.file("built"), "--report", dry])
        #expect(!exists(dry))
    }

    /// A CAF that `info` finds invalid (4 bytes after its last chunk) but that decodes: the row
    /// says why it failed and still draws its waveform; the message does not repeat the path.
    @Test func invalidButReadableIsDrawn() throws {
        let folder = TempDirectory("cafconv-report-invalid")
        let wav = folder.write("in/sine.wav", ReportFolder.wave(ReportFolder.sine(frames: 4800, amplitude: 0.5)))
        let caf = folder.file("out/sine.caf")
        let converted = try run(RepositoryPaths.executable, ["convert", "-q", wav, "-o", caf])
        try #require(converted.status == 0, "\(converted.stderr)")
        let bytes = try #require(readFile(caf))
        writeFile(caf, bytes + [0, 0, 0, 0])
        let page = folder.file("r.html")
        let result = try run(RepositoryPaths.executable, ["report", folder.file("out"), "-o", page])
        #expect(result.status == 1)
        let html = try #require(readFile(page).map { String(decoding: $0, as: UTF8.self) })
        #expect(html.contains("<strong class=\"bad\">failed</strong> <span class=\"why\">file-ends-with-chunk"))
        #expect(html.contains("<polygon class=\"env\" data-channel=\"0\""))
        #expect(html.contains("data-key=\"peak\" data-label=\"Peak (dBFS)\" data-v=\"-6.02\""))
    }

    /// The rows of a page by name: the part of the page from each name to the end of its row.
    static func rows(_ html: String) -> [(name: String, row: String)] {
        html.components(separatedBy: "<span class=\"name\">").dropFirst().map { part in
            (part.components(separatedBy: "<")[0], part.components(separatedBy: "</tr>")[0])
        }
    }

    /// The output's envelope polygons of a row (`env`), not its source's (`src`).
    static func envelopes(_ row: String) -> [String] {
        row.components(separatedBy: "<polygon class=\"env\"").dropFirst().map { $0.components(separatedBy: "/>")[0] }
    }

    /// `convert --report` on PCM outputs decodes nothing after the run: every level comes from
    /// the run's own decodings (the stderr line counts the files decoded again), and each
    /// output's waveform is the one `cafconv report` draws of the same file.
    @Test func convertReportDecodesNothingAgain() throws {
        let folder = ReportFolder.make()
        _ = TempDirectory.removeTree(folder.file("sounds/broken.wav"))
        for (format, label) in [([String](), "payload"), (["-d", "LEF32"], "pump"), (["-c", "1"], "mono")] {
            let page = folder.file("run-\(label).html")
            let built = folder.file("built-\(label)")
            let result = try run(RepositoryPaths.executable, ["convert"] + format + [folder.file("sounds"), "-o", built, "--report", page])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("6 files, 0 failed (read in "), "\(result.stderr)")
            #expect(result.stderr.contains(", 0 decoded again after the run,"), "\(label): \(result.stderr)")
            let alone = folder.file("alone-\(label).html")
            _ = try run(RepositoryPaths.executable, ["report", built, "-o", alone])
            let ran = try #require(readFile(page).map { String(decoding: $0, as: UTF8.self) })
            let read = try #require(readFile(alone).map { String(decoding: $0, as: UTF8.self) })
            for (name, row) in Self.rows(read) {
                let stem = name.components(separatedBy: ".")[0]
                let same = Self.rows(ran).first { $0.name.hasSuffix("/" + stem + ".wav") }?.row ?? ""
                #expect(!Self.envelopes(row).isEmpty && Self.envelopes(same) == Self.envelopes(row), "\(label) \(name)")
                let loudness = row.components(separatedBy: "data-key=\"loudness\"").dropFirst().first?.components(separatedBy: "</td>")[0]
                let ranLoudness = same.components(separatedBy: "data-key=\"loudness\"").dropFirst().first?.components(separatedBy: "</td>")[0]
                #expect(loudness != nil && loudness == ranLoudness, "\(label) \(name)")
            }
        }
    }

    /// The loudness column: EBU Tech 3341 case 1 (a stereo 1 kHz sine at -23 dBFS per channel)
    /// reads -23.0 LUFS and a true peak of -23.0 dBTP, measured by `cafconv report` and by
    /// `convert --report` in its run; silence reads as silent, and the outliers go by loudness.
    @Test func loudnessOfAKnownSignal() throws {
        let folder = TempDirectory("cafconv-report-loudness")
        let amplitude = pow(10, -23.0 / 20)
        let mono = ReportFolder.sine(frames: 48000 * 5, amplitude: amplitude)
        _ = folder.write("sounds/ebu-3341-case-1.wav", ReportFolder.wave(mono.flatMap { [$0, $0] }, channels: 2))
        _ = folder.write("sounds/quiet.wav", ReportFolder.wave(ReportFolder.sine(frames: 48000, amplitude: amplitude / 10)))
        _ = folder.write("sounds/silence.wav", ReportFolder.wave([Int16](repeating: 0, count: 48000)))
        let report = folder.file("report.html")
        let result = try run(RepositoryPaths.executable, ["report", folder.file("sounds"), "-o", report])
        #expect(result.status == 0, "\(result.stderr)")
        let page = folder.file("run.html")
        let converted = try run(
            RepositoryPaths.executable, ["convert", folder.file("sounds"), "-o", folder.file("built"), "--report", page])
        #expect(converted.stderr.contains(", 0 decoded again after the run,"), "\(converted.stderr)")
        for path in [report, page] {
            let html = try #require(readFile(path).map { String(decoding: $0, as: UTF8.self) })
            func value(_ key: String, of name: String) -> Double? {
                let row = Self.rows(html).first { $0.name.hasSuffix(name) }?.row ?? ""
                let text = row.components(separatedBy: "data-key=\"\(key)\"").dropFirst().first?
                    .components(separatedBy: "data-v=\"").dropFirst().first?.components(separatedBy: "\"")[0]
                return text.flatMap(Double.init)
            }
            let loudness = try #require(value("loudness", of: "ebu-3341-case-1.wav"), "\(path)")
            #expect(abs(loudness - -23.0) <= 0.1, "\(path): \(loudness)")
            let truePeak = try #require(value("truepeak", of: "ebu-3341-case-1.wav"))
            #expect(abs(truePeak - -23.0) <= 0.1, "\(path): \(truePeak)")
            #expect(abs((value("loudness", of: "quiet.wav") ?? 0) - -46.0) <= 0.2)
            #expect(html.contains("<span class=\"muted\">silent</span>"))
            #expect(html.contains("Outliers (by loudness)"))
            let loudest = html.components(separatedBy: "data-summary=\"loudest\">").dropFirst().first ?? ""
            #expect(loudest.hasPrefix("Loudest: <a href=\"#") && loudest.components(separatedBy: "</p>")[0].contains("ebu-3341-case-1.wav</a> (-23.0 LUFS), "))
        }
    }
}

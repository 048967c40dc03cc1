import Foundation
import TestSupport
import Testing

/// Headless Chromium (Debian `chromium`, installed by scripts/install-deps.sh), or `nil`.
let chromium = which("chromium") ?? which("chromium-browser")

/// Runs Chromium on a page and returns what it printed: the DOM after the page's scripts ran
/// (`--dump-dom`), or a screenshot written to `screenshot`. Console messages go to stderr
/// (`--enable-logging=stderr`), one `:CONSOLE` line each.
func browse(_ page: String, width: Int, height: Int = 900, screenshot: String? = nil) throws -> ProcessResult {
    var arguments = [
        "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
        "--disable-background-networking", "--enable-logging=stderr", "--v=0", "--window-size=\(width),\(height)",
    ]
    if let screenshot { arguments.append("--screenshot=\(screenshot)") } else { arguments.append("--dump-dom") }
    arguments.append("file://" + page)
    let home = TempDirectory("cafconv-chromium")
    return try run(
        "/usr/bin/timeout", ["120", chromium ?? "chromium"] + arguments,
        environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.path, "XDG_CACHE_HOME": home.path])
}

/// A script put first in the page's head: it records errors, content-security-policy
/// violations (any attempt at a network request) and console errors, and once the page has
/// loaded reads what a person sees (rows, values, the SVG's geometry on screen), presses the
/// sort buttons, types into the filter, and writes all of it as JSON into `#harness-result`.
let harness = """
    <script>
    (function () {
      var H = { errors: [], violations: [], logs: [] };
      window.addEventListener("error", function (e) { H.errors.push(String(e.message)); }, true);
      // A dialog would stop a headless page until the timeout: recorded instead.
      window.alert = window.confirm = window.prompt = function (m) { H.errors.push("dialog: " + m); };
      document.addEventListener("securitypolicyviolation", function (e) { H.violations.push(e.blockedURI + " " + e.violatedDirective); });
      ["error", "warn"].forEach(function (k) { var o = console[k]; console[k] = function () { H.logs.push(k + ": " + Array.prototype.join.call(arguments, " ")); return o.apply(console, arguments); }; });
      window.addEventListener("load", function () {
        var out = {};
        try {
          out.width = innerWidth; out.scrollWidth = document.documentElement.scrollWidth;
          function rows() { return Array.prototype.slice.call(document.querySelectorAll("#files tbody tr")); }
          function name(r) { return r.querySelector(".name").textContent; }
          function cell(r, k) { var c = r.querySelector('td[data-key="' + k + '"]'); return c ? c.textContent : null; }
          out.rows = rows().map(function (r) {
            return { name: name(r), duration: cell(r, "duration"), channels: cell(r, "channels"), rate: cell(r, "rate"),
              peak: cell(r, "peak"), truePeak: cell(r, "truepeak"), loudness: cell(r, "loudness"),
              status: r.querySelector('td[data-key="status"] strong').textContent, visible: r.getBoundingClientRect().height > 0 };
          });
          out.waves = {};
          rows().forEach(function (r) {
            var svg = r.querySelector("svg"); if (!svg) { return; }
            var box = svg.getBoundingClientRect(), ctm = svg.getScreenCTM();
            function px(x) { return ctm.a * x + ctm.e - box.left; }
            var w = { width: box.width, height: box.height };
            w.polygons = Array.prototype.map.call(svg.querySelectorAll("polygon.env"), function (p) {
              var top = null, bottom = null;
              for (var i = 0; i < p.points.numberOfItems; i++) {
                var q = p.points.getItem(i);
                if (!top || q.y < top.y) { top = { x: q.x, y: q.y }; }
                if (!bottom || q.y > bottom.y) { bottom = { x: q.x, y: q.y }; }
              }
              return { top: top, bottom: bottom, topPixel: px(top.x), bottomPixel: px(bottom.x) };
            });
            w.edges = Array.prototype.map.call(svg.querySelectorAll("line.edge"), function (l) {
              return { cls: l.getAttribute("class"), x: l.x1.baseVal.value, frame: +l.getAttribute("data-frame"), pixel: px(l.x1.baseVal.value) };
            });
            w.labels = Array.prototype.map.call(r.querySelectorAll(".wave .label"), function (s) {
              return { text: s.textContent, pixel: s.getBoundingClientRect().left - box.left };
            });
            out.waves[name(r)] = w;
          });
          function names() { return rows().map(name); }
          function click(key) { document.querySelector('th[data-key="' + key + '"] button').click(); return names(); }
          out.sorted = { peakUp: click("peak"), peakDown: click("peak"), nameUp: click("name"), nameDown: click("name") };
          document.dispatchEvent(new KeyboardEvent("keydown", { key: "/", bubbles: true }));
          out.focused = document.activeElement ? document.activeElement.id : null;
          var filter = document.getElementById("filter");
          filter.value = "SI"; filter.dispatchEvent(new Event("input"));
          out.filtered = rows().filter(function (r) { return !r.hidden; }).map(name);
          out.shown = document.getElementById("shown").textContent;
          out.resources = performance.getEntriesByType("resource").map(function (e) { return e.name; });
        } catch (e) { H.errors.push("harness: " + e); }
        out.errors = H.errors; out.violations = H.violations; out.logs = H.logs;
        var pre = document.createElement("pre"); pre.id = "harness-result"; pre.textContent = JSON.stringify(out);
        document.body.appendChild(pre);
      });
    })();
    </script>
    """

/// The page with the harness first in its head (and `extra` at the end of its body), written
/// beside it; what the harness found.
func inspect(_ page: String, width: Int, extra: String = "") throws -> (result: [String: Any], console: [String]) {
    let html = try #require(readFile(page).map { String(decoding: $0, as: UTF8.self) })
    let probed = html.replacingOccurrences(of: "<head>", with: "<head>" + harness)
        .replacingOccurrences(of: "</body>", with: extra + "</body>")
    let copy = page + ".probe-\(width).html"
    writeFile(copy, Array(probed.utf8))
    let output = try browse(copy, width: width)
    let dom = output.text
    let start = try #require(dom.range(of: "<pre id=\"harness-result\">"), "no harness result in: \(output.stderr)")
    let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
    let text = String(dom[start.upperBound..<end.lowerBound])
        .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    let console = output.stderr.split(separator: "\n").filter { $0.contains(":CONSOLE") }.map(String.init)
    return (object, console)
}

@Suite("The report in a real browser (headless Chromium)", .enabled(if: chromium != nil, "chromium is not installed (scripts/install-deps.sh installs it)"))
struct ReportBrowserTests {
    @Test("At 1280 px: no error, no request, one row per file with its values, the SVG where its frames are, sorting and filtering")
    func desktop() throws {
        let folder = ReportFolder.make()
        let (page, _) = try ReportFolder.render(folder)
        let (result, console) = try inspect(page, width: 1280)
        #expect(console.isEmpty, "\(console)")
        #expect((result["errors"] as? [String]) == [], "\(result["errors"] ?? "")")
        #expect((result["violations"] as? [String]) == [])
        #expect((result["logs"] as? [String]) == [])
        #expect((result["resources"] as? [String]) == [])
        #expect(result["width"] as? Int == 1280)
        #expect((result["scrollWidth"] as? Int ?? 9999) <= 1280)

        let rows = try #require(result["rows"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == [
            "broken.wav", "clipped.wav", "impulse.wav", "looped.wav", "noise-stereo.wav", "silence.wav", "sine-1k.wav",
        ])
        let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as? String ?? "", $0) })
        #expect(byName["sine-1k.wav"]?["duration"] as? String == "1.000")
        #expect(byName["sine-1k.wav"]?["peak"] as? String == "-6.02")
        #expect(byName["sine-1k.wav"]?["rate"] as? String == "48000")
        // A mono 1 kHz sine at -6.02 dBFS: -9.0 LUFS (BS.1770, libebur128); silence is below the gate.
        #expect(byName["sine-1k.wav"]?["loudness"] as? String == "-9.0")
        #expect(byName["silence.wav"]?["loudness"] as? String == "silent")
        #expect(byName["noise-stereo.wav"]?["channels"] as? String == "2")
        #expect(byName["silence.wav"]?["peak"] as? String == "−∞")
        #expect(byName["clipped.wav"]?["peak"] as? String == "0.00 clipped")
        #expect((Double(byName["clipped.wav"]?["truePeak"] as? String ?? "") ?? -1) > 0)
        #expect(byName["broken.wav"]?["status"] as? String == "failed")
        #expect(byName["looped.wav"]?["status"] as? String == "ok")
        #expect(rows.allSatisfy { $0["visible"] as? Bool == true })

        // The impulse file: 48 000 frames in 400 columns of 120; the crest's column middle is
        // frame 24059.5, the trough's 6059.5, at that fraction of the drawn width.
        let waves = try #require(result["waves"] as? [String: [String: Any]])
        let impulse = try #require(waves["impulse.wav"])
        let width = try #require(impulse["width"] as? Double)
        #expect(width > 200)
        let polygon = try #require((impulse["polygons"] as? [[String: Any]])?.first)
        let top = try #require(polygon["top"] as? [String: Double])
        let bottom = try #require(polygon["bottom"] as? [String: Double])
        #expect(abs((top["x"] ?? 0) - 24_059.5 / 48_000 * 1000) < 0.01)
        #expect(abs((top["y"] ?? 0) - (30 - 32767.0 / 32768 * 28)) < 0.01)
        #expect(abs((bottom["x"] ?? 0) - 6_059.5 / 48_000 * 1000) < 0.01)
        #expect(abs((bottom["y"] ?? 0) - 58) < 0.01)
        #expect(abs((polygon["topPixel"] as? Double ?? 0) - width * 24_059.5 / 48_000) < 1)
        #expect(abs((polygon["bottomPixel"] as? Double ?? 0) - width * 6_059.5 / 48_000) < 1)

        // The looped file: loop edges and the marker at the x of their frames, labels beside them.
        let looped = try #require(waves["looped.wav"])
        let loopWidth = try #require(looped["width"] as? Double)
        let edges = try #require(looped["edges"] as? [[String: Any]])
        let expected: [(String, Int)] = [
            ("edge loop start", ReportFolder.loopStart), ("edge loop end", ReportFolder.loopEnd),
            ("edge marker start", ReportFolder.markerFrame),
        ]
        #expect(edges.count == expected.count)
        for (edge, (kind, frame)) in zip(edges, expected) {
            #expect(edge["cls"] as? String == kind)
            #expect(edge["frame"] as? Int == frame)
            #expect(abs((edge["x"] as? Double ?? 0) - Double(frame) / 48_000 * 1000) < 0.001)
            #expect(abs((edge["pixel"] as? Double ?? 0) - loopWidth * Double(frame) / 48_000) < 1)
        }
        let labels = try #require(looped["labels"] as? [[String: Any]])
        #expect(labels.map { $0["text"] as? String } == ["loop", "hit <b>"])
        #expect(abs((labels.last?["pixel"] as? Double ?? 0) - loopWidth * Double(ReportFolder.markerFrame) / 48_000) < 1.5)

        // Sorting: by peak up (silence first, the failed file without a value last), down, by name.
        let sorted = try #require(result["sorted"] as? [String: [String]])
        #expect(sorted["peakUp"]?.first == "silence.wav")
        #expect(sorted["peakUp"]?.last == "broken.wav")
        #expect(sorted["peakDown"]?.prefix(2).sorted() == ["clipped.wav", "impulse.wav"])
        #expect(sorted["peakDown"]?.last == "broken.wav")
        #expect(sorted["nameUp"] == ["broken.wav", "clipped.wav", "impulse.wav", "looped.wav", "noise-stereo.wav", "silence.wav", "sine-1k.wav"])
        #expect(sorted["nameDown"] == sorted["nameUp"]?.reversed())
        // Keyboard: '/' focuses the filter; typing filters by name.
        #expect(result["focused"] as? String == "filter")
        #expect(result["filtered"] as? [String] == ["sine-1k.wav", "silence.wav"])
        #expect(result["shown"] as? String == "2 of 7 shown")
    }

    @Test("On a narrow screen: the phone layout, nothing wider than the screen")
    func narrow() throws {
        let folder = ReportFolder.make()
        let (page, _) = try ReportFolder.render(folder)
        // Headless Chromium's window is 500 px at the narrowest: below the page's 760 px break.
        let (result, console) = try inspect(page, width: 390)
        #expect(console.isEmpty, "\(console)")
        let width = try #require(result["width"] as? Int)
        #expect(width < 760)
        #expect((result["scrollWidth"] as? Int ?? 9999) <= width)
        let waves = try #require(result["waves"] as? [String: [String: Any]])
        #expect((waves["impulse.wav"]?["width"] as? Double ?? 0) > Double(width) * 0.8)
    }

    /// The detectors the other tests rely on do detect: a script error, a console error and a
    /// request for an image are all seen.
    @Test("The checks for errors and requests catch a broken page")
    func detectorsDetect() throws {
        let folder = ReportFolder.make()
        let (page, _) = try ReportFolder.render(folder)
        let broken = "<img src=\"http://127.0.0.1:9/x.png\" alt=\"\"><script>noSuchFunction();</script>"
        let (result, console) = try inspect(page, width: 1280, extra: broken)
        #expect(console.contains { $0.contains("noSuchFunction") })
        #expect((result["errors"] as? [String])?.contains { $0.contains("noSuchFunction") } == true)
        #expect((result["violations"] as? [String])?.contains { $0.contains("127.0.0.1") } == true)
    }

    @Test("A screenshot of the page is not blank")
    func screenshot() throws {
        let ffmpeg = try #require(which("ffmpeg"), "ffmpeg reads the screenshot's pixels")
        let folder = ReportFolder.make()
        let (page, _) = try ReportFolder.render(folder)
        let shot = folder.file("report.png")
        let taken = try browse(page, width: 1280, height: 1000, screenshot: shot)
        try #require(exists(shot), "\(taken.stderr)")
        let pixels = try run(ffmpeg, ["-v", "error", "-i", shot, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        #expect(pixels.stdout.count == 1280 * 1000)
        let dark = pixels.stdout.filter { $0 < 160 }.count
        // Text, rules and waveforms: a few percent of the pixels, not none and not all.
        #expect(dark > pixels.stdout.count / 100)
        #expect(dark < pixels.stdout.count / 2)
        // The waveforms' colour is there: pixels neither white nor black.
        #expect(Set(pixels.stdout).count > 16)
    }

    /// A file whose name and marker are markup: shown as text, nothing runs, nothing is fetched.
    @Test("Hostile names and labels stay text in the browser")
    func hostileNames() throws {
        let folder = TempDirectory("cafconv-report-hostile")
        let name = "<img src=x onerror=alert(1)>\"'&.wav"
        let label = "<script>alert(2)</script>"
        let cue = ReportFolder.chunk(
            "cue ", ReportFolder.le32(1) + ReportFolder.le32(1) + ReportFolder.le32(100) + Array("data".utf8) + ReportFolder.le32(0)
                + ReportFolder.le32(0) + ReportFolder.le32(100))
        let adtl = ReportFolder.chunk("LIST", Array("adtl".utf8) + ReportFolder.chunk("labl", ReportFolder.le32(1) + Array(label.utf8) + [0]))
        _ = folder.write("sounds/" + name, ReportFolder.wave(ReportFolder.sine(frames: 4800, amplitude: 0.5), extra: cue + adtl))
        let (page, result) = try ReportFolder.render(folder)
        #expect(result.status == 0, "\(result.stderr)")
        let (found, console) = try inspect(page, width: 1280)
        #expect(console.isEmpty, "\(console)")
        #expect((found["errors"] as? [String]) == [])
        #expect((found["violations"] as? [String]) == [])
        #expect((found["resources"] as? [String]) == [])
        let rows = try #require(found["rows"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == [name])
        let waves = try #require(found["waves"] as? [String: [String: Any]])
        #expect((waves[name]?["labels"] as? [[String: Any]])?.map { $0["text"] as? String } == [label])
    }

    /// A CAF with a real `regn` chunk (Apple's CAF specification: a region of `rbeg`/`rend`
    /// markers, named in `strg`), built byte by byte: the region is drawn from its start frame to
    /// its end frame and labelled with its name.
    @Test("A CAF region from its regn chunk is drawn at its frames and labelled")
    func regionFromRegn() throws {
        let folder = TempDirectory("cafconv-report-regn")
        _ = folder.write("sounds/whoosh.caf", RegionCAF.bytes())
        let page = folder.file("regions.html")
        let made = try run(RepositoryPaths.executable, ["report", folder.file("sounds"), "-o", page])
        #expect(made.status == 0, "\(made.stderr)")
        let (result, console) = try inspect(page, width: 1280)
        #expect(console.isEmpty, "\(console)")
        #expect((result["errors"] as? [String]) == [], "\(result["errors"] ?? "")")
        let waves = try #require(result["waves"] as? [String: [String: Any]])
        let wave = try #require(waves["whoosh.caf"])
        let width = try #require(wave["width"] as? Double)
        let edges = try #require(wave["edges"] as? [[String: Any]])
        let expected: [(String, Int)] = [("edge region start", RegionCAF.start), ("edge region end", RegionCAF.end)]
        #expect(edges.count == expected.count)
        for (edge, (kind, frame)) in zip(edges, expected) {
            #expect(edge["cls"] as? String == kind)
            #expect(edge["frame"] as? Int == frame)
            #expect(abs((edge["x"] as? Double ?? 0) - Double(frame) / Double(RegionCAF.frames) * 1000) < 0.001)
            #expect(abs((edge["pixel"] as? Double ?? 0) - width * Double(frame) / Double(RegionCAF.frames)) < 1)
        }
        let labels = try #require(wave["labels"] as? [[String: Any]])
        #expect(labels.map { $0["text"] as? String } == [RegionCAF.name])
        #expect(abs((labels.first?["pixel"] as? Double ?? 0) - width * Double(RegionCAF.start) / Double(RegionCAF.frames)) < 1.5)
    }
}

/// A mono 16-bit CAF at 48 kHz whose `regn` chunk holds one region (ID 7, no loop flag) from
/// frame ``start`` to ``end``, named ``name`` in `strg`; every field as Apple's CAF specification
/// lays it out (big-endian, 64-bit chunk sizes, 28-byte markers).
enum RegionCAF {
    static let frames = 48_000
    static let start = 9_600
    static let end = 38_400
    static let name = "whoosh tail"

    static func be<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<MemoryLayout<T>.size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] { Array(type.utf8) + be(Int64(body.count)) + body }
    /// A marker: type, frame position (Float64), ID, SMPTE time (8 bytes, none), channel 0.
    static func marker(_ type: String, frame: Int, id: Int32) -> [UInt8] {
        Array(type.utf8) + be(Double(frame).bitPattern) + be(id) + [UInt8](repeating: 0, count: 8) + be(UInt32(0))
    }

    static func bytes() -> [UInt8] {
        // lpcm, little-endian signed integers (kCAFLinearPCMFormatFlagIsLittleEndian = 2).
        let desc = chunk("desc", be(Double(48_000).bitPattern) + Array("lpcm".utf8) + be(UInt32(2)) + be(UInt32(2)) + be(UInt32(1)) + be(UInt32(1)) + be(UInt32(16)))
        // smpte time type 0, one region: ID 7, flags 0, two markers.
        let regn = chunk(
            "regn",
            be(UInt32(0)) + be(UInt32(1)) + be(UInt32(7)) + be(UInt32(0)) + be(UInt32(2))
                + marker("rbeg", frame: start, id: 1) + marker("rend", frame: end, id: 2))
        // One string, ID 7 (the region's), at offset 0 of the string data.
        let strg = chunk("strg", be(UInt32(1)) + be(UInt32(7)) + be(Int64(0)) + Array(name.utf8) + [0])
        let samples = ReportFolder.sine(frames: frames, amplitude: 0.5, frequency: 220)
        let data = chunk("data", be(UInt32(0)) + samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
        return Array("caff".utf8) + be(UInt16(1)) + be(UInt16(0)) + desc + regn + strg + data
    }
}

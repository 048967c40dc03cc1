import Foundation
import TestSupport
import Testing

/// `info --loudness` end to end: files and folders of any format convert reads, measured from
/// their decoding; the levels are known from how the fixtures are made (a 1 kHz stereo sine whose
/// peak is X dBFS reads X LUFS, EBU Tech 3341 cases 1 and 2).
@Suite("info --loudness, end to end")
struct LoudnessEndToEndTests {
    /// A stereo 1 kHz sine at 48 kHz whose peak is `dBFS`, `seconds` long.
    static func sine(_ encoding: WAVFixture.Encoding, dBFS: Double, seconds: Double) -> [UInt8] {
        let frames = Int(seconds * 48_000)
        let amplitude = pow(10, dBFS / 20)
        let values = (0..<frames).flatMap { frame -> [Double] in
            let value = amplitude * sin(2 * Double.pi * 1000 * Double(frame) / 48_000)
            return [value, value]
        }
        if encoding.isFloat {
            return WAVFixture(encoding: encoding, channels: 2, sampleRate: 48_000, floats: values).bytes(order: .little)
        }
        let scale = Double(Int64(1) << (encoding.bits - 1))
        let integers = values.map { Int32(($0 * scale).rounded()) }
        return WAVFixture(encoding: encoding, channels: 2, sampleRate: 48_000, integers: integers).bytes(order: .little)
    }

    /// The `loudness` objects of `info --loudness --json`, by file name.
    static func measurements(_ result: ProcessResult) throws -> [String: [String: Any]] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        var found: [String: [String: Any]] = [:]
        for entry in array {
            let path = try #require(entry["path"] as? String)
            found[(path as NSString).lastPathComponent] = entry["loudness"] as? [String: Any] ?? ["error": entry["error"] ?? ""]
        }
        return found
    }

    @Test("a folder of WAVs (float, 16-bit, 24-bit) and a short clip: integrated loudness within 0.1 LU, the clip flagged short")
    func folder() throws {
        let folder = TempDirectory()
        _ = folder.write("sfx/a-float.wav", Self.sine(.float32, dBFS: -23, seconds: 5))
        _ = folder.write("sfx/b-int16.wav", Self.sine(.int16, dBFS: -16, seconds: 5))
        _ = folder.write("sfx/deep/c-int24.wav", Self.sine(.int24, dBFS: -33, seconds: 2))
        _ = folder.write("sfx/d-click.wav", Self.sine(.int16, dBFS: -20, seconds: 0.1))
        let result = try run(RepositoryPaths.executable, ["info", "--loudness", "--json", "-j", "2", folder.file("sfx")])
        #expect(result.status == 0, "\(result.stderr)")
        let found = try Self.measurements(result)
        for (name, expected) in [("a-float.wav", -23.0), ("b-int16.wav", -16.0), ("c-int24.wav", -33.0), ("d-click.wav", -20.0)] {
            let measured = try #require(found[name]?["integratedLUFS"] as? Double, "\(name): \(String(describing: found[name]))")
            #expect(abs(measured - expected) <= 0.1, "\(name): \(measured)")
            // A sine's true peak is its peak.
            let peak = try #require(found[name]?["truePeakDBTP"] as? Double)
            #expect(abs(peak - expected) <= 0.2, "\(name): \(peak) dBTP")
        }
        #expect(found["d-click.wav"]?["shortClip"] as? Bool == true)
        #expect(found["a-float.wav"]?["shortClip"] as? Bool == false)
        // One worker gives the same answers as two.
        let serial = try run(RepositoryPaths.executable, ["info", "--loudness", "--json", "-j", "1", folder.file("sfx")])
        #expect(serial.stdout == result.stdout)
    }

    @Test("JSON: a level silence does not have is null, its key still there")
    func silenceIsNull() throws {
        let folder = TempDirectory()
        let quiet = folder.write(
            "quiet.wav",
            WAVFixture(encoding: .int16, channels: 1, sampleRate: 48_000, integers: Array(repeating: 0, count: 48_000)).bytes(
                order: .little))
        let result = try run(RepositoryPaths.executable, ["info", "--loudness", "--json", quiet])
        let measured = try #require(try Self.measurements(result)["quiet.wav"])
        for key in ["integratedLUFS", "truePeakDBTP", "samplePeakDBFS", "maxMomentaryLUFS", "maxShortTermLUFS"] {
            #expect(measured[key] is NSNull, "\(key): \(String(describing: measured[key]))")
        }
    }

    @Test("text and --brief name the file and the levels; silence reads silent")
    func text() throws {
        let folder = TempDirectory()
        let tone = folder.write("tone.wav", Self.sine(.int16, dBFS: -23, seconds: 3))
        let quiet = folder.write("quiet.wav", WAVFixture(encoding: .int16, channels: 1, sampleRate: 48_000, integers: Array(repeating: 0, count: 48_000)).bytes(order: .little))
        let result = try run(RepositoryPaths.executable, ["info", "--loudness", tone, quiet])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.contains("\(tone)\n  integrated loudness: -23.0 LUFS\n"), "\(result.text)")
        #expect(result.text.contains("\(quiet)\n  integrated loudness: silent\n"), "\(result.text)")
        let brief = try run(RepositoryPaths.executable, ["info", "--loudness", "--brief", tone])
        #expect(brief.text == "\(tone): -23.0 LUFS, range 0.0 LU, true peak -23.0 dBTP\n", "\(brief.text)")
    }

    @Test(
        "FLAC and MP3 sources (made by ffmpeg) are measured from their decoding, as convert reads them",
        .enabled(if: which("ffmpeg") != nil, "needs ffmpeg to make the sources"))
    func otherFormats() throws {
        let folder = TempDirectory()
        let wav = folder.write("in/src.wav", Self.sine(.int16, dBFS: -18, seconds: 4))
        let ffmpeg = try #require(which("ffmpeg"))
        #expect(try run(ffmpeg, ["-v", "error", "-i", wav, folder.file("in/a.flac")]).status == 0)
        #expect(try run(ffmpeg, ["-v", "error", "-i", wav, "-b:a", "192k", folder.file("in/b.mp3")]).status == 0)
        let result = try run(RepositoryPaths.executable, ["info", "--loudness", "--json", folder.file("in")])
        #expect(result.status == 0, "\(result.stderr)")
        let found = try Self.measurements(result)
        // FLAC is lossless; LAME's joint stereo at 192 kb/s lowers this sine by about 0.3 LU (ffmpeg's
        // ebur128 filter reads the same file at -18.3 LUFS).
        for (name, tolerance) in [("src.wav", 0.1), ("a.flac", 0.1), ("b.mp3", 0.5)] {
            let measured = try #require(found[name]?["integratedLUFS"] as? Double, "\(name): \(String(describing: found[name]))")
            #expect(abs(measured - -18) <= tolerance, "\(name): \(measured)")
        }
    }

    @Test("a file that is not audio fails with its name and exit 1; the others are still measured")
    func badFile() throws {
        let folder = TempDirectory()
        let bad = folder.write("in/bad.wav", Array("not a wave file at all".utf8))
        _ = folder.write("in/good.wav", Self.sine(.int16, dBFS: -23, seconds: 1))
        let result = try run(RepositoryPaths.executable, ["info", "--loudness", "--brief", folder.file("in")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cafconv: error: \(bad): "), "\(result.stderr)")
        #expect(result.text.contains("good.wav: -23.0 LUFS"), "\(result.text)")
        var floats = [Double](repeating: 0.25, count: 9_600)
        floats[4_001] = .nan
        let nan = folder.write("nan.wav", WAVFixture(encoding: .float32, channels: 2, sampleRate: 48_000, floats: floats).bytes(order: .little))
        let refused = try run(RepositoryPaths.executable, ["info", "--loudness", nan])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(nan): frame 2000 holds a sample that is not a finite number (nan)"), "\(refused.stderr)")
        let empty = try run(RepositoryPaths.executable, ["info", "--loudness", folder.file("in/nothing")])
        #expect(empty.status == 1)
        let usage = try run(RepositoryPaths.executable, ["info", "-j", "2", folder.file("in/good.wav")])
        #expect(usage.status == 64 && usage.stderr.contains("--jobs needs --loudness"), "\(usage.stderr)")
    }
}

/// `verify --loudness MIN..MAX --max-true-peak DB`: the gate, end to end.
@Suite("verify --loudness and --max-true-peak, end to end")
struct LoudnessGateEndToEndTests {
    @Test("a CAF inside the bounds passes; outside, each broken bound is a finding naming the file, the measured value and the bound")
    func gate() throws {
        let folder = TempDirectory()
        let wav = folder.write("in/tone.wav", LoudnessEndToEndTests.sine(.int16, dBFS: -23, seconds: 3))
        let caf = folder.file("out/tone.caf")
        let made = try run(RepositoryPaths.executable, ["convert", "-q", wav, "-o", caf])
        #expect(made.status == 0, "\(made.stderr)")
        let pass = try run(RepositoryPaths.executable, ["verify", "--loudness", "-24..-22", "--max-true-peak", "-1", caf])
        #expect(pass.status == 0, "\(pass.text)\(pass.stderr)")
        let fail = try run(RepositoryPaths.executable, ["verify", "--loudness", "-18..-14", "--max-true-peak", "-30", caf])
        #expect(fail.status == 1)
        #expect(fail.text.contains("\(caf): loudness: expected -18.0..-14.0 LUFS, found -23.0 LUFS"), "\(fail.text)")
        #expect(fail.text.contains("\(caf): max-true-peak: expected at most -30.0 dBTP, found -23.0 dBTP"), "\(fail.text)")
        let json = try run(RepositoryPaths.executable, ["verify", "--json", "--loudness", "-18..-14", caf])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let files = try #require(document["files"] as? [[String: Any]])
        let loudness = try #require(files.first?["loudness"] as? [String: Any])
        let integrated = try #require(loudness["integratedLUFS"] as? Double)
        #expect(abs(integrated - -23) < 0.1)
        let bad = try run(RepositoryPaths.executable, ["verify", "--loudness", "-14..-18", caf])
        #expect(bad.status == 64 && bad.stderr.contains("above the maximum"), "\(bad.stderr)")
    }
}

/// `convert --loudness TARGET --true-peak CEILING`: one static gain per file, end to end.
@Suite("convert --loudness, end to end")
struct LoudnessNormalisationEndToEndTests {
    /// `info --loudness --json` of one file: its loudness object.
    static func measure(_ path: String) throws -> [String: Any] {
        let result = try run(RepositoryPaths.executable, ["info", "--loudness", "--json", path])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        return try #require(array.first?["loudness"] as? [String: Any], "\(result.stderr)")
    }

    /// The report's first file of `convert --json`.
    static func report(_ result: ProcessResult) throws -> [String: Any] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        return try #require((document["files"] as? [[String: Any]])?.first)
    }

    @Test("a quiet source reaches the target: the output re-measures within 0.1 LU, as float and as dithered 16-bit")
    func reachesTarget() throws {
        let folder = TempDirectory()
        let wav = folder.write("in/quiet.wav", LoudnessEndToEndTests.sine(.int16, dBFS: -30, seconds: 3))
        for (format, extra) in [("LEF32", [String]()), ("LEI16", ["--dither", "tpdf"]), ("LEI16", [])] {
            let caf = folder.file("out-\(format)\(extra.count)/quiet.caf")
            let result = try run(
                RepositoryPaths.executable, ["convert", "--json", "--loudness", "-16", "-d", format] + extra + [wav, "-o", caf])
            #expect(result.status == 0, "\(format) \(extra): \(result.text)\(result.stderr)")
            let file = try Self.report(result)
            let loudness = try #require(file["loudness"] as? [String: Any])
            let gain = try #require(loudness["gain"] as? Double)
            #expect(abs(gain - 14) < 0.1, "\(gain)")
            let measured = try #require(try Self.measure(caf)["integratedLUFS"] as? Double)
            #expect(abs(measured - -16) <= 0.1, "\(format) \(extra): \(measured)")
            // The proof compared output = source x gain under the conversion rule.
            let proof = try #require(file["proof"] as? [String: Any])
            #expect("\(proof)".contains("gain +14.0 dB (--loudness)"), "\(proof)")
        }
    }

    @Test("a gain the true-peak ceiling caps stops there, with the typed warning naming the shortfall; never a limiter")
    func capped() throws {
        let folder = TempDirectory()
        // A -40 dBFS tone with one full-scale sample: about -40 LUFS with a true peak near 0 dBTP.
        var tone = (0..<96_000).flatMap { frame -> [Int32] in
            let value = Int32((pow(10, -40 / 20) * 32767 * sin(2 * Double.pi * 1000 * Double(frame) / 48_000)).rounded())
            return [value, value]
        }
        tone[48_000] = 32767
        tone[48_001] = 32767
        let wav = folder.write(
            "in/click.wav", WAVFixture(encoding: .int16, channels: 2, sampleRate: 48_000, integers: tone).bytes(order: .little))
        let caf = folder.file("out/click.caf")
        let result = try run(RepositoryPaths.executable, ["convert", "--loudness", "-16", "-d", "LEF32", wav, "-o", caf])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("-16.0 LUFS asked, -3"), "\(result.stderr)")
        #expect(result.stderr.contains("reached: true peak limited to -1.0 dBTP"), "\(result.stderr)")
        let measured = try Self.measure(caf)
        let peak = try #require(measured["truePeakDBTP"] as? Double)
        #expect(abs(peak - -1) <= 0.05, "\(peak)")
        // The tone and the click keep their ratio: one gain, nothing dynamic.
        let source = try Self.measure(wav)
        let sourcePeak = try #require(source["samplePeakDBFS"] as? Double)
        let outputPeak = try #require(measured["samplePeakDBFS"] as? Double)
        let sourceLoudness = try #require(source["integratedLUFS"] as? Double)
        let outputLoudness = try #require(measured["integratedLUFS"] as? Double)
        #expect(abs((outputPeak - sourcePeak) - (outputLoudness - sourceLoudness)) < 0.05)
    }

    @Test("rules files set a target per folder; the target is in the fingerprint; a silent source fails, typed")
    func rulesAndIncremental() throws {
        let folder = TempDirectory()
        _ = folder.write("in/sfx/a.wav", LoudnessEndToEndTests.sine(.int16, dBFS: -30, seconds: 2))
        _ = folder.write("in/music/b.wav", LoudnessEndToEndTests.sine(.int16, dBFS: -30, seconds: 2))
        _ = folder.write(
            "in/cafconv.toml", Array("[defaults]\nformat = \"LEF32\"\n\n[[rule]]\nmatch = \"sfx/**\"\nloudness = -18\n\n[[rule]]\nmatch = \"music/**\"\nloudness = \"-23.5\"\ntrue-peak = -2\n".utf8))
        let out = folder.file("out")
        let first = try run(RepositoryPaths.executable, ["convert", "-q", folder.file("in"), "-o", out])
        #expect(first.status == 0, "\(first.stderr)")
        let sfx = try #require(try Self.measure(out + "/sfx/a.caf")["integratedLUFS"] as? Double)
        let music = try #require(try Self.measure(out + "/music/b.caf")["integratedLUFS"] as? Double)
        #expect(abs(sfx - -18) <= 0.1 && abs(music - -23.5) <= 0.1, "\(sfx) \(music)")
        let again = try run(RepositoryPaths.executable, ["convert", folder.file("in"), "-o", out])
        #expect(again.stderr.contains("2 up to date"), "\(again.stderr)")
        // The command line's target overrides the rules and changes the fingerprint.
        let changed = try run(RepositoryPaths.executable, ["convert", "--loudness", "-20", folder.file("in"), "-o", out])
        #expect(changed.stderr.contains("2 converted"), "\(changed.stderr)")
        let silent = folder.write(
            "quiet/s.wav", WAVFixture(encoding: .int16, channels: 1, sampleRate: 48_000, integers: Array(repeating: 0, count: 48_000)).bytes(order: .little))
        let refused = try run(RepositoryPaths.executable, ["convert", "--json", "--loudness", "-16", silent, "-o", folder.file("s.caf")])
        #expect(refused.status == 1)
        let file = try Self.report(refused)
        #expect(file["code"] as? String == "unsupported", "\(file)")
        #expect((file["reason"] as? String)?.contains("silent (below the -70 LUFS gate)") == true, "\(file)")
        #expect(!exists(folder.file("s.caf")))
    }
}

import BinaryIO
import Foundation
import TestSupport
import Testing

/// Text inside a file (titles, labels, marker names, CAF strings, AIFF text chunks) is the file
/// author's, not cafconv's: `info` must show it escaped (no terminal command, no forged line)
/// and `--json` must carry it exactly. Issue 28.
@Suite("hostile text in metadata, end to end")
struct HostileTextEndToEndTests {
    /// Sets the terminal title, clears the screen, forges a line, a C1 CSI and a bidi override.
    static let evil = "t\u{1B}]0;pwned\u{07}\u{1B}[2J\r\nFrames:          999999\u{9B}31m\u{202E}x\u{7F}"
    /// The same as bytes, with invalid UTF-8 (a lone 0x9B is a CSI when read as Latin-1).
    static let evilBytes: [UInt8] =
        Array("u\u{1B}[2J\r\nFrames:          999999".utf8) + [0x9B, 0x33, 0x31, 0x6D, 0xFF, 0x85, 0x07]

    func cafconv(_ arguments: [String]) throws -> ProcessResult {
        try run("/usr/bin/timeout", ["-s", "KILL", "60", RepositoryPaths.executable] + arguments)
    }

    /// No control byte but the newline, no C1 control, separator or bidi override in UTF-8, and
    /// exactly `files` lines that start with `Frames:`.
    func expectClean(_ output: [UInt8], files: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let bad = output.enumerated().filter { index, byte in
            if byte < 0x20 && byte != 0x0A || byte == 0x7F { return true }
            // C1 controls U+0080...U+009F are C2 80...C2 9F in UTF-8.
            if byte == 0xC2, index + 1 < output.count, (0x80...0x9F).contains(output[index + 1]) { return true }
            // U+2028...U+202E are E2 80 A8...AE; U+2066...U+2069 are E2 81 A6...A9.
            if byte == 0xE2, index + 2 < output.count {
                let (second, third) = (output[index + 1], output[index + 2])
                if second == 0x80 && (0xA8...0xAE).contains(third) || second == 0x81 && (0xA6...0xA9).contains(third) {
                    return true
                }
            }
            return false
        }
        #expect(bad.isEmpty, "raw control bytes at \(bad.map(\.offset))", sourceLocation: sourceLocation)
        let text = String(decoding: output, as: UTF8.self)
        let frames = text.split(separator: "\n").filter { $0.hasPrefix("Frames:") }
        #expect(frames.count == files, "forged lines: \(frames)", sourceLocation: sourceLocation)
        #expect(!text.contains("\u{FFFD}\u{FFFD}\u{FFFD}"), sourceLocation: sourceLocation)
    }

    /// The strings of `key` in the objects of `array` (info values, marker names...) of `info --json`.
    func strings(_ json: [UInt8], _ list: String, _ key: String) throws -> [String] {
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]])
        return array.flatMap { ($0[list] as? [[String: Any]] ?? []).compactMap { $0[key] as? String } }
    }

    /// Runs `info` (text, --brief, --json) on `path` and checks the text outputs are clean;
    /// `valid`: the file must pass (a CAF whose strings are not UTF-8 breaks the spec: status 1).
    func inspect(_ path: String, valid: Bool = true) throws -> [UInt8] {
        let text = try cafconv(["info", path])
        #expect(text.status == (valid ? 0 : 1), "\(text.stderr)")
        expectClean(text.stdout + Array(text.stderr.utf8), files: 1)
        let brief = try cafconv(["info", "--brief", path])
        expectClean(brief.stdout + Array(brief.stderr.utf8), files: 0)
        #expect(brief.text.split(separator: "\n").count == 1)
        let json = try cafconv(["info", "--json", path])
        #expect(json.status == (valid ? 0 : 1))
        return json.stdout
    }

    // MARK: - WAV: LIST/INFO, cue + LIST/adtl labl and note

    static func wave(text: [UInt8], cueIDs: [UInt32] = [1, 2]) -> [UInt8] {
        var fmt = ByteWriter()
        for value: UInt16 in [1, 1] { fmt.write(value, .little) }
        fmt.write(UInt32(8000), .little)
        fmt.write(UInt32(16000), .little)
        fmt.write(UInt16(2), .little)
        fmt.write(UInt16(16), .little)
        func sub(_ id: String, _ body: [UInt8]) -> [UInt8] {
            var writer = ByteWriter()
            writer.write(bytes: Array(id.utf8))
            writer.write(UInt32(body.count), .little)
            writer.write(bytes: body)
            if body.count % 2 == 1 { writer.write(UInt8(0)) }
            return writer.bytes
        }
        var cue = ByteWriter()
        cue.write(UInt32(2), .little)
        for (id, position) in zip(cueIDs, [10, 20] as [UInt32]) {
            cue.write(id, .little)
            cue.write(position, .little)
            cue.write(bytes: Array("data".utf8))
            for _ in 0..<3 { cue.write(UInt32(0), .little) }
        }
        func labelled(_ cueID: UInt32) -> [UInt8] {
            var writer = ByteWriter()
            writer.write(cueID, .little)
            return writer.bytes + text + [0]
        }
        return WAVFixture.riff(chunks: [
            ("fmt ", fmt.bytes), ("data", [UInt8](repeating: 0, count: 200)),
            ("LIST", Array("INFO".utf8) + sub("INAM", text + [0]) + sub("IART", text + [0])),
            ("cue ", cue.bytes),
            ("LIST", Array("adtl".utf8) + sub("labl", labelled(1)) + sub("note", labelled(2))),
        ])
    }

    @Test("info on a WAV whose INFO title, artist and cue labels hold escapes: clean text, exact JSON")
    func wavText() throws {
        let folder = TempDirectory()
        let good = folder.write("good.wav", Self.wave(text: Array(Self.evil.utf8)))
        let json = try inspect(good)
        #expect(try strings(json, "info", "value") == [Self.evil, Self.evil])
        #expect(try strings(json, "markers", "name") == [Self.evil, Self.evil])
        _ = try inspect(folder.write("bad.wav", Self.wave(text: Self.evilBytes)))
    }

    // MARK: - AIFF: NAME, AUTH, ANNO, (c), MARK names

    static func aiff(text: [UInt8], rate: [UInt8] = [0x40, 0x0B, 0xFA, 0, 0, 0, 0, 0, 0, 0]) -> [UInt8] {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            var writer = ByteWriter()
            writer.write(bytes: Array(id.utf8))
            writer.write(UInt32(body.count), .big)
            writer.write(bytes: body)
            if body.count % 2 == 1 { writer.write(UInt8(0)) }
            return writer.bytes
        }
        var comm = ByteWriter()
        comm.write(UInt16(1), .big)
        comm.write(UInt32(100), .big)
        comm.write(UInt16(16), .big)
        comm.write(bytes: rate)  // 8000 Hz by default, 80-bit extended
        var mark = ByteWriter()
        mark.write(UInt16(1), .big)
        mark.write(UInt16(1), .big)
        mark.write(UInt32(10), .big)
        let name = Array(text.prefix(255))
        mark.write(UInt8(name.count))
        mark.write(bytes: name)
        if name.count % 2 == 0 { mark.write(UInt8(0)) }
        let body =
            Array("AIFF".utf8) + chunk("COMM", comm.bytes) + chunk("NAME", text) + chunk("AUTH", text)
            + chunk("ANNO", text) + chunk("(c) ", text) + chunk("MARK", mark.bytes)
            + chunk("SSND", [UInt8](repeating: 0, count: 208))
        var file = ByteWriter()
        file.write(bytes: Array("FORM".utf8))
        file.write(UInt32(body.count), .big)
        return file.bytes + body
    }

    @Test("info on an AIFF whose NAME, AUTH, ANNO, (c) and marker names hold escapes: clean text, exact JSON")
    func aiffText() throws {
        let folder = TempDirectory()
        let json = try inspect(folder.write("good.aif", Self.aiff(text: Array(Self.evil.utf8))))
        #expect(try strings(json, "info", "value") == [Self.evil, Self.evil, Self.evil, Self.evil])
        #expect(try strings(json, "markers", "name") == [Self.evil])
        _ = try inspect(folder.write("bad.aif", Self.aiff(text: Self.evilBytes)))
    }

    // MARK: - CAF: info, strg (marker and region names), mark

    static func caf(text: [UInt8]) -> [UInt8] {
        var file = ByteWriter()
        file.write(bytes: Array("caff".utf8))
        file.write(UInt16(1), .big)
        file.write(UInt16(0), .big)
        func chunk(_ id: String, _ body: [UInt8]) {
            file.write(bytes: Array(id.utf8))
            file.write(UInt64(body.count), .big)
            file.write(bytes: body)
        }
        var desc = ByteWriter()
        desc.write(Double(8000), .big)
        desc.write(bytes: Array("lpcm".utf8))
        desc.write(UInt32(2), .big)  // big-endian signed integer
        for value: UInt32 in [2, 1, 1, 16] { desc.write(value, .big) }
        chunk("desc", desc.bytes)
        var info = ByteWriter()
        info.write(UInt32(2), .big)
        info.write(bytes: Array("title".utf8) + [0] + text + [0])
        info.write(bytes: text + [0] + Array("v".utf8) + [0])
        chunk("info", info.bytes)
        var strg = ByteWriter()
        strg.write(UInt32(1), .big)
        strg.write(UInt32(7), .big)
        strg.write(Int64(0), .big)
        strg.write(bytes: text + [0])
        chunk("strg", strg.bytes)
        var mark = ByteWriter()
        mark.write(UInt32(0), .big)
        mark.write(UInt32(1), .big)
        mark.write(UInt32(0), .big)  // generic
        mark.write(Double(10), .big)
        mark.write(Int32(7), .big)
        for _ in 0..<3 { mark.write(UInt32(0xFFFF_FFFF), .big) }
        chunk("mark", mark.bytes)
        chunk("data", [0, 0, 0, 0] + [UInt8](repeating: 0, count: 200))
        return file.bytes
    }

    @Test("info on a CAF whose info keys and values, strg and mark hold escapes: clean text, exact JSON")
    func cafText() throws {
        let folder = TempDirectory()
        let json = try inspect(folder.write("good.caf", Self.caf(text: Array(Self.evil.utf8))))
        #expect(try strings(json, "info", "value").contains(Self.evil))
        #expect(try strings(json, "info", "key").contains(Self.evil))
        #expect(try strings(json, "markers", "name") == [Self.evil])
        _ = try inspect(folder.write("bad.caf", Self.caf(text: Self.evilBytes)), valid: false)
    }

    @Test("convert and verify: warnings and findings about a file whose name holds escapes are escaped, live and at the end")
    func convertWarnings() throws {
        let folder = TempDirectory()
        let name = "in/w\u{1B}]0;x\u{07}\u{9B}2J\u{202E}.wav"
        // Two cue points with one ID: convert warns about the file, naming it.
        folder.write(name, Self.wave(text: Array(Self.evil.utf8), cueIDs: [1, 1]))
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("more than once"), "\(result.stderr)")
        expectClean(result.stdout + Array(result.stderr.utf8), files: 0)
        let verified = try cafconv(["verify", folder.file("out")])
        expectClean(verified.stdout + Array(verified.stderr.utf8), files: 0)
        let info = try cafconv(["info", folder.file("out")])
        expectClean(info.stdout + Array(info.stderr.utf8), files: 1)
    }

    // MARK: - Rules files

    @Test("a rules file whose patterns and values hold escapes: the error is escaped")
    func rulesText() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        for body in [
            "[[rule]]\nmatch = \"a\\u001b]0;pwned\\u0007\\r\\nFrames: 1\\u009b\"\nformat = \"\\u001b[2J\\nQ\"\n",
            "[[rule]]\nmatch = \"*\"\nendian = \"\\u001b[2J\\u009b\\nbad\"\n",
            "[defaults]\n\"k\\u001b[2J\\u0085\" = 1\n",
        ] {
            folder.write("in/cafconv.toml", Array(body.utf8))
            let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
            #expect(result.status != 0)
            expectClean(result.stdout + Array(result.stderr.utf8), files: 0)
            #expect(result.stderr.contains("\\x1B"), "\(result.stderr)")
        }
    }

    // MARK: - RF64 with a ds64 data size of 2^63 or more

    static func rf64(dataSize: UInt64) -> [UInt8] {
        var file = ByteWriter()
        file.write(bytes: Array("RF64".utf8))
        file.write(UInt32(0xFFFF_FFFF), .little)
        file.write(bytes: Array("WAVEds64".utf8))
        file.write(UInt32(28), .little)
        file.write(UInt64(0), .little)  // RIFF size, patched below
        file.write(dataSize, .little)
        file.write(UInt64(16), .little)
        file.write(UInt32(0), .little)
        file.write(bytes: Array("fmt ".utf8))
        file.write(UInt32(16), .little)
        for value: UInt16 in [1, 1] { file.write(value, .little) }
        file.write(UInt32(8000), .little)
        file.write(UInt32(16000), .little)
        file.write(UInt16(2), .little)
        file.write(UInt16(16), .little)
        file.write(bytes: Array("data".utf8))
        file.write(UInt32(0xFFFF_FFFF), .little)
        file.write(bytes: [UInt8](repeating: 1, count: 32))
        var bytes = file.bytes
        let riff = UInt64(bytes.count - 8)
        for index in 0..<8 { bytes[20 + index] = UInt8(truncatingIfNeeded: riff >> UInt64(8 * index)) }
        return bytes
    }

    @Test(
        "info, convert and verify on an RF64 whose ds64 data size is 2^63 or more: no trap",
        arguments: [
            UInt64(1) << 63, UInt64.max, UInt64(Int64.max),
        ])
    func rf64HugeDataSize(size: UInt64) throws {
        let folder = TempDirectory()
        let path = folder.write("huge.wav", Self.rf64(dataSize: size))
        for arguments in [["info", path], ["info", "--brief", path], ["info", "--json", path]] {
            let result = try cafconv(arguments)
            #expect(result.status == 0 || result.status == 1, "\(arguments): status \(result.status), \(result.stderr)")
        }
        let json = try cafconv(["info", "--json", path])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])
        let chunks = try #require(array.first?["chunks"] as? [[String: Any]])
        #expect(chunks.contains { $0["type"] as? String == "data" })
        let converted = try cafconv(["convert", path, "-o", folder.file("out.caf")])
        #expect(converted.status == 0 || converted.status == 1, "\(converted.stderr)")
        let verified = try cafconv(["verify", path])
        #expect(verified.status < 64, "\(verified.stderr)")
    }
}

/// Numbers from a file that no conversion may trap on, in the commands that reach them.
@Suite("hostile numbers, end to end")
struct HostileNumbersEndToEndTests {
    @Test("verify --against an AIFF whose rate is 1e300 (finite, positive, beyond Int): an error, no trap")
    func againstHugeRate() throws {
        let folder = TempDirectory()
        // 2^996 (about 1e300) as an 80-bit extended: exponent 16383 + 996, mantissa 1.0.
        let huge = folder.write(
            "huge.aif", HostileTextEndToEndTests.aiff(text: Array("x".utf8), rate: [0x43, 0xE3, 0x80, 0, 0, 0, 0, 0, 0, 0]))
        let wav = folder.write("a.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let caf = folder.file("a.caf")
        let converted = try run(RepositoryPaths.executable, ["convert", "-q", wav, "-o", caf])
        try #require(converted.status == 0, "\(converted.stderr)")
        let result = try run(
            "/usr/bin/timeout", ["-s", "KILL", "60", RepositoryPaths.executable, "verify", "--against", huge, caf])
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr)")
    }
}

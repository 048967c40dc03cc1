import BinaryIO
import Foundation
import TestSupport
import Testing

/// `cafconv afinfo` and the executable invoked as `afinfo` (issue 32): afinfo's lines, checked
/// against outputs of Apple's afinfo published in public scripts, tests and notes. Each fixture
/// is built to have the published file's format, size and layout, so the lines must come out
/// the same, spacing included.
///
/// | published output | where it was published |
/// | --- | --- |
/// | `macOS27WAV`, `macOS27Brief`: 16 kHz mono WAV written by afconvert, full and `--brief` ("verbatim afinfo output, captured on macOS 27") | a Rust test module's constants `REAL_AFINFO_FULL_WAV` / `REAL_AFINFO_BRIEF_WAV` (public repository file, search index id 62718369952) |
/// | `browserWAV`: 48 kHz mono WAV, 44-byte header, 9.7 s | a note on recording sample rates, `afinfo recording-2008669228-1756626851540.wav` (public repository file, id 14251549749) |
/// | `bookCAF`: 44.1 kHz mono 16-bit CAF, data at 4096, 86004 frames | *Professional iOS Augmented Reality* (Roche), listing 5-1 `afinfo waterfall.caf` (public repository file, id 56469923791); its data format line is the pre-macOS 12 spelling, so it is compared with the earcon check below |
/// | `earconCAF`: `File type ID:   caff` and `Data format:\s+1 ch,\s+44100 Hz, Int16` | an earcon verification script's afinfo checks (public repository files, ids 66901762355 and 62466058159) |
/// | `aiffLine`: `Data format:     2 ch,  44100 Hz, lpcm (0x0000000E) 16-bit big-endian signed integer` then `no channel layout.` | a Swift test's afinfo fixture for AIFF (public repository file, id 69661972398) and render notes (ids 70107285174, 70318350638) |
/// | `ima4Line`: `Data format:     1 ch,  44100 Hz, ima4 (0x00000000) 0 bits/channel, 34 bytes/packet, 64 frames/packet`, 6 s | notes on `afconvert -f caff -d ima4 chime.wav chime.caf` then afinfo (public repository file, id 63162160338) |
/// | `aacLine`: `aac  (0x00000000) 0 bits/channel, 0 bytes/packet, 1024 frames/packet, 0 bytes/frame` | the same Rust module's `REAL_AFINFO_BRIEF_M4A` (id 62718369952); `format list:` and the `valid frames + priming + remainder` line from a published m4a output (id 40986013022) |
@Suite("afinfo front end, end to end")
struct AFInfoEndToEndTests {
    static let macOS27WAV = """
        File:           PATH
        File type ID:   WAVE
        Num Tracks:     1
        ----
        Data format:     1 ch,  16000 Hz, Int16
                        no channel layout.
        estimated duration: 1.492438 sec
        audio bytes: 47758
        audio packets: 23879
        bit rate: 256000 bits per second
        packet size upper bound: 2
        maximum packet size: 2
        audio data file offset: 4096
        optimized
        source bit depth: I16
        ----

        """

    static let macOS27Brief = """
        PATH, WAVE, Num Tracks:     1
        ----
        1.492 sec, format:   1 ch,  16000 Hz, Int16

        """

    static let browserWAV = """
        File:           PATH
        File type ID:   WAVE
        Num Tracks:     1
        ----
        Data format:     1 ch,  48000 Hz, Int16
                        no channel layout.
        estimated duration: 9.700000 sec
        audio bytes: 931200
        audio packets: 465600
        bit rate: 768000 bits per second
        packet size upper bound: 2
        maximum packet size: 2
        audio data file offset: 44
        optimized
        source bit depth: I16
        ----

        """

    /// The lines of listing 5-1 whose spelling has not changed since.
    static let bookCAF = [
        "File type ID:   caff", "                no channel layout.", "estimated duration: 1.950204 sec", "audio bytes: 172008",
        "audio packets: 86004", "audio 86004 valid frames + 0 priming + 0 remainder = 86004",
        "bit rate: 705600 bits per second", "packet size upper bound: 2", "audio data file offset: 4096", "optimized",
        "source bit depth: I16", "----",
    ]

    /// A mono 16-bit WAV of `frames` frames at `rate`, its audio at byte 4096 (afconvert pads
    /// with an `FLLR` chunk) or right after a 44-byte header.
    static func wav(frames: Int, rate: Int, padded: Bool, before extra: [(String, [UInt8])] = []) -> [UInt8] {
        let fixture = WAVFixture.signal(.int16, channels: 1, frames: frames, sampleRate: rate)
        var fmt = ByteWriter()
        fmt.write(UInt16(1), .little)
        fmt.write(UInt16(1), .little)
        fmt.write(UInt32(rate), .little)
        fmt.write(UInt32(rate * 2), .little)
        fmt.write(UInt16(2), .little)
        fmt.write(UInt16(16), .little)
        let filler: [(String, [UInt8])] = padded ? [("FLLR", [UInt8](repeating: 0, count: 4044))] : []
        return WAVFixture.riff(chunks: [("fmt ", fmt.bytes)] + filler + extra + [("data", fixture.sampleBytes)])
    }

    /// `frames` frames at `rate` converted by `cafconv afconvert -d format`, then described by
    /// afinfo (which must succeed): the CAF's path and afinfo's output.
    static func converted(_ folder: TempDirectory, frames: Int, rate: Int, format: String) throws -> (String, String) {
        let source = folder.write("in.wav", wav(frames: frames, rate: rate, padded: false))
        let output = folder.file("out.caf")
        let converted = try run(RepositoryPaths.executable, ["afconvert", "-f", "caff", "-d", format, source, output])
        #expect(converted.status == 0, "\(converted.stderr)")
        let result = try afinfo([output])
        #expect(result.status == 0, "\(result.stderr)")
        return (output, result.text)
    }

    static func afinfo(_ arguments: [String]) throws -> ProcessResult {
        try run(RepositoryPaths.executable, ["afinfo"] + arguments)
    }

    @Test("a WAV like the macOS 27 one reads as afinfo printed it, full and --brief")
    func macOS27() throws {
        let folder = TempDirectory()
        let path = folder.write("probe.wav", Self.wav(frames: 23879, rate: 16000, padded: true))
        let full = try Self.afinfo([path])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.text == Self.macOS27WAV.replacingOccurrences(of: "PATH", with: path))
        for spelling in ["-b", "--brief"] {
            let brief = try Self.afinfo([spelling, path])
            #expect(brief.text == Self.macOS27Brief.replacingOccurrences(of: "PATH", with: path))
        }
        let plain = folder.write("browser.wav", Self.wav(frames: 465_600, rate: 48000, padded: false))
        #expect(try Self.afinfo([plain]).text == Self.browserWAV.replacingOccurrences(of: "PATH", with: plain))
    }

    @Test("a CAF converted like listing 5-1's has its lines, and the Data format of today's afinfo")
    func bookCAF() throws {
        let folder = TempDirectory()
        let source = folder.write("waterfall.wav", Self.wav(frames: 86004, rate: 44100, padded: false))
        let output = folder.file("waterfall.caf")
        let converted = try run(RepositoryPaths.executable, ["convert", "-q", "-d", "LEI16", source, "-o", output])
        #expect(converted.status == 0, "\(converted.stderr)")
        let result = try Self.afinfo([output])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.text.split(separator: "\n").map(String.init)
        for line in Self.bookCAF { #expect(lines.contains(line), "\(line)\n\(result.text)") }
        #expect(lines.contains("maximum packet size: 2"))
        #expect(result.text.range(of: #"Data format:\s+1 ch,\s+44100 Hz, Int16\n"#, options: .regularExpression) != nil)
        #expect(lines.prefix(4) == ["File:           \(output)", "File type ID:   caff", "Num Tracks:     1", "----"])
        #expect(lines.last == "----")
    }

    @Test("an AIFF's big-endian samples are spelled out after the code and flags, as afinfo does")
    func aiffLine() throws {
        let folder = TempDirectory()
        var body = ByteWriter()
        body.write(bytes: Array("AIFF".utf8))
        body.write(bytes: Array("COMM".utf8))
        body.write(UInt32(18), .big)
        body.write(UInt16(2), .big)
        body.write(UInt32(4410), .big)
        body.write(UInt16(16), .big)
        // 44100 Hz as an 80-bit extended float.
        body.write(bytes: [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0])
        body.write(bytes: Array("SSND".utf8))
        body.write(UInt32(8 + 4410 * 4), .big)
        body.write(UInt32(0), .big)
        body.write(UInt32(0), .big)
        body.write(bytes: [UInt8](repeating: 1, count: 4410 * 4))
        var file = ByteWriter()
        file.write(bytes: Array("FORM".utf8))
        file.write(UInt32(body.bytes.count), .big)
        file.write(bytes: body.bytes)
        let path = folder.write("a.aiff", file.bytes)
        let result = try Self.afinfo([path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.text.contains(
                "File type ID:   AIFF\nNum Tracks:     1\n----\nData format:     2 ch,  44100 Hz, lpcm (0x0000000E) 16-bit big-endian signed integer\n                no channel layout.\nestimated duration: 0.100000 sec\naudio bytes: 17640\n"
            ), "\(result.text)")
        #expect(result.text.contains("audio data file offset: 54\noptimized\nsource bit depth: I16\n----\n"), "\(result.text)")
    }

    @Test("an IMA4 CAF: afinfo's data format line, and its real packet count, not the pakt's 0")
    func ima4() throws {
        // The folder lives to the end of the test: the CAF is read again below.
        let folder = TempDirectory()
        let (output, text) = try Self.converted(folder, frames: 264_600, rate: 44100, format: "ima4")
        #expect(
            text.contains(
                "Data format:     1 ch,  44100 Hz, ima4 (0x00000000) 0 bits/channel, 34 bytes/packet, 64 frames/packet"),
            "\(text)")
        #expect(text.contains("estimated duration: 6.000000 sec\n"))
        // 264600 frames are 4134 packets and 24 frames: 4135 packets, 40 frames of remainder.
        #expect(text.contains("audio bytes: 140590\naudio packets: 4135\nbit rate: 187425 bits per second\n"), "\(text)")
        #expect(text.contains("packet size upper bound: 34\nmaximum packet size: 34\n"))
        #expect(text.contains("audio 264600 valid frames + 0 priming + 40 remainder = 264640\n"), "\(text)")
        let info = try run(RepositoryPaths.executable, ["info", output])
        #expect(info.text.contains("Packets:         4135 (64 frames, 34 bytes each), priming 0, remainder 40\n"), "\(info.text)")
        #expect(info.text.contains("Bit rate:        187425 bits per second\n"))
        let json = try run(RepositoryPaths.executable, ["info", "--json", output])
        let entry = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])?.first)
        #expect(entry["packets"] as? Int == 4135)
        #expect(entry["maximumPacketSize"] as? Int == 34)
        #expect(entry["packetSizeUpperBound"] as? Int == 34)
        #expect(entry["bitRate"] as? Int == 187_425)
    }

    @Test("an AAC CAF: the code with its space, the packet layout, format list and the pakt's frames")
    func aac() throws {
        // The folder lives to the end of the test: the CAF is read again below.
        let folder = TempDirectory()
        let (output, text) = try Self.converted(folder, frames: 23879, rate: 16000, format: "aac")
        // The priming is the encoder's own (Apple's writes 2112, libavcodec's 1024).
        let format = " 1 ch,  16000 Hz, aac  (0x00000000) 0 bits/channel, 0 bytes/packet, 1024 frames/packet, 0 bytes/frame"
        #expect(text.contains("Data format:    \(format)\n"), "\(text)")
        #expect(text.contains("format list:\n[ 0] format:\t\(format)\n"), "\(text)")
        #expect(
            text.range(of: #"audio 23879 valid frames \+ \d+ priming \+ \d+ remainder = \d+\n"#, options: .regularExpression)
                != nil, "\(text)")
        let brief = try Self.afinfo(["-b", output])
        #expect(brief.text.hasSuffix("1.492 sec, format:  \(format)\n"), "\(brief.text)")
    }

    @Test("invoked as afinfo (a link to cafconv), the executable is afinfo")
    func invokedAsAFInfo() throws {
        let folder = TempDirectory()
        let path = folder.write("probe.wav", Self.wav(frames: 23879, rate: 16000, padded: true))
        let link = folder.file("afinfo")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: RepositoryPaths.executable)
        let result = try run(link, [path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text == Self.macOS27WAV.replacingOccurrences(of: "PATH", with: path))
        // -r (the real packet count) is what cafconv always does: accepted, same output.
        #expect(try run(link, ["-r", path]).text == result.text)
        #expect(try run(link, [path, "--real"]).text == result.text)
    }

    @Test("afinfo's -x, --xml and --leaks are refused by name, with the reason")
    func refused() throws {
        let folder = TempDirectory()
        let path = folder.write("probe.wav", Self.wav(frames: 100, rate: 16000, padded: false))
        for spelling in ["-x", "--xml", "--leaks"] {
            let result = try Self.afinfo([spelling, path])
            #expect(result.status == 64)
            #expect(result.stderr.contains("afinfo's \(spelling) is not supported: "), "\(result.stderr)")
            #expect(result.text.isEmpty)
        }
    }

    @Test("-i adds the file's information strings as afinfo's info dictionary")
    func infoDictionary() throws {
        let folder = TempDirectory()
        var list = ByteWriter()
        list.write(bytes: Array("INFOINAM".utf8))
        list.write(UInt32(6), .little)
        list.write(bytes: Array("Title".utf8) + [0])
        let path = folder.write("t.wav", Self.wav(frames: 100, rate: 8000, padded: false, before: [("LIST", list.bytes)]))
        let result = try Self.afinfo(["-i", path])
        #expect(
            result.text.contains("info dictionary:\n    INAM                             : \"Title\"\n----\n"), "\(result.text)")
        #expect(!(try Self.afinfo([path]).text.contains("info dictionary")))
    }

    @Test("an unreadable file: the others are still described, the failure is named, exit 1")
    func unreadable() throws {
        let folder = TempDirectory()
        let good = folder.write("probe.wav", Self.wav(frames: 23879, rate: 16000, padded: true))
        let bad = folder.write("bad.caf", Array("not audio at all, only text".utf8))
        let result = try Self.afinfo([bad, good])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.caf"), "\(result.stderr)")
        #expect(result.text == Self.macOS27WAV.replacingOccurrences(of: "PATH", with: good))
    }
}

import Foundation
import TestSupport
import Testing

/// `info` (text, `--brief`, `--json`) and `afinfo` on every source `convert` reads, not only CAF,
/// WAV and AIFF (issue 32): FLAC, MP3, Ogg Vorbis, Ogg Opus, Wave64 and Sun/NeXT `.au`, made by
/// sox and ffmpeg.
@Suite("info on every source convert reads, end to end")
struct SourceInfoEndToEndTests {
    static let tools = which("sox") != nil && which("ffmpeg") != nil

    /// One second of a 440 Hz tone at 44.1 kHz, stereo, written by sox (`name`'s extension picks
    /// the format) or by ffmpeg with `codec`.
    static func make(_ folder: TempDirectory, _ name: String, codec: String? = nil, rate: Int = 44100) throws -> String {
        let path = folder.file(name)
        let result: ProcessResult
        if let codec {
            result = try run(
                try #require(which("ffmpeg")),
                [
                    "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(rate):duration=1", "-ac",
                    "2",
                    "-c:a", codec, path,
                ])
        } else {
            result = try run(
                try #require(which("sox")), ["-n", "-r", "\(rate)", "-c", "2", "-b", "16", path, "synth", "1", "sine", "440"])
        }
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    static func json(_ path: String) throws -> [String: Any] {
        let result = try run(RepositoryPaths.executable, ["info", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        return try #require(entries.first)
    }

    static func afinfo(_ path: String) throws -> String {
        let result = try run(RepositoryPaths.executable, ["afinfo", path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.text
    }

    @Test("FLAC: libsndfile's reading, STREAMINFO's block size, the source depth", .enabled(if: tools, "needs sox and ffmpeg"))
    func flac() throws {
        let folder = TempDirectory()
        let path = try Self.make(folder, "tone.flac")
        let entry = try Self.json(path)
        #expect(entry["container"] as? String == "flac")
        #expect(entry["format"] as? String == "flac")
        #expect(entry["fileTypeID"] as? String == "flac")
        #expect(entry["frames"] as? Int == 44100)
        #expect(entry["channels"] as? Int == 2)
        #expect(entry["sampleRate"] as? Double == 44100)
        #expect(entry["sourceBitDepth"] as? String == "I16")
        #expect((entry["bitRate"] as? Int ?? 0) > 0)
        #expect(entry["error"] is NSNull)
        let text = try run(RepositoryPaths.executable, ["info", path]).text
        #expect(text.contains("Container:       FLAC\n"), "\(text)")
        #expect(text.contains("Source depth:    I16\n"), "\(text)")
        let brief = try run(RepositoryPaths.executable, ["info", "--brief", path]).text
        #expect(brief == "\(path): FLAC audio, 16-bit PCM, stereo, 44100 Hz, 44100 frames (1.0 s)\n", "\(brief)")
        let afinfo = try Self.afinfo(path)
        #expect(afinfo.contains("File type ID:   flac\n"))
        #expect(
            afinfo.range(
                of: #"Data format:     2 ch,  44100 Hz, flac \(0x00000001\) from 16-bit source, \d+ frames/packet\n"#,
                options: .regularExpression) != nil, "\(afinfo)")
        #expect(afinfo.contains("estimated duration: 1.000000 sec\n"))
    }

    @Test("MP3: libmpg123's frame count, 1152 frames a packet", .enabled(if: tools, "needs sox and ffmpeg"))
    func mp3() throws {
        let folder = TempDirectory()
        let path = try Self.make(folder, "tone.mp3", codec: "libmp3lame")
        let entry = try Self.json(path)
        #expect(entry["container"] as? String == "mp3")
        #expect(entry["format"] as? String == ".mp3")
        #expect(entry["channels"] as? Int == 2)
        #expect(entry["framesPerPacket"] as? Int == 1152)
        // libmpg123 leaves out LAME's encoder delay and padding: the tone's own length.
        #expect(entry["frames"] as? Int == 44100)
        let afinfo = try Self.afinfo(path)
        #expect(afinfo.contains("File type ID:   MPG3\n"))
        #expect(
            afinfo.contains(
                "Data format:     2 ch,  44100 Hz, .mp3 (0x00000000) 0 bits/channel, 0 bytes/packet, 1152 frames/packet, 0 bytes/frame\n"
            ),
            "\(afinfo)")
    }

    @Test("Ogg Vorbis through libsndfile, Ogg Opus from its pages", .enabled(if: tools, "needs sox and ffmpeg"))
    func ogg() throws {
        let folder = TempDirectory()
        let vorbis = try Self.json(try Self.make(folder, "tone.ogg", codec: "libvorbis"))
        #expect(vorbis["container"] as? String == "ogg")
        #expect(vorbis["format"] as? String == "vorb")
        #expect(vorbis["frames"] as? Int == 44100)
        let opusPath = try Self.make(folder, "tone.opus", codec: "libopus", rate: 48000)
        let opus = try Self.json(opusPath)
        #expect(opus["container"] as? String == "ogg")
        #expect(opus["format"] as? String == "opus")
        #expect(opus["sampleRate"] as? Double == 48000)
        #expect(opus["frames"] as? Int == 48000)
        #expect(opus["primingFrames"] as? Int == 312)
        // 20 ms packets: 1 s and the pre-skip.
        #expect(opus["packets"] as? Int == 51)
        #expect(opus["framesPerPacket"] as? Int == 960)
        #expect((opus["maximumPacketSize"] as? Int ?? 0) > 0)
        let afinfo = try Self.afinfo(opusPath)
        #expect(afinfo.contains("File type ID:   Ogg \n"))
        #expect(afinfo.contains("audio packets: 51\n"), "\(afinfo)")
    }

    @Test(
        "Wave64 and .au: linear PCM through libsndfile, the .au header's data offset", .enabled(if: tools, "needs sox and ffmpeg")
    )
    func w64AndAU() throws {
        let folder = TempDirectory()
        let w64 = try Self.json(try Self.make(folder, "tone.w64"))
        #expect(w64["container"] as? String == "w64")
        #expect(w64["format"] as? String == "lpcm")
        #expect(w64["frames"] as? Int == 44100)
        #expect(w64["byteOrder"] as? String == "little")
        #expect(w64["bitRate"] as? Int == 1_411_200)
        let auPath = try Self.make(folder, "tone.au")
        let au = try Self.json(auPath)
        #expect(au["container"] as? String == "au")
        #expect(au["byteOrder"] as? String == "big")
        #expect(au["audioBytes"] as? Int == 44100 * 4)
        let bytes = try #require(readFile(auPath))
        let offset = Int(bytes[4]) << 24 | Int(bytes[5]) << 16 | Int(bytes[6]) << 8 | Int(bytes[7])
        #expect(au["audioOffset"] as? Int == offset)
        let afinfo = try Self.afinfo(auPath)
        #expect(afinfo.contains("File type ID:   NeXT\n"))
        #expect(
            afinfo.contains("Data format:     2 ch,  44100 Hz, lpcm (0x0000000E) 16-bit big-endian signed integer\n"), "\(afinfo)"
        )
        #expect(afinfo.contains("audio data file offset: \(offset)\n"))
    }

    @Test("a folder of FLAC files is described, not 'no audio files found'", .enabled(if: tools, "needs sox and ffmpeg"))
    func folderOfFLAC() throws {
        let folder = TempDirectory()
        _ = try Self.make(folder, "tone.flac")
        let result = try run(RepositoryPaths.executable, ["info", "--brief", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.contains("tone.flac: FLAC audio"), "\(result.text)")
    }

    @Test("a file no library reads: named, with libsndfile's reason")
    func notAudio() throws {
        let folder = TempDirectory()
        let path = folder.write("text.flac", Array("plain text, not audio".utf8))
        let result = try run(RepositoryPaths.executable, ["info", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a CAF, WAV or AIFF file, nor a format libsndfile reads ("), "\(result.stderr)")
    }
}

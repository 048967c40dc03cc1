import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification
import WAVEKit

/// Lossy sources and FLAC decoded in full by libsndfile and checked by a second decoder
/// (libavformat + libavcodec) before anything is written; damaged streams refused, never cut
/// short with success; lossless sources libsndfile refuses read by libavcodec.
@Suite("Second decoder", .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed (it makes the MP3 and FLAC sources)"))
struct SecondDecoderTests {
    /// A signal whose complexity changes (quiet tone, then a loud sweep with noise), so a VBR
    /// encoder's first frame's bit rate says nothing about the rest.
    static let signal =
        "aevalsrc=if(lt(t\\,0.6)\\,0.01*sin(2*PI*220*t)\\,0.5*sin(2*PI*440*t*(1+t))+0.2*random(0)):s=44100:d=1.4"

    static func ffmpeg(_ arguments: [String]) throws {
        let ffmpeg = try #require(which("ffmpeg"))
        let result = try run(ffmpeg, ["-v", "error", "-y"] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// Frames ffmpeg decodes from `path`.
    static func ffmpegFrames(_ path: String, channels: Int = 1) throws -> Int {
        let ffmpeg = try #require(which("ffmpeg"))
        let result = try run(ffmpeg, ["-v", "error", "-i", path, "-f", "s16le", "-"])
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.count / (2 * channels)
    }

    static func convert(_ input: String, _ output: String) -> FileResult? {
        Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1)).files.first
    }

    @Test("a VBR MP3 with a Xing header converts in full, checked by libavcodec")
    func vbrWithXing() throws {
        let folder = TempDirectory()
        let mp3 = folder.file("vbr.mp3")
        try Self.ffmpeg(["-f", "lavfi", "-i", Self.signal, "-c:a", "libmp3lame", "-q:a", "4", mp3])
        let result = try #require(Self.convert(mp3, folder.file("vbr.caf")))
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.frames == Int64(try Self.ffmpegFrames(mp3)))
        #expect(result.proof?.sourceDecoder == "libmpg123")
    }

    @Test("a VBR MP3 without a Xing header, whose length libsndfile estimates from its first frame, converts in full")
    func vbrWithoutXing() throws {
        let folder = TempDirectory()
        let mp3 = folder.file("vbr.mp3")
        try Self.ffmpeg(["-f", "lavfi", "-i", Self.signal, "-c:a", "libmp3lame", "-q:a", "4", "-write_xing", "0", mp3])
        try Self.expectFull(mp3, output: folder.file("vbr.caf"))
    }

    @Test(
        "an MP3 made of a 320 kb/s stream then a 32 kb/s one (VBR, no Xing header) converts in full, and verify --against agrees",
        .enabled(if: hasLAME, "ffmpeg has no libmp3lame encoder"))
    func concatenatedBitRates() throws {
        let folder = TempDirectory()
        var bytes: [UInt8] = []
        for (rate, tone, seconds) in [("320k", 440, "1"), ("32k", 660, "3")] {
            let part = folder.file("part-\(rate).mp3")
            try Self.ffmpeg([
                "-f", "lavfi", "-i", "sine=f=\(tone):d=\(seconds):r=44100", "-c:a", "libmp3lame", "-b:a", rate,
                "-write_xing", "0", "-id3v2_version", "0", "-write_id3v1", "0", part,
            ])
            bytes += try #require(readFile(part))
        }
        let mp3 = folder.write("src/mixed.mp3", bytes)
        try Self.expectFull(mp3, output: folder.file("mixed.caf"))
        let verified = Verifier.verify(paths: [folder.file("mixed.caf")], options: VerifyOptions(against: mp3))
        #expect(verified.succeeded, "\(verified.files.flatMap(\.failures))")
    }

    @Test(
        "a VBR MP3 in WAV (format tag 0x55) converts every frame its 'fact' chunk counts, by libmpg123 checked by libavcodec",
        .enabled(if: hasLAME, "ffmpeg has no libmp3lame encoder"))
    func mp3InWAV() throws {
        let folder = TempDirectory()
        let wav = folder.file("src/mp3.wav")
        folder.write("src/.keep", [])
        try Self.ffmpeg(["-f", "lavfi", "-i", Self.signal, "-c:a", "libmp3lame", "-q:a", "4", wav])
        let wave = try WAVEFile(reading: MemoryByteSource(try #require(readFile(wav))))
        try #require(wave.format.formatTag == 0x55, "ffmpeg wrote format tag \(wave.format.formatTag)")
        let fact = Int(try #require(wave.factSampleLength))
        try Self.expectFull(wav, output: folder.file("mp3.caf"), frames: fact)
        let verified = Verifier.verify(paths: [folder.file("mp3.caf")], options: VerifyOptions(against: wav))
        #expect(verified.succeeded, "\(verified.files.flatMap(\.failures))")
    }

    /// Whether ffmpeg has the LAME encoder the MP3 fixtures are made with.
    static let hasLAME: Bool = {
        guard let ffmpeg = which("ffmpeg"), let result = try? run(ffmpeg, ["-hide_banner", "-encoders"]) else { return false }
        return result.text.contains("libmp3lame")
    }()

    /// Converts `mp3` to `output` and checks that every frame ffmpeg decodes (the first `frames`)
    /// is there, as libmpg123 decoded it (16-bit, within the decoders' tolerance of ffmpeg's).
    static func expectFull(_ mp3: String, output: String, frames: Int? = nil) throws {
        let ffmpeg = try #require(which("ffmpeg"))
        let reference = try run(ffmpeg, ["-v", "error", "-i", mp3, "-f", "s16le", "-"])
        try #require(reference.status == 0, "\(reference.stderr)")
        let decodedByFFmpeg = stride(from: 0, to: reference.stdout.count - 1, by: 2).map {
            Int32(Int16(bitPattern: UInt16(reference.stdout[$0]) | UInt16(reference.stdout[$0 + 1]) << 8))
        }
        let expected = Array(decodedByFFmpeg.prefix(frames ?? decodedByFFmpeg.count))
        let result = try #require(convert(mp3, output))
        try #require(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.frames == Int64(expected.count), "ffmpeg decodes \(expected.count) frames")
        #expect(result.proof?.sourceDecoder == "libmpg123")
        let written = try #require(readFile(output))
        let caf = try CAFFile(reading: MemoryByteSource(written))
        let layout = try #require(PCMLayout(caf.audioDescription))
        let start = Int(caf.audioOffset)
        let decoded = layout.decodeIntegers(written[start..<start + expected.count * layout.bytesPerFrame])
        try #require(decoded.count == expected.count)
        // 2^-13 apart at most (4 steps of 16 bits), plus each side's rounding.
        let worst = zip(decoded, expected).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 5, "largest difference from ffmpeg's decoding: \(worst) steps")
    }

    @Test("an MP3 with a damaged frame is refused, not converted short")
    func damagedMP3() throws {
        let folder = TempDirectory()
        let mp3 = folder.file("damaged.mp3")
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=3:r=44100", "-c:a", "libmp3lame", "-b:a", "128k", mp3])
        var bytes = try #require(readFile(mp3))
        // Overwrite the middle of one frame (and the next frame's header) with garbage.
        let middle = bytes.count / 2
        for index in middle..<middle + 600 { bytes[index] = UInt8(truncatingIfNeeded: index &* 97) }
        writeFile(mp3, bytes)
        let result = try #require(Self.convert(mp3, folder.file("damaged.caf")))
        #expect(result.status == .failed, "converted \(result.frames ?? -1) frames, warnings \(result.warnings)")
        #expect(Self.isCrossCheckRefusal(result.error), "\(result.reason ?? "")")
        #expect(!exists(folder.file("damaged.caf")))
    }

    /// Whether `error` is the second decoder's refusal: damage it found, or the two decoders'
    /// disagreement.
    static func isCrossCheckRefusal(_ error: ConversionError?) -> Bool {
        switch error {
        case .source(.damaged)?, .source(.frameCountsDisagree)?, .source(.samplesDiffer)?,
            .source(.cannotDecode(decoder: "libavcodec", _))?:
            true
        default: false
        }
    }

    @Test(
        "an MP3 whose frame header is wiped is refused, naming the damaged frame's byte, never converted short",
        .enabled(if: hasLAME, "ffmpeg has no libmp3lame encoder"))
    func wipedFrameHeader() throws {
        let folder = TempDirectory()
        let mp3 = folder.file("wiped.mp3")
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "sine=f=440:d=6:r=44100", "-c:a", "libmp3lame", "-b:a", "128k", "-id3v2_version", "0", mp3,
        ])
        var bytes = try #require(readFile(mp3))
        let offsets = Self.mpegFrameOffsets(bytes)
        try #require(offsets.count > 200, "\(offsets.count) frames found")
        let damaged = offsets[120]
        for index in damaged..<damaged + 4 { bytes[index] = 0 }
        writeFile(mp3, bytes)
        let result = try #require(Self.convert(mp3, folder.file("wiped.caf")))
        #expect(result.status == .failed, "converted \(result.frames ?? -1) frames, warnings \(result.warnings)")
        guard case .source(.damaged(_, let places, _, _, _))? = result.error else {
            Issue.record("not refused as damaged: \(result.reason ?? "")")
            return
        }
        #expect(places.contains { $0.byte == Int64(damaged) }, "\(result.reason ?? "")")
        #expect(!exists(folder.file("wiped.caf")))
    }

    /// The byte offsets of the MPEG-1 layer III frames of `bytes` (no ID3 tag), walked by their
    /// headers' bit rate and padding.
    static func mpegFrameOffsets(_ bytes: [UInt8]) -> [Int] {
        let rates = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
        let sampleRates = [44100, 48000, 32000, 0]
        var offsets: [Int] = []
        var at = 0
        while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] & 0xFE == 0xFA {
            let rate = rates[Int(bytes[at + 2] >> 4)]
            let sampleRate = sampleRates[Int(bytes[at + 2] >> 2 & 3)]
            guard rate > 0, sampleRate > 0 else { break }
            offsets.append(at)
            at += 144 * rate * 1000 / sampleRate + Int(bytes[at + 2] >> 1 & 1)
        }
        return offsets
    }

    @Test(
        "a FLAC with a flipped byte is refused, and verify --against does not call a short output exact",
        .enabled(if: which("sndfile-convert") != nil, "sndfile-convert is not installed"))
    func damagedFLAC() throws {
        let folder = TempDirectory()
        let flac = folder.file("src/damaged.flac")
        folder.write("src/.keep", [])
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=1:r=44100", "-c:a", "flac", flac])
        var bytes = try #require(readFile(flac))
        bytes[bytes.count * 2 / 3] ^= 0x10
        writeFile(flac, bytes)
        // What libsndfile alone reads of the damaged file (the output convert wrote before the fix).
        let prefix = folder.file("prefix.wav")
        let sndfileConvert = try #require(which("sndfile-convert"))
        try #require(try run(sndfileConvert, ["-pcm16", flac, prefix]).status == 0)

        let result = try #require(Self.convert(flac, folder.file("out/damaged.caf")))
        #expect(result.status == .failed, "converted \(result.frames ?? -1) of 44100 frames")
        #expect(
            { if case .source(.damaged)? = result.error { true } else { false } }(), "\(result.reason ?? "")")

        let short = try #require(Self.convert(prefix, folder.file("short/damaged.caf")))
        try #require(short.status == .converted, "\(short.reason ?? "")")
        let verified = Verifier.verify(paths: [folder.file("short/damaged.caf")], options: VerifyOptions(against: flac))
        let failures = verified.files.flatMap(\.failures)
        #expect(!verified.succeeded, "verify --against calls a short output made of a damaged source exact")
        #expect(failures.contains { $0.found.contains("damaged") }, "\(failures)")
    }

    @Test("a 12-bit FLAC, which libsndfile refuses, is read by libavcodec and converted exactly")
    func twelveBitFLAC() throws {
        let folder = TempDirectory()
        let frames = 10000
        let samples = (0..<frames * 2).map { index -> Int32 in
            let frame = index / 2
            return Int32((Double(frame) * (index % 2 == 0 ? 0.05 : 0.031)).truncatingRemainder(dividingBy: 6.283).magnitude
                * 600) - 1800 + Int32(index % 7)
        }
        let flac = folder.write("twelve.flac", FLACFixture.verbatim(samples, channels: 2, bits: 12, sampleRate: 22050))
        #expect(try Self.ffmpegFrames(flac, channels: 2) == frames, "ffmpeg reads the fixture")
        let output = folder.file("twelve.caf")
        let result = try #require(Self.convert(flac, output))
        try #require(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.frames == Int64(frames))
        #expect(result.proof?.sourceDecoder == "libavcodec")
        let written = try CAFFile(reading: MemoryByteSource(try #require(readFile(output))))
        let layout = try #require(PCMLayout(written.audioDescription))
        #expect(layout.bits == 16)
        let bytes = try #require(readFile(output))
        let start = Int(written.audioOffset)
        let decoded = layout.decodeIntegers(bytes[start..<start + frames * 4])
        #expect(decoded == samples.map { $0 << 4 })
    }
}

extension SecondDecoderTests {
    @Test("an Ogg Vorbis stream converts with every frame its last granule position states, libavcodec's shorter decoding notwithstanding")
    func vorbisKeepsItsLength() throws {
        let folder = TempDirectory()
        let ogg = folder.file("short.ogg")
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=0.3:r=44100", "-ac", "2", "-c:a", "libvorbis", ogg])
        let result = try #require(Self.convert(ogg, folder.file("short.caf")))
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.frames == 13230)
    }

    @Test("libavcodec's reader opens no file or URL a hostile input names (a concat list of a FLAC)")
    func playlistsAreNotFollowed() throws {
        let folder = TempDirectory()
        try Self.ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=0.2:r=44100", "-c:a", "flac", folder.file("secret.flac")])
        let list = folder.write("list.txt", Array("ffconcat version 1.0\nfile secret.flac\n".utf8))
        let result = try #require(Self.convert(list, folder.file("list.caf")))
        #expect(result.status == .failed, "converted \(result.frames ?? -1) frames of the file the list names")
        #expect(!exists(folder.file("list.caf")))
    }
}

/// FLAC streams written bit by bit (STREAMINFO, then frames of VERBATIM subframes, each frame with
/// its CRC-8 header and CRC-16 footer), for depths libsndfile and ffmpeg's encoder do not write.
enum FLACFixture {
    struct Bits {
        var bytes: [UInt8] = []
        var filled = 0
        mutating func put(_ value: UInt64, _ count: Int) {
            for bit in stride(from: count - 1, through: 0, by: -1) {
                if filled == 0 { bytes.append(0) }
                if (value >> UInt64(bit)) & 1 == 1 { bytes[bytes.count - 1] |= 0x80 >> UInt8(filled) }
                filled = (filled + 1) % 8
            }
        }
        mutating func align() { filled = 0 }
    }

    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }

    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }

    /// Interleaved `samples` (signed, `bits` wide) as a FLAC file of 4096-frame blocks.
    static func verbatim(_ samples: [Int32], channels: Int, bits: Int, sampleRate: Int) -> [UInt8] {
        let frames = samples.count / channels
        let block = 4096
        var out = Array("fLaC".utf8)
        var info = Bits()
        info.put(1, 1)  // last metadata block
        info.put(0, 7)  // STREAMINFO
        info.put(34, 24)
        info.put(UInt64(block), 16)
        info.put(UInt64(block), 16)
        info.put(0, 24)
        info.put(0, 24)
        info.put(UInt64(sampleRate), 20)
        info.put(UInt64(channels - 1), 3)
        info.put(UInt64(bits - 1), 5)
        info.put(UInt64(frames), 36)
        info.put(0, 64)
        info.put(0, 64)  // no MD5
        out += info.bytes
        let sizeCodes: [Int: UInt64] = [8: 1, 12: 2, 16: 4, 20: 5, 24: 6]
        var number: UInt64 = 0
        for first in stride(from: 0, to: frames, by: block) {
            let count = min(block, frames - first)
            var frame = Bits()
            frame.put(0x3FFE, 14)
            frame.put(0, 1)
            frame.put(0, 1)  // fixed block size
            frame.put(0b0111, 4)  // block size - 1 in 16 bits after the header
            frame.put(0, 4)  // rate from STREAMINFO
            frame.put(UInt64(channels - 1), 4)  // independent channels
            frame.put(sizeCodes[bits] ?? 0, 3)
            frame.put(0, 1)
            frame.put(number, 8)  // frame number, UTF-8 coded (< 128)
            frame.put(UInt64(count - 1), 16)
            frame.bytes.append(crc8(frame.bytes[...]))
            for channel in 0..<channels {
                frame.put(0, 1)
                frame.put(1, 6)  // VERBATIM
                frame.put(0, 1)
                for index in 0..<count {
                    let value = samples[(first + index) * channels + channel]
                    frame.put(UInt64(UInt32(bitPattern: value)) & ((1 << UInt64(bits)) - 1), bits)
                }
            }
            frame.align()
            let crc = crc16(frame.bytes[...])
            frame.bytes += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
            out += frame.bytes
            number += 1
        }
        return out
    }
}

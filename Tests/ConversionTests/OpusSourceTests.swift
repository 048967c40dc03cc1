import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import Foundation
import Opus
import TestSupport
import Testing
import Verification

@testable import Transcoding

private let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
private let appleOpus = "../shared/corpus/apple-opus/jt274_ogg_caf_converter__test.caf"

/// Opus sources decoded by libopus to other formats: Apple's Opus CAF, cafconv's, ffmpeg's (its
/// frame count flagged), Ogg Opus (pre-skip, end trimming); `-d 0`, `--reencode`; `verify
/// --against` on Opus outputs.
@Suite("Opus sources", .enabled(if: (try? LibOpus.load()) != nil, "libopus is absent"))
struct OpusSourceTests {
    static func options(_ format: String?, bitRate: Int? = nil) throws -> ConversionOptions {
        var options = ConversionOptions(dataFormat: try format.map { try DataFormat(parsing: $0) }, jobs: 1)
        options.bitRate = bitRate
        return options
    }

    /// Converts the file at `input` into `name` in `folder`; the record and the output as CAFKit reads it.
    static func convert(_ input: String, to name: String, in folder: TempDirectory, options: ConversionOptions) throws
        -> (FileResult, CAFFile?)
    {
        let output = folder.file(name)
        let result = try #require(Engine.convert(inputs: [input], output: output, options: options).files.first)
        guard result.status == .converted else { return (result, nil) }
        return (result, try CAFFile(reading: try FileByteSource(path: output)))
    }

    /// An Ogg Opus file ffmpeg's libopus made of `frames` frames of a tone at `rate`.
    static func oggOpus(frames: Int, channels: Int, rate: Int, in folder: TempDirectory, name: String = "s.opus") throws -> String
    {
        let wav = folder.write(
            name + ".wav", toneFixture(frames: frames, channels: channels, sampleRate: rate).bytes(order: .little))
        let ogg = folder.file(name)
        let made = try runMerged(
            try #require(ffmpeg), ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libopus", "-b:a", "64k", ogg])
        try #require(made.status == 0, "\(made.text)")
        return ogg
    }

    @Test(
        "Apple's Opus CAF converts to exactly its pakt's 72000 frames, to LPCM, ALAC, AAC and IMA4",
        .enabled(if: FileManager.default.fileExists(atPath: appleOpus), "the Apple Opus corpus is absent"),
        arguments: [nil, "alac", "aac", "ima4", "LEF32"] as [String?])
    func apple(format: String?) throws {
        let folder = TempDirectory()
        let (result, file) = try Self.convert(appleOpus, to: "apple.caf", in: folder, options: try Self.options(format))
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.formatIn == "opus" && result.frames == 72_000 && result.sampleRate == 24_000)
        #expect(file?.validFrames == 72_000 || file?.packetTableHeader?.numberValidFrames == 72_000)
        if format == nil || format == "LEF32" {
            #expect(
                result.samples == .opusDecoded && result.proof?.comparison.hasPrefix("exact") == true,
                "\(String(describing: result.proof))")
        }
        #expect(!result.warnings.contains { if case .source(.opusFrameCountUntrusted) = $0 { true } else { false } })
    }

    @Test(
        "a cafconv Opus CAF decodes back to the source's exact frame count, aligned, and LEI16 matches a second libopus decoding")
    func cafconvRoundTrip() throws {
        let folder = TempDirectory()
        let wav = folder.write("n.wav", toneFixture(frames: 24_000 + 77, channels: 2, sampleRate: 24_000).bytes(order: .little))
        let (encoded, _) = try Self.convert(wav, to: "n.caf", in: folder, options: try Self.options("opus"))
        try #require(encoded.status == .converted, "\(encoded.reason ?? "")")
        let (decoded, file) = try Self.convert(folder.file("n.caf"), to: "back.caf", in: folder, options: try Self.options(nil))
        #expect(decoded.status == .converted, "\(decoded.reason ?? "")")
        #expect(decoded.frames == 24_077 && file?.audioDescription.bitsPerChannel == 16)
        #expect(decoded.proof?.comparison.hasPrefix("exact") == true && decoded.proof?.sourceDecoder.hasPrefix("libopus") == true)
        // Opus to Opus at the same rate: the packets move (OpusCAFMoveTests); --reencode encodes
        // again, proven against the decoding.
        var reencode = try Self.options("opus")
        reencode.reencode = true
        let (again, _) = try Self.convert(folder.file("n.caf"), to: "again.caf", in: folder, options: reencode)
        #expect(again.samples == .opusEncoded && again.frames == 24_077 && again.proof?.peakLag == 0, "\(again.reason ?? "")")
    }

    /// One second of a mono tone at 48 kHz encoded by ffmpeg's libopus into CAF: priming 0 and
    /// valid frames = packets x 960 in its `pakt`, no `kuki` (ffmpeg 5.1's layout).
    static func ffmpegOpusCAF(in folder: TempDirectory) throws -> String {
        let wav = folder.write("f.wav", toneFixture(frames: 48_000, channels: 1, sampleRate: 48_000).bytes(order: .little))
        let caf = folder.file("f.caf")
        let made = try runMerged(
            try #require(ffmpeg), ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libopus", "-b:a", "64k", caf])
        try #require(made.status == 0, "\(made.text)")
        return caf
    }

    @Test(
        "ffmpeg's Opus CAF (priming 0, valid = packets x 960) is read, with a typed warning that its frame count cannot be trusted",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func ffmpegLayout() throws {
        let folder = TempDirectory()
        let caf = try Self.ffmpegOpusCAF(in: folder)
        let (result, _) = try Self.convert(caf, to: "out.caf", in: folder, options: try Self.options(nil))
        #expect(result.status == .converted, "\(result.reason ?? "")")
        let header = try #require(try CAFFile(reading: try FileByteSource(path: caf)).packetTableHeader)
        #expect(result.frames == header.numberPackets * 960)
        #expect(
            result.warnings.contains(
                .source(
                    .opusFrameCountUntrusted(packets: header.numberPackets, framesPerPacket: 960, validFrames: result.frames ?? 0)
                )),
            "\(result.warnings)")
    }

    @Test(
        "ffmpeg's native-encoder Opus CAF ('desc' 120 frames a packet, packets of 960) decodes by its TOC durations, warned",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"),
        arguments: [nil, "opus", "LEI24"] as [String?])
    func ffmpegNativeLayout(format: String?) throws {
        let folder = TempDirectory()
        let wav = folder.write("n.wav", toneFixture(frames: 48_000, channels: 2, sampleRate: 48_000).bytes(order: .little))
        let caf = folder.file("n.caf")
        let made = try runMerged(
            try #require(ffmpeg), ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-strict", "-2", "-c:a", "opus", caf])
        try #require(made.status == 0, "\(made.text)")
        let file = try CAFFile(reading: try FileByteSource(path: caf))
        let header = try #require(file.packetTableHeader)
        try #require(file.audioDescription.framesPerPacket == 120 && header.numberValidFrames == header.numberPackets * 120)
        let (result, _) = try Self.convert(caf, to: "out.caf", in: folder, options: try Self.options(format))
        #expect(result.status == .converted, "\(result.reason ?? "")")
        let frames = header.numberPackets * 960
        #expect(result.frames == frames, "\(result.frames ?? 0)")
        let byTOC = ConversionWarning.source(.opusDurationsByTOC(packets: header.numberPackets, declared: 120, frames: frames))
        #expect(result.warnings.contains(byTOC), "\(result.warnings)")
        #expect(result.warnings.contains { if case .source(.opusFrameCountUntrusted) = $0 { true } else { false } })
        // With a `kuki` (Apple's and cafconv's files have one) the 'desc' is held to: decoding the
        // same packets is refused, naming the first (`-d opus` moves them as they are).
        guard format != "opus" else { return }
        let cookie = OpusCookie(application: 2049, sampleRate: 48_000, framesPerPacket: 120, bitRate: 0, channels: 2)
        var bytes = try #require(readFile(caf))
        bytes.insert(contentsOf: Array("kuki".utf8) + [0, 0, 0, 0, 0, 0, 0, 28] + cookie.bytes, at: 8 + 12 + 32)
        let withCookie = folder.write("kuki.caf", bytes)
        let (refused, _) = try Self.convert(withCookie, to: "kuki-out.caf", in: folder, options: try Self.options(format))
        #expect(refused.status == .failed, "\(refused.frames ?? 0)")
        let strict = "packet 0 holds 960 frames, the file's 'desc' declares 120 frames per packet"
        #expect(refused.reason?.contains(strict) == true, "\(refused.reason ?? "")")
    }

    @Test(
        "Ogg Opus decodes to any format: pre-skip dropped and the end trimmed by granule position (exactly the source's frames)",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"),
        arguments: [nil, "alac", "aac", "LEI24"] as [String?])
    func oggDecoded(format: String?) throws {
        let folder = TempDirectory()
        let ogg = try Self.oggOpus(frames: 48_000 + 100, channels: 2, rate: 48_000, in: folder)
        let (result, file) = try Self.convert(ogg, to: "d.caf", in: folder, options: try Self.options(format))
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.frames == 48_100 && result.sampleRate == 48_000 && result.formatIn == "opus")
        #expect(file != nil)
        if format == nil { #expect(result.samples == .opusDecoded && result.proof?.comparison.hasPrefix("exact") == true) }
    }

    @Test(
        "an Ogg Opus or Opus CAF source decodes to linear PCM or ALAC at another rate: round(declared x new / old) frames",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"),
        arguments: ["LEI16@44100", "0@24000", "alac@44100", "LEI24@96000"])
    func resampled(format: String) throws {
        let folder = TempDirectory()
        let ogg = try Self.oggOpus(frames: 48_000 + 100, channels: 2, rate: 48_000, in: folder)
        let wav = folder.write("c.wav", toneFixture(frames: 24_000 + 77, channels: 1, sampleRate: 24_000).bytes(order: .little))
        var opus = try Self.options(nil)
        try FormatRequest(parsing: "opus@24000").apply(to: &opus)
        let (encoded, _) = try Self.convert(wav, to: "c.caf", in: folder, options: opus)
        try #require(encoded.status == .converted, "\(encoded.reason ?? "")")
        let request = try FormatRequest(parsing: format)
        var options = try Self.options(nil)
        request.apply(to: &options)
        let rate = try #require(request.sampleRate)
        for (source, declared, sourceRate) in [(ogg, 48_100, 48_000), (folder.file("c.caf"), 24_077, 24_000)] {
            let (result, file) = try Self.convert(source, to: "r.caf", in: folder, options: options)
            #expect(result.status == .converted, "\(source) \(format): \(result.reason ?? "")")
            let expected = Int64((Double(declared) * Double(rate) / Double(sourceRate)).rounded())
            #expect(result.frames == expected && result.sampleRate == rate, "\(source) \(format): \(String(describing: result.frames))")
            #expect(file?.validFrames == UInt64(expected), "\(source) \(format)")
        }
    }

    @Test("a decoded length that disagrees names what declares it: the 'pakt', or an Ogg stream's last granule position")
    func declaredFramesSentence() {
        #expect(
            SourceFailure.paktFrames(decoded: 10, expected: 12, declared: 12, declaredBy: .pakt, outputRate: nil).description
                == "it decodes to 10 frames, its 'pakt' declares 12")
        #expect(
            SourceFailure.paktFrames(decoded: 44_099, expected: 44_100, declared: 48_000, declaredBy: .granule, outputRate: 44_100)
                .description
                == "it decodes to 44099 frames at 44100 Hz, where the 48000 frames its last granule position declares make 44100")
    }

    /// The Ogg file `bytes` with its `OpusHead` pre-skip set to 0 and its last page's granule
    /// position set to the frames its packets hold (20 ms each): a stream of pre-skip 0 and no end
    /// trimming. Every page's CRC is made again.
    static func untrimmed(_ bytes: [UInt8]) throws -> (bytes: [UInt8], packets: Int) {
        var pages: [[UInt8]] = []
        var at = 0
        while at + 27 <= bytes.count {
            let count = Int(bytes[at + 26])
            let lacing = bytes[at + 27..<at + 27 + count]
            let end = at + 27 + count + lacing.reduce(0) { $0 + Int($1) }
            try #require(end <= bytes.count)
            pages.append(Array(bytes[at..<end]))
            at = end
        }
        try #require(pages.count > 2)
        let packets = pages.dropFirst(2).reduce(0) { sum, page in sum + page[27..<27 + Int(page[26])].filter { $0 < 255 }.count }
        let head = try #require(Array(pages[0]).firstRange(of: Array("OpusHead".utf8))).lowerBound
        pages[0].replaceSubrange(head + 10..<head + 12, with: [0, 0])
        let granule = UInt64(packets * 960)
        pages[pages.count - 1].replaceSubrange(6..<14, with: (0..<8).map { UInt8(truncatingIfNeeded: granule >> (8 * $0)) })
        var out: [UInt8] = []
        for var page in pages {
            page.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            var crc: UInt32 = 0
            for byte in page {
                crc ^= UInt32(byte) << 24
                for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? crc << 1 ^ 0x04C1_1DB7 : crc << 1 }
            }
            page.replaceSubrange(22..<26, with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
            out += page
        }
        return (out, packets)
    }

    @Test(
        "an Ogg Opus stream of pre-skip 0 and no end trimming moves (priming 0, valid = packets x 960, with a kuki) and is not taken for ffmpeg's layout",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func preSkipZero() throws {
        let folder = TempDirectory()
        let ogg = try Self.oggOpus(frames: 48_000, channels: 2, rate: 48_000, in: folder)
        let (bytes, packets) = try Self.untrimmed(try #require(readFile(ogg)))
        let zero = folder.write("zero.opus", bytes)
        var keep = try Self.options(nil)
        try FormatRequest(parsing: "0").apply(to: &keep)
        let (moved, file) = try Self.convert(zero, to: "moved.caf", in: folder, options: keep)
        #expect(moved.status == .converted && moved.samples == .opusMoved, "\(moved.reason ?? "")")
        let header = try #require(file?.packetTableHeader)
        #expect(header.primingFrames == 0 && header.remainderFrames == 0 && header.numberValidFrames == Int64(packets * 960))
        #expect(file?.chunks.contains { $0.type == .kuki } == true)
        let document = try CAFDocument(reading: try FileByteSource(path: folder.file("moved.caf")))
        #expect(CAFValidator.validate(document).isEmpty, "\(CAFValidator.validate(document))")
        // Read again, the moved CAF is trusted: no warning, and it moves again.
        let (again, _) = try Self.convert(folder.file("moved.caf"), to: "again.caf", in: folder, options: keep)
        #expect(again.status == .converted && again.samples == .opusMoved, "\(again.reason ?? "")")
        #expect(!again.warnings.contains { if case .source(.opusFrameCountUntrusted) = $0 { true } else { false } })
    }

    @Test(
        "an Ogg Opus file whose OpusTags holds 150 KB of cover art moves and decodes",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func coverArt() throws {
        let folder = TempDirectory()
        let wav = folder.write("p.wav", toneFixture(frames: 48_000, channels: 1, sampleRate: 48_000).bytes(order: .little))
        // A FLAC picture block (RFC 7845 section 5.2 carries it base64 in METADATA_BLOCK_PICTURE).
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        let image = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }
        let mime = Array("image/jpeg".utf8)
        let block = be32(3) + be32(mime.count) + mime + be32(0) + be32(0) + be32(0) + be32(0) + be32(0) + be32(image.count) + image
        let meta = folder.write(
            "pic.meta", Array(";FFMETADATA1\ntitle=PicTitle\nMETADATA_BLOCK_PICTURE=\(Data(block).base64EncodedString())\n".utf8))
        let ogg = folder.file("pic.opus")
        let made = try runMerged(
            try #require(ffmpeg),
            ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-i", meta, "-map_metadata", "1", "-c:a", "libopus", ogg])
        try #require(made.status == 0, "\(made.text)")
        try #require((readFile(ogg)?.count ?? 0) > 200_000, "the picture is in the file")
        var keep = try Self.options(nil)
        try FormatRequest(parsing: "0").apply(to: &keep)
        let (moved, _) = try Self.convert(ogg, to: "moved.caf", in: folder, options: keep)
        #expect(moved.status == .converted && moved.samples == .opusMoved && moved.frames == 48_000, "\(moved.reason ?? "")")
        let (decoded, _) = try Self.convert(ogg, to: "decoded.caf", in: folder, options: try Self.options(nil))
        #expect(decoded.status == .converted && decoded.frames == 48_000, "\(decoded.reason ?? "")")
    }

    @Test(
        "Ogg Opus at 16 kHz input is decoded at 48 kHz (the granule rate), exact length there",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func oggInputRate() throws {
        let folder = TempDirectory()
        let ogg = try Self.oggOpus(frames: 16_000, channels: 1, rate: 16_000, in: folder)
        let (result, _) = try Self.convert(ogg, to: "d.caf", in: folder, options: try Self.options(nil))
        #expect(result.status == .converted && result.frames == 48_000 && result.sampleRate == 48_000, "\(result.reason ?? "")")
    }

    @Test("chained and multistream Ogg Opus are refused with a sentence", .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func oggRefusals() throws {
        let folder = TempDirectory()
        let one = try Self.oggOpus(frames: 9600, channels: 1, rate: 48_000, in: folder, name: "a.opus")
        let two = try Self.oggOpus(frames: 9600, channels: 1, rate: 48_000, in: folder, name: "b.opus")
        let chained = folder.write("chained.opus", try #require(readFile(one)) + (try #require(readFile(two))))
        let (result, _) = try Self.convert(chained, to: "c.caf", in: folder, options: try Self.options(nil))
        #expect(result.status == .failed && result.reason?.contains("Opus") == true, "\(result.reason ?? "")")
        let wav = folder.write("six.wav", toneFixture(frames: 9600, channels: 6, sampleRate: 48_000).bytes(order: .little))
        let six = folder.file("six.opus")
        let made = try runMerged(
            try #require(ffmpeg), ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libopus", "-b:a", "256k", six])
        try #require(made.status == 0, "\(made.text)")
        let (multi, _) = try Self.convert(six, to: "m.caf", in: folder, options: try Self.options(nil))
        #expect(multi.status == .failed && multi.reason?.contains("mapping family 1") == true, "\(multi.reason ?? "")")
    }

    @Test(
        "-d 0 moves an Ogg Opus source's packets, --reencode encodes them again; on a WAV -d 0 is no -d",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func keepCodec() throws {
        let folder = TempDirectory()
        let ogg = try Self.oggOpus(frames: 48_000 + 100, channels: 2, rate: 48_000, in: folder)
        var keep = try Self.options(nil)
        try FormatRequest(parsing: "0").apply(to: &keep)
        #expect(keep.keepsSourceCodec && keep.dataFormat == nil)
        let (moved, file) = try Self.convert(ogg, to: "moved.caf", in: folder, options: keep)
        #expect(
            moved.samples == .opusMoved && moved.frames == 48_100 && file?.audioDescription.formatID == .opus,
            "\(moved.reason ?? "")")
        var forced = try Self.options("opus")
        forced.reencode = true
        let (encoded, _) = try Self.convert(ogg, to: "encoded.caf", in: folder, options: forced)
        #expect(encoded.samples == .opusEncoded && encoded.frames == 48_100, "\(encoded.reason ?? "")")
        let (plain, _) = try Self.convert(ogg, to: "plain.caf", in: folder, options: try Self.options(nil))
        #expect(plain.samples == .opusDecoded)
        let wav = folder.write("w.wav", toneFixture(frames: 4800, channels: 1, sampleRate: 44_100).bytes(order: .little))
        let (kept, keptFile) = try Self.convert(wav, to: "w.caf", in: folder, options: keep)
        #expect(
            kept.status == .converted && keptFile?.audioDescription.formatID == .lpcm
                && keptFile?.audioDescription.bitsPerChannel == 16)
    }

    @Test(
        "verify --against an Opus CAF source checks outputs at another rate or channel count against it transformed as convert does",
        arguments: ["LEI16@22050", "LEI16", "opus@48000", "aac@48000"])
    func verifyAgainstTransformedOpus(format: String) throws {
        let folder = TempDirectory()
        let wav = folder.write("v.wav", toneFixture(frames: 24_000, channels: 1, sampleRate: 24_000).bytes(order: .little))
        var opus = try Self.options(nil)
        try FormatRequest(parsing: "opus@24000").apply(to: &opus)
        let (encoded, _) = try Self.convert(wav, to: "src.caf", in: folder, options: opus)
        try #require(encoded.status == .converted, "\(encoded.reason ?? "")")
        let source = folder.file("src.caf")
        var options = try Self.options(nil)
        try FormatRequest(parsing: format).apply(to: &options)
        if format == "LEI16" { options.channels = 2 }
        let (made, _) = try Self.convert(source, to: "out.caf", in: folder, options: options)
        try #require(made.status == .converted, "\(format): \(made.reason ?? "")")
        let path = folder.file("out.caf")
        let (failures, proof) = Verifier.compare(
            try CAFFile(reading: try FileByteSource(path: path)), byteSource: try FileByteSource(path: path), path: path,
            with: source)
        #expect(failures.isEmpty, "\(format): \(failures)")
        #expect(proof?.sourceDecoder.hasPrefix("libopus") == true, "\(format): \(String(describing: proof))")
    }

    @Test(
        "verify --against a source of another length says which count is exact: the side that ended first, the other 'or more'",
        arguments: [200_000, 10_000])
    func verifyAgainstLength(sourceFrames: Int) throws {
        let folder = TempDirectory()
        let wav = folder.write("v.wav", toneFixture(frames: 48_000, channels: 1, sampleRate: 48_000).bytes(order: .little))
        let (encoded, _) = try Self.convert(wav, to: "v.caf", in: folder, options: try Self.options("opus"))
        try #require(encoded.status == .converted, "\(encoded.reason ?? "")")
        // The source an Opus CAF too: a decoded source is counted only as far as it is read.
        let otherWAV = folder.write(
            "o.wav", toneFixture(frames: sourceFrames, channels: 1, sampleRate: 48_000).bytes(order: .little))
        let (otherMade, _) = try Self.convert(otherWAV, to: "o.caf", in: folder, options: try Self.options("opus"))
        try #require(otherMade.status == .converted, "\(otherMade.reason ?? "")")
        let other = folder.file("o.caf")
        let path = folder.file("v.caf")
        let (failures, _) = Verifier.compare(
            try CAFFile(reading: try FileByteSource(path: path)), byteSource: try FileByteSource(path: path), path: path,
            with: other)
        let failure = try #require(failures.first { $0.code == "against-frames" }, "\(failures)")
        if sourceFrames > 48_000 {
            #expect(failure.found.hasPrefix("48000 frames after") && failure.expected.contains("frames or more as in"), "\(failure)")
        } else {
            #expect(failure.expected.hasPrefix("10000 frames as in") && failure.found.contains("frames or more after"), "\(failure)")
        }
    }

    @Test("verify --against compares an Opus output with its source (length, lag, SNR), and finds a shifted priming")
    func verifyAgainst() throws {
        let folder = TempDirectory()
        let wav = folder.write("v.wav", toneFixture(frames: 48_000, channels: 1, sampleRate: 48_000).bytes(order: .little))
        let (encoded, _) = try Self.convert(wav, to: "v.caf", in: folder, options: try Self.options("opus"))
        try #require(encoded.status == .converted, "\(encoded.reason ?? "")")
        let path = folder.file("v.caf")
        let (failures, proof) = Verifier.compare(
            try CAFFile(reading: try FileByteSource(path: path)), byteSource: try FileByteSource(path: path), path: path,
            with: wav)
        #expect(failures.isEmpty, "\(failures)")
        #expect(
            proof?.rule == "opus" && proof?.peakLag == 0 && proof?.outputDecoder?.hasPrefix("libopus") == true,
            "\(String(describing: proof))")
        // The priming declared 0 (ffmpeg's mistake): the decoded audio is late against the source.
        var bytes = try #require(readFile(path))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let pakt = try #require(file.chunks.first { $0.type == .pakt })
        let at = Int(pakt.bodyOffset) + 16
        bytes.replaceSubrange(at..<at + 4, with: [0, 0, 0, 0])
        let remainderAt = at + 4
        bytes.replaceSubrange(remainderAt..<remainderAt + 4, with: [0, 0, 0, 0])
        let shifted = folder.write("shifted.caf", bytes)
        let (late, _) = Verifier.compare(
            try CAFFile(reading: try FileByteSource(path: shifted)), byteSource: try FileByteSource(path: shifted), path: shifted,
            with: wav)
        #expect(!late.isEmpty)
    }
}

import BinaryIO
import Foundation
import TestSupport
import Testing

@testable import CAFKit

/// Opus in CAF: Apple's cookie read from Apple's file, the layout cafconv writes, and the rules
/// that catch ffmpeg's lengths and a `kuki` that disagrees with `desc`.
@Suite("Opus CAF")
struct OpusCAFTests {
    static let appleFile: String = {
        URL(fileURLWithPath: RepositoryPaths.root).deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/apple-opus/jt274_ogg_caf_converter__test.caf").standardizedFileURL.path
    }()
    static let applePresent = FileManager.default.fileExists(atPath: appleFile)

    static func opusDesc(rate: Double = 48_000, framesPerPacket: UInt32 = 960, channels: UInt32 = 1) -> AudioDescription {
        AudioDescription(
            sampleRate: rate, formatID: .opus, formatFlags: 0, bytesPerPacket: 0, framesPerPacket: framesPerPacket,
            channelsPerFrame: channels, bitsPerChannel: 0)
    }

    static func pakt(packets: Int, valid: Int64, priming: Int32, remainder: Int32) -> CAFChunk {
        .packetTable(
            PacketTable(
                header: PacketTableHeader(
                    numberPackets: Int64(packets), numberValidFrames: valid, primingFrames: priming,
                    remainderFrames: remainder),
                entries: (0..<packets).map { _ in PacketTable.Entry(byteSize: 4) }))
    }

    @Test("the 28-byte kuki reads as application, rate, frame size, bit rate, channels and two zeros")
    func cookieFields() throws {
        let bytes: [UInt8] = [
            0, 0, 8, 0, 0, 0, 0x5d, 0xc0, 0, 0, 1, 0xe0, 0xff, 0xff, 0xfc, 0x18, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        let cookie = try OpusCookie(parsing: bytes)
        #expect(cookie.application == 2048)
        #expect(cookie.applicationName == "voip")
        #expect(cookie.sampleRate == 24_000)
        #expect(cookie.framesPerPacket == 480)
        #expect(cookie.bitRate == OpusCookie.automaticBitRate)
        #expect(cookie.channels == 1)
        #expect(cookie.bytes == bytes)
        #expect(throws: OpusFormatError.self) { try OpusCookie(parsing: Array(bytes.prefix(27))) }
    }

    @Test("Apple's file: its kuki is read as the issue says and it breaks no rule", .enabled(if: applePresent, "../shared/corpus/apple-opus is absent"))
    func appleReference() throws {
        let source = try FileByteSource(path: Self.appleFile)
        let document = try CAFDocument(reading: source)
        #expect(document.file.audioDescription.formatID == .opus)
        #expect(document.file.audioOffset == 4096)
        #expect(document.file.editCount == 1)
        let header = try #require(document.file.packetTableHeader)
        #expect(header.numberPackets == 151 && header.numberValidFrames == 72_000)
        #expect(header.primingFrames == 156 && header.remainderFrames == 324)
        let kuki = try #require(
            document.contents.chunks.compactMap { chunk -> MagicCookie? in
                if case .magicCookie(let cookie) = chunk { return cookie }
                return nil
            }.first)
        #expect(try OpusCookie(parsing: kuki.bytes) == OpusCookie(application: 2048, sampleRate: 24_000, framesPerPacket: 480, bitRate: -1000, channels: 1))
        #expect(CAFValidator.validate(document).isEmpty)
    }

    @Test("opusLayout lays out desc, kuki, chan, pakt, free and data with the audio at 4096, as Apple does")
    func layout() throws {
        var table: [UInt8] = []
        let sizes = [70, 300, 2]
        for size in sizes { PacketTable.appendVariableLength(UInt64(size), to: &table) }
        let cookie = OpusCookie(application: 2048, sampleRate: 24_000, framesPerPacket: 480, bitRate: -1000, channels: 1)
        let header = PacketTableHeader(numberPackets: 3, numberValidFrames: 1000, primingFrames: 156, remainderFrames: 284)
        let audio = [UInt8](repeating: 7, count: sizes.reduce(0, +))
        let layout = CAFWriter.opusLayout(
            sampleRate: 24_000, channels: 1, framesPerPacket: 480, cookie: cookie, packetTable: header,
            tableBytes: table.count, audioBytes: UInt64(audio.count))
        let bytes = layout.before + table + layout.after + audio
        let document = try read(bytes)
        #expect(document.file.chunks.map(\.type) == [.desc, .kuki, .chan, .pakt, .free, .data])
        #expect(document.file.audioOffset == 4096)
        #expect(document.file.editCount == 1)
        #expect(document.file.audioDescription == Self.opusDesc(rate: 24_000, framesPerPacket: 480))
        #expect(CAFValidator.validate(document).isEmpty)
        var reader = try CAFPacketReader(file: document.file, source: MemoryByteSource(bytes))
        var found: [Int] = []
        while let packet = try reader.next() { found.append(packet.size) }
        #expect(found == sizes)
    }

    @Test("opus-priming: no kuki, priming 0 and valid frames = packets x frames per packet is ffmpeg's signature; with a kuki it is not")
    func ffmpegSignature() throws {
        let ffmpeg = try read(caf([.description(Self.opusDesc()), Self.pakt(packets: 51, valid: 48_960, priming: 0, remainder: 0), data(204)]))
        let findings = CAFValidator.validate(ffmpeg)
        #expect(findings.map(\.code) == ["opus-priming"])
        #expect(findings.first?.found.contains("48960 valid frames, its 51 packets x the 960 frames per packet") == true)
        #expect(findings.first?.expected.contains("cafconv convert") == true)
        #expect(CAFValidator.validate(ffmpeg.file).map(\.code) == ["opus-priming"])
        // With a kuki (Apple's and cafconv's always have one), the same accounting is a stream of
        // pre-skip 0 and no end trimming, not ffmpeg's layout.
        let cookie = OpusCookie(application: 2049, sampleRate: 48_000, framesPerPacket: 960, bitRate: 64_000, channels: 1)
        let untrimmed = try read(
            caf([
                .description(Self.opusDesc()), .magicCookie(MagicCookie(bytes: cookie.bytes)),
                Self.pakt(packets: 51, valid: 48_960, priming: 0, remainder: 0), data(204),
            ]))
        #expect(CAFValidator.validate(untrimmed).isEmpty)
        #expect(CAFValidator.validate(untrimmed.file).isEmpty)
        // cafconv's (and Apple's) accounting of the same packets passes.
        let right = try read(caf([.description(Self.opusDesc()), Self.pakt(packets: 51, valid: 48_000, priming: 312, remainder: 648), data(204)]))
        #expect(CAFValidator.validate(right).isEmpty)
        // Not Opus: no finding (AAC with priming 0 is another story).
        var aac = Self.opusDesc()
        aac.formatID = .aac
        aac.framesPerPacket = 1024
        let other = try read(caf([.description(aac), Self.pakt(packets: 2, valid: 2048, priming: 0, remainder: 0), data(8)]))
        #expect(CAFValidator.validate(other).isEmpty)
    }

    @Test("opus-kuki: a cookie of the wrong size or disagreeing with desc is named")
    func cookieRules() throws {
        let good = OpusCookie(application: 2049, sampleRate: 48_000, framesPerPacket: 960, bitRate: 64_000, channels: 1)
        let pakt = Self.pakt(packets: 2, valid: 1000, priming: 312, remainder: 608)
        let ok = try read(caf([.description(Self.opusDesc()), .magicCookie(MagicCookie(bytes: good.bytes)), pakt, data(8)]))
        #expect(CAFValidator.validate(ok).isEmpty)
        var wrong = good
        wrong.channels = 2
        wrong.sampleRate = 24_000
        let mismatched = try read(caf([.description(Self.opusDesc()), .magicCookie(MagicCookie(bytes: wrong.bytes)), pakt, data(8)]))
        let findings = CAFValidator.validate(mismatched)
        #expect(findings.map(\.code) == ["opus-kuki", "opus-kuki"])
        #expect(findings.map(\.found) == ["24000", "2"])
        let short = try read(caf([.description(Self.opusDesc()), .magicCookie(MagicCookie(bytes: [1, 2, 3])), pakt, data(8)]))
        #expect(CAFValidator.validate(short).map(\.code) == ["opus-kuki"])
    }

    @Test("the real corpus's ffmpeg Opus CAF is flagged", .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func realFFmpegFile() throws {
        let folder = try #require(RepositoryPaths.realCorpus)
        let document = try CAFDocument(reading: try FileByteSource(path: folder + "/kunstmusik_decodeAudioDataTest__test.caf"))
        #expect(CAFValidator.validate(document).map(\.code) == ["opus-priming"])
    }
}

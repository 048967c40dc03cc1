import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import Foundation
import Opus
import OutputFiles
import TestSupport
import Testing

@testable import Transcoding

private let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
private let appleOpus = "../shared/corpus/apple-opus/jt274_ogg_caf_converter__test.caf"

/// An Opus CAF asked `-d opus` or `-d 0` at its own rate and channels has its packets moved, not
/// decoded and encoded again: the packets read back by CAFKit are byte-identical to the
/// source's, the `pakt` accounting and the `kuki` are the source's, the layout Apple's (audio at
/// 4096). `--reencode` or another rate encodes; ffmpeg's Opus CAFs (untrusted `pakt`) are encoded.
@Suite("Opus CAF to Opus CAF, packets moved", .enabled(if: (try? LibOpus.load()) != nil, "libopus is absent"))
struct OpusCAFMoveTests {
    static func options(_ format: String?) throws -> ConversionOptions {
        var options = ConversionOptions(dataFormat: nil, jobs: 1)
        if let format { try FormatRequest(parsing: format).apply(to: &options) }
        return options
    }

    static func convert(_ input: String, to name: String, in folder: TempDirectory, options: ConversionOptions) throws
        -> FileResult
    {
        try #require(Engine.convert(inputs: [input], output: folder.file(name), options: options).files.first)
    }

    /// The file's chunk types in order, its packets' bytes, and its `pakt` header and `kuki`.
    static func read(_ path: String) throws -> (
        types: [String], packets: [[UInt8]], header: PacketTableHeader, kuki: [UInt8], file: CAFFile
    ) {
        let source = try FileByteSource(path: path)
        let file = try CAFFile(reading: source)
        var reader = try CAFPacketReader(file: file, source: source)
        var packets: [[UInt8]] = []
        while let packet = try reader.next() { packets.append(try source.readExactly(at: packet.offset, count: packet.size)) }
        let kuki = try #require(file.chunks.first { $0.type == .kuki })
        return (
            file.chunks.map { "\($0.type)" }, packets, try #require(file.packetTableHeader),
            try source.readExactly(at: kuki.bodyOffset, count: Int(kuki.size)), file
        )
    }

    @Test("a cafconv Opus CAF at 24 kHz: -d opus and -d 0 move its packets byte for byte; --reencode and @48000 encode")
    func generated() throws {
        let folder = TempDirectory()
        let wav = folder.write("n.wav", toneFixture(frames: 24_000 + 77, channels: 2, sampleRate: 24_000).bytes(order: .little))
        let made = try Self.convert(wav, to: "n.caf", in: folder, options: try Self.options("opus"))
        try #require(made.status == .converted && made.samples == .opusEncoded, "\(made.reason ?? "")")
        let source = try Self.read(folder.file("n.caf"))
        for format in ["opus", "0"] {
            let moved = try Self.convert(
                folder.file("n.caf"), to: "m\(format).caf", in: folder, options: try Self.options(format))
            #expect(moved.status == .converted && moved.samples == .opusMoved, "\(moved.reason ?? "")")
            #expect(moved.frames == 24_077 && moved.sampleRate == 24_000 && moved.proof?.rule == "opus-packets-moved")
            let out = try Self.read(folder.file("m\(format).caf"))
            #expect(out.packets == source.packets && out.kuki == source.kuki)
            #expect(out.header == source.header && out.file.audioOffset == 4096)
            #expect(out.types == ["desc", "kuki", "chan", "pakt", "free", "data"], "\(out.types)")
        }
        var forced = try Self.options("opus")
        forced.reencode = true
        let encoded = try Self.convert(folder.file("n.caf"), to: "e.caf", in: folder, options: forced)
        #expect(encoded.samples == .opusEncoded && encoded.frames == 24_077, "\(encoded.reason ?? "")")
        let resampled = try Self.convert(folder.file("n.caf"), to: "r.caf", in: folder, options: try Self.options("opus@48000"))
        #expect(resampled.samples == .opusEncoded && resampled.sampleRate == 48_000, "\(resampled.reason ?? "")")
    }

    @Test("the source's chan is carried when it describes its channels (headphones), else the stereo tag is written")
    func channelLayout() throws {
        let folder = TempDirectory()
        let wav = folder.write("h.wav", toneFixture(frames: 4800, channels: 2, sampleRate: 48_000).bytes(order: .little))
        try #require(try Self.convert(wav, to: "h.caf", in: folder, options: try Self.options("opus")).status == .converted)
        var bytes = try #require(readFile(folder.file("h.caf")))
        let chan = try #require(try CAFFile(reading: MemoryByteSource(bytes)).chunks.first { $0.type == .chan })
        let at = Int(chan.bodyOffset)
        // kAudioChannelLayoutTag_StereoHeadphones (102 << 16 | 2), then a mono tag on 2 channels.
        for (tag, kept) in [(UInt32(102 << 16 | 2), UInt32(102 << 16 | 2)), (UInt32(100 << 16 | 1), UInt32(101 << 16 | 2))] {
            bytes.replaceSubrange(at..<at + 4, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: tag >> $0) })
            let source = folder.write("t\(tag).caf", bytes)
            let moved = try Self.convert(source, to: "m\(tag).caf", in: folder, options: try Self.options("0"))
            #expect(moved.samples == .opusMoved, "\(moved.reason ?? "")")
            let document = try CAFDocument(reading: try FileByteSource(path: folder.file("m\(tag).caf")))
            let layouts = document.contents.chunks.compactMap { if case .channelLayout(let layout) = $0 { layout } else { nil } }
            #expect(layouts.map(\.tag) == [kept], "\(layouts)")
        }
    }

    @Test(
        "Apple's Opus CAF moved: its packets, kuki, pakt (151, 72000, 156, 324) and info, Apple's chunk order, audio at 4096",
        .enabled(if: FileManager.default.fileExists(atPath: appleOpus), "the Apple Opus corpus is absent"))
    func apple() throws {
        let folder = TempDirectory()
        let result = try Self.convert(appleOpus, to: "a.caf", in: folder, options: try Self.options("opus"))
        #expect(result.status == .converted && result.samples == .opusMoved && result.frames == 72_000, "\(result.reason ?? "")")
        let source = try Self.read(appleOpus)
        let out = try Self.read(folder.file("a.caf"))
        #expect(out.packets == source.packets && out.kuki == source.kuki && out.header == source.header)
        #expect(out.header.numberPackets == 151 && out.header.primingFrames == 156 && out.header.remainderFrames == 324)
        #expect(
            out.types == source.types && out.types == ["desc", "kuki", "chan", "info", "pakt", "free", "data"], "\(out.types)")
        #expect(out.file.audioOffset == 4096 && out.file.audioDescription == source.file.audioDescription)
        var stripped = try Self.options("0")
        stripped.stripMetadata = true
        let bare = try Self.convert(appleOpus, to: "b.caf", in: folder, options: stripped)
        let bareTypes = try Self.read(folder.file("b.caf")).types
        #expect(bare.samples == .opusMoved && !bareTypes.contains("info"))
    }

    @Test(
        "ffmpeg's Opus CAF (untrusted pakt, no kuki) is not moved: -d opus encodes it again, with the warning",
        .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func ffmpegEncoded() throws {
        let folder = TempDirectory()
        let caf = try OpusSourceTests.ffmpegOpusCAF(in: folder)
        let result = try Self.convert(caf, to: "out.caf", in: folder, options: try Self.options("opus"))
        #expect(result.status == .converted && result.samples == .opusEncoded, "\(result.reason ?? "")")
        #expect(result.warnings.contains { if case .source(.opusFrameCountUntrusted) = $0 { true } else { false } })
    }

    @Test("the move's proof fails when a packet byte or the kuki differs from the source's")
    func proofCatchesChange() throws {
        let folder = TempDirectory()
        let wav = folder.write("p.wav", toneFixture(frames: 9600, channels: 1, sampleRate: 48_000).bytes(order: .little))
        try #require(try Self.convert(wav, to: "p.caf", in: folder, options: try Self.options("opus")).status == .converted)
        let path = folder.file("p.caf")
        let source = OpusSourceRoute.Source(
            file: try CAFFile(reading: try FileByteSource(path: path)), input: try FileByteSource(path: path))
        let out = folder.file("moved.caf")
        let descriptor = open(out, O_CREAT | O_RDWR | O_TRUNC, 0o644)
        let moved = try #require(
            try OpusRemux.remux(source, to: descriptor, folder: try FileSystem.Folder.open(folder.path)) { false })
        close(descriptor)
        #expect(try OpusRemux.prove(out, source: source, moved: moved) { false }?.extent == "every-packet")
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        var bytes = good
        bytes[bytes.count - 3] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: out))
        #expect(
            throws: ConversionError.proof(
                .packetsNotMoved(codec: "Opus", reason: "packet \(moved.packets - 1) differs from the source's"))
        ) {
            try OpusRemux.prove(out, source: source, moved: moved) { false }
        }
        let kuki = try #require(try CAFFile(reading: MemoryByteSource(good)).chunks.first { $0.type == .kuki })
        bytes = good
        bytes[Int(kuki.bodyOffset) + 27] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: out))
        #expect(
            throws: ConversionError.proof(.packetsNotMoved(codec: "Opus", reason: "its 'kuki' is not the source's Opus cookie"))
        ) {
            try OpusRemux.prove(out, source: source, moved: moved) { false }
        }
    }
}

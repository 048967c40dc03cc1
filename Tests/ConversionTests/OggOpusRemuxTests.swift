import BinaryIO
import CAFKit
import ConversionModel
import Foundation
import Opus
import OutputFiles
import TestSupport
import Testing

@testable import Transcoding

/// Ogg Opus moved into CAF without decoding. The proof needs no decoding: the packets read back
/// from the CAF by CAFKit are byte-identical to those ffmpeg's Ogg demuxer (a reader that is not
/// cafconv's) finds in the source, and the frame accounting equals the source's exactly. Then,
/// as a check of the accounting, the CAF decoded by libopus gives exactly the source's frames.
@Suite("Ogg Opus to CAF, packets moved")
struct OggOpusRemuxTests {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let ffprobe = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let ready: Bool = {
        guard (try? LibOpus.load()) != nil, let ffmpeg, ffprobe != nil,
            let result = try? runMerged(ffmpeg, ["-hide_banner", "-encoders"])
        else { return false }
        return result.text.contains("libopus")
    }()

    /// An Ogg Opus file of exactly `frames` frames, made by ffmpeg's libopus encoder from a WAV.
    static func oggOpus(frames: Int, channels: Int, rate: Int, in folder: TempDirectory) throws -> String {
        let wav = folder.write(
            "source.wav", WAVFixture.signal(.int16, channels: channels, frames: frames, sampleRate: rate).bytes)
        let ogg = folder.file("source.opus")
        let made = try runMerged(
            try #require(ffmpeg), ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libopus", "-b:a", "64k", ogg])
        try #require(made.status == 0, "\(made.text)")
        return ogg
    }

    static func remux(_ path: String, in folder: TempDirectory) throws -> (String, OpusRemux.Remuxed) {
        let out = folder.file("remuxed.caf")
        let descriptor = open(out, O_CREAT | O_RDWR | O_TRUNC, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let remuxed = try #require(
            try OpusRemux.remux(
                Self.source(path), to: descriptor, folder: try FileSystem.Folder.open(folder.path)
            ) { false })
        return (out, remuxed)
    }

    /// The Ogg Opus file at `path` as a source.
    static func source(_ path: String) throws -> OpusSourceRoute.Source {
        OpusSourceRoute.Source(file: nil, input: try FileByteSource(path: path))
    }

    @Test(
        "packets byte-identical to ffmpeg's demuxing, priming = pre-skip, valid frames = the source's",
        .enabled(if: ready, "libopus, ffmpeg with libopus or ffprobe is absent"),
        arguments: [(48_000, 2, 48_000 + 777), (44_100, 1, 44_100), (16_000, 1, 1234)])
    func remuxExact(rate: Int, channels: Int, frames: Int) throws {
        let folder = TempDirectory()
        let ogg = try Self.oggOpus(frames: frames, channels: channels, rate: rate, in: folder)
        let (caf, remuxed) = try Self.remux(ogg, in: folder)
        // ffmpeg's Ogg demuxer, copying packets out: their sizes and their bytes in order.
        let probe = try runMerged(
            try #require(Self.ffprobe),
            ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size", "-of", "default=nw=1:nk=1", ogg])
        let sizes = probe.lines.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let raw = folder.file("packets.bin")
        let copied = try runMerged(
            try #require(Self.ffmpeg),
            ["-hide_banner", "-loglevel", "error", "-y", "-i", ogg, "-map", "0:a", "-c", "copy", "-f", "data", raw])
        #expect(copied.status == 0, "\(copied.text)")
        let expectedBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        // The CAF's packets, read back by CAFKit.
        let source = try FileByteSource(path: caf)
        let document = try CAFDocument(reading: source)
        #expect(CAFValidator.validate(document).isEmpty)
        var reader = try CAFPacketReader(file: document.file, source: source)
        var cafSizes: [Int] = []
        var cafBytes: [UInt8] = []
        while let packet = try reader.next() {
            cafSizes.append(packet.size)
            cafBytes += try source.readExactly(at: packet.offset, count: packet.size)
        }
        #expect(!sizes.isEmpty)
        // The proof convert runs passes, and names what it compared.
        let proof = try #require(try OpusRemux.prove(caf, source: try Self.source(ogg), moved: remuxed) { false })
        #expect(proof.comparison == "exact" && proof.extent == "every-packet" && proof.primingFrames == 312)
        #expect(cafSizes == sizes)
        #expect(cafBytes == expectedBytes)
        // The accounting: 48 kHz (the granule rate), the pre-skip libopus's 312, exactly the
        // source's frames at 48 kHz (ffmpeg resamples other rates to 48 kHz before libopus).
        let header = try #require(document.file.packetTableHeader)
        let at48 = Int64(frames * 48_000 / rate)
        #expect(document.file.audioDescription.sampleRate == 48_000)
        #expect(header.primingFrames == 312 && remuxed.priming == 312)
        // Exact at 48 kHz; ffmpeg's resampler may round the length of other rates by a frame.
        #expect(abs(header.numberValidFrames - at48) <= (rate == 48_000 ? 0 : 1), "\(header.numberValidFrames) for \(at48)")
        #expect(
            Int64(header.primingFrames) + Int64(header.remainderFrames) + header.numberValidFrames == Int64(cafSizes.count) * 960)
        // Decoded by libopus through CAFKit's packets: exactly the valid frames.
        let decoder = try OpusFileDecoder(file: document.file, source: source)
        var buffer: [Float] = []
        var decoded: Int64 = 0
        while true {
            let got = try decoder.read(into: &buffer, frames: 4096)
            if got == 0 { break }
            decoded += Int64(got)
        }
        #expect(decoded == header.numberValidFrames)
        // ffmpeg decodes the Ogg file (pre-skip and end trimming applied) to the same length.
        let pcm = folder.file("ogg.f32")
        let decodedOgg = try runMerged(
            try #require(Self.ffmpeg),
            ["-hide_banner", "-loglevel", "error", "-y", "-i", ogg, "-f", "f32le", "-ar", "48000", pcm])
        #expect(decodedOgg.status == 0)
        let oggFrames = Int64((try Data(contentsOf: URL(fileURLWithPath: pcm))).count / 4 / channels)
        #expect(oggFrames == header.numberValidFrames)
    }

    @Test(
        "the move's proof fails when one byte of one packet differs",
        .enabled(if: ready, "libopus, ffmpeg with libopus or ffprobe is absent"))
    func proofCatchesChange() throws {
        let folder = TempDirectory()
        let ogg = try Self.oggOpus(frames: 9600, channels: 1, rate: 48_000, in: folder)
        let (caf, remuxed) = try Self.remux(ogg, in: folder)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: caf)))
        bytes[bytes.count - 3] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: caf))
        #expect(
            throws: ConversionError.proof(
                .packetsNotMoved(codec: "Opus", reason: "packet \(remuxed.packets - 1) differs from the source's"))
        ) {
            try OpusRemux.prove(caf, source: try Self.source(ogg), moved: remuxed) { false }
        }
    }

    @Test(
        "10 ms packets move with 480 frames per packet in the desc, and decode to exactly the source's frames",
        .enabled(if: ready, "libopus, ffmpeg with libopus or ffprobe is absent"))
    func shortPackets() throws {
        let folder = TempDirectory()
        let wav = folder.write("s.wav", WAVFixture.signal(.int16, channels: 1, frames: 48_000, sampleRate: 48_000).bytes)
        let ogg = folder.file("ten.opus")
        let made = try runMerged(
            try #require(Self.ffmpeg),
            ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libopus", "-frame_duration", "10", ogg])
        try #require(made.status == 0, "\(made.text)")
        let (caf, remuxed) = try Self.remux(ogg, in: folder)
        #expect(try OpusRemux.prove(caf, source: try Self.source(ogg), moved: remuxed) { false }?.extent == "every-packet")
        let source = try FileByteSource(path: caf)
        let file = try CAFFile(reading: source)
        #expect(file.audioDescription.framesPerPacket == 480 && file.packetTableHeader?.numberValidFrames == 48_000)
        let decoder = try OpusFileDecoder(file: file, source: source)
        var buffer: [Float] = []
        var decoded: Int64 = 0
        while case let got = try decoder.read(into: &buffer, frames: 4096), got > 0 { decoded += Int64(got) }
        #expect(decoded == 48_000)
    }

    @Test("a source that is not Ogg Opus is refused with a sentence")
    func refusesOthers() throws {
        let folder = TempDirectory()
        let wav = folder.write("x.opus", WAVFixture.signal(.int16, channels: 1, frames: 100, sampleRate: 8000).bytes)
        #expect(throws: ConversionError.self) { try Self.remux(wav, in: folder) }
    }
}

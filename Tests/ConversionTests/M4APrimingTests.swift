import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import Foundation
import TestSupport
import Testing

@testable import Transcoding

/// How an M4A's priming reaches the CAF's `pakt`, from files built by code: an ffmpeg M4A whose
/// edit list is patched to Apple's 2112 frames of priming, and one without an edit list given an
/// iTunes `iTunSMPB` tag (a `udta/meta/ilst/----` freeform atom appended to its `moov`).
@Suite("M4A priming: Apple's edit list and iTunSMPB")
struct M4APrimingTests {
    /// The boxes directly inside `bytes[start..<end]`: type, offset and size.
    static func boxes(_ bytes: [UInt8], from start: Int, to end: Int) -> [(type: String, offset: Int, size: Int)] {
        var found: [(String, Int, Int)] = []
        var at = start
        while at + 8 <= end {
            let size = Int(bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard size >= 8, at + size <= end else { break }
            found.append((String(decoding: bytes[at + 4..<at + 8], as: UTF8.self), at, size))
            at += size
        }
        return found
    }

    /// The first box of `type` along `path` of container boxes (`moov`, `trak`...).
    static func box(_ bytes: [UInt8], path: [String]) throws -> (offset: Int, size: Int) {
        var (start, end) = (0, bytes.count)
        var found: (offset: Int, size: Int) = (0, 0)
        for type in path {
            let box = try #require(boxes(bytes, from: start, to: end).first { $0.type == type }, "no \(type)")
            found = (box.offset, box.size)
            (start, end) = (box.offset + 8, box.offset + box.size)
        }
        return found
    }

    static func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    static func atom(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(8 + body.count) + Array(type.utf8) + body }

    /// Converts `path` to an AAC CAF (moved) and returns the report and its `pakt` header.
    static func moved(_ path: String, in folder: TempDirectory) throws -> (FileResult, PacketTableHeader) {
        let (result, caf) = try M4ASourceTests.run(path, try M4ASourceTests.options("aac"), in: folder, name: "moved.caf")
        try #require(result.status == .converted && result.samples == .aacMoved, "\(result.reason ?? "")")
        return (result, try #require(try M4ASourceTests.packets(caf).0.packetTableHeader))
    }

    @Test(
        "an edit list starting at media time 2112 (Apple's priming) gives pakt priming 2112, the edit's valid frames, the rest as remainder",
        .enabled(if: M4ASourceTests.ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func appleEditList() throws {
        let folder = TempDirectory()
        let m4a = try M4ASourceTests.source("in.m4a", frames: 48_000, channels: 1, rate: 48_000, in: folder)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: m4a)))
        let movieScale = try Self.box(bytes, path: ["moov", "mvhd"])
        try #require(bytes[movieScale.offset + 8] == 0, "mvhd version 0")
        let timescale = Int(bytes[movieScale.offset + 20..<movieScale.offset + 24].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let elst = try Self.box(bytes, path: ["moov", "trak", "edts", "elst"])
        try #require(bytes[elst.offset + 8] == 0 && bytes[elst.offset + 15] == 1, "elst version 0, one entry")
        // 46080 frames at 48 kHz = 960 ms, a whole number of the movie's ticks.
        let valid = 46_080
        try #require(valid * timescale % 48_000 == 0)
        bytes.replaceSubrange(elst.offset + 16..<elst.offset + 20, with: Self.be32(valid * timescale / 48_000))
        bytes.replaceSubrange(elst.offset + 20..<elst.offset + 24, with: Self.be32(2112))
        let patched = folder.write("apple.m4a", bytes)
        let (result, header) = try Self.moved(patched, in: folder)
        #expect(header.primingFrames == 2112 && header.numberValidFrames == Int64(valid), "\(header)")
        #expect(Int64(header.remainderFrames) == header.numberPackets * 1024 - 2112 - Int64(valid))
        #expect(!result.warnings.contains { if case .source(.aacPrimingUnknown) = $0 { true } else { false } })
        let (pcm, _) = try M4ASourceTests.run(patched, try M4ASourceTests.options("LEI16"), in: folder, name: "pcm.caf")
        #expect(pcm.status == .converted && pcm.frames == Int64(valid), "\(pcm.reason ?? "")")
    }

    @Test(
        "an MP4 without an edit list but with iTunSMPB: its priming and valid frames go into the pakt",
        .enabled(if: M4ASourceTests.ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func iTunSMPB() throws {
        let folder = TempDirectory()
        let m4a = try M4ASourceTests.source(
            "in.m4a", frames: 48_000, channels: 1, rate: 48_000, codec: ["-c:a", "aac", "-use_editlist", "0"], in: folder)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: m4a)))
        let top = Self.boxes(bytes, from: 0, to: bytes.count)
        // The moov is the file's last box: an atom appended to it shifts no sample offset.
        let moov = try #require(top.last)
        try #require(moov.type == "moov" && moov.offset + moov.size == bytes.count, "\(top)")
        let valid = 45_000
        let smpb = String(format: " 00000000 %08X %08X %016X 00000000 00000000", 2112, 0, valid)
        let freeform = Self.atom(
            "----",
            Self.atom("mean", [0, 0, 0, 0] + Array("com.apple.iTunes".utf8))
                + Self.atom("name", [0, 0, 0, 0] + Array("iTunSMPB".utf8))
                + Self.atom("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(smpb.utf8)))
        let handler = Self.atom(
            "hdlr", [UInt8](repeating: 0, count: 8) + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9))
        let udta = Self.atom("udta", Self.atom("meta", [0, 0, 0, 0] + handler + Self.atom("ilst", freeform)))
        bytes += udta
        bytes.replaceSubrange(moov.offset..<moov.offset + 4, with: Self.be32(moov.size + udta.count))
        let tagged = folder.write("smpb.m4a", bytes)
        let (result, header) = try Self.moved(tagged, in: folder)
        #expect(header.primingFrames == 2112 && header.numberValidFrames == Int64(valid), "\(header)")
        #expect(Int64(header.remainderFrames) == header.numberPackets * 1024 - 2112 - Int64(valid))
        #expect(!result.warnings.contains { if case .source(.aacPrimingUnknown) = $0 { true } else { false } })
    }

    @Test(
        "the valid frames end at the sample table's end when the edit list's duration, rounded to the movie's time scale, runs past it",
        .enabled(if: M4ASourceTests.ready, "ffmpeg, ffprobe or libavcodec is absent"),
        arguments: [(12_345, 44_100, [] as [String]), (7777, 22_050, ["-movie_timescale", "600"]), (48_000, 48_000, [])])
    func editEndPastSamples(frames: Int, rate: Int, muxer: [String]) throws {
        let folder = TempDirectory()
        let m4a = try M4ASourceTests.source(
            "odd.m4a", frames: frames, channels: 1, rate: rate, codec: ["-c:a", "aac"] + muxer, in: folder)
        let (result, header) = try Self.moved(m4a, in: folder)
        #expect(header.primingFrames == 1024 && header.numberValidFrames == Int64(frames), "\(header)")
        #expect(Int64(header.remainderFrames) == header.numberPackets * 1024 - 1024 - Int64(frames))
        #expect(result.frames == Int64(frames))
        let (pcm, _) = try M4ASourceTests.run(m4a, try M4ASourceTests.options("LEI16"), in: folder, name: "pcm.caf")
        #expect(pcm.status == .converted && pcm.frames == Int64(frames), "\(pcm.reason ?? "")")
    }

    @Test(
        "a fragmented MP4 (no edit list) ends where its fragments' durations end, as ffprobe says, not at its last packet's full 1024 frames",
        .enabled(if: M4ASourceTests.ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func fragmentedEnd() throws {
        let folder = TempDirectory()
        let mp4 = try M4ASourceTests.source(
            "frag.mp4", frames: 48_000, channels: 2, rate: 48_000,
            codec: ["-c:a", "aac", "-movflags", "frag_keyframe+empty_moov"], in: folder)
        let (result, header) = try Self.moved(mp4, in: folder)
        let stated = try M4ASourceTests.stated(mp4)
        #expect(header.numberValidFrames == Int64(stated) && result.frames == Int64(stated), "\(header), ffprobe \(stated)")
        #expect(header.numberValidFrames < header.numberPackets * 1024, "\(header)")
    }

    @Test(
        "a track header (mdhd) whose duration is wrong by far more than the edit's rounding does not cut the audio",
        .enabled(if: M4ASourceTests.ready, "ffmpeg, ffprobe or libavcodec is absent"), arguments: [0, 1000])
    func wrongTrackDuration(duration: Int) throws {
        let folder = TempDirectory()
        let m4a = try M4ASourceTests.source("in.m4a", frames: 48_000, channels: 1, rate: 48_000, in: folder)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: m4a)))
        let mdhd = try Self.box(bytes, path: ["moov", "trak", "mdia", "mdhd"])
        try #require(bytes[mdhd.offset + 8] == 0, "mdhd version 0")
        bytes.replaceSubrange(mdhd.offset + 24..<mdhd.offset + 28, with: Self.be32(duration))
        let patched = folder.write("patched.m4a", bytes)
        // Converted, not refused ("-1024 valid frames"): at most what the packets hold past the
        // priming, at least the source's frames.
        let (result, header) = try Self.moved(patched, in: folder)
        #expect((48_000...48_128).contains(header.numberValidFrames), "\(header) \(result.warnings)")
        #expect(result.frames == header.numberValidFrames)
    }
}

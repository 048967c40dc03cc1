import BinaryIO
import CAFKit
import Foundation
import TestSupport
import Testing

/// `.m4a` sources through the executable: `cafconv afconvert in.m4a out.caf` keeps the AAC
/// (moved, as afconvert keeps a source's format), and `info` describes M4A and ADTS files.
@Suite("M4A sources, end to end")
struct M4AEndToEndTests {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// An M4A (or ADTS, by `name`) of `frames` frames of stereo at 44100 Hz, made by ffmpeg.
    static func source(_ name: String, frames: Int, in folder: TempDirectory) throws -> String {
        let wav = folder.write("\(name).wav", WAVFixture.signal(.int16, channels: 2, frames: frames).bytes)
        let path = folder.file(name)
        let made = try runMerged(try #require(ffmpeg), ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "aac", path])
        try #require(made.status == 0, "\(made.text)")
        return path
    }

    @Test("cafconv afconvert in.m4a out.caf: an AAC CAF of the M4A's packets, priming and frames", .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func afconvertKeepsAAC() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 44_100, in: folder)
        let output = folder.file("out.caf")
        let result = try run(RepositoryPaths.executable, ["afconvert", m4a, output])
        #expect(result.status == 0, "\(result.stderr)")
        let file = try CAFFile(reading: MemoryByteSource(try #require(readFile(output))))
        #expect(file.audioDescription.formatID == .aac && file.audioDescription.channelsPerFrame == 2)
        let header = try #require(file.packetTableHeader)
        #expect(header.primingFrames == 1024 && header.numberValidFrames == 44_100)
        // `convert` says how: the packets were moved.
        let convert = try run(RepositoryPaths.executable, ["convert", "--json", "-d", "aac", m4a, "-o", folder.file("again.caf")])
        #expect(convert.status == 0 && convert.text.contains("\"aac-moved\""), "\(convert.text)\(convert.stderr)")
    }

    @Test("info on M4A and ADTS: container, format, channels, rate, frames, duration, bit rate", .enabled(if: ffmpeg != nil, "ffmpeg is absent"))
    func info() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 44_100, in: folder)
        let adts = try Self.source("in.aac", frames: 44_100, in: folder)
        let json = try run(RepositoryPaths.executable, ["info", "--json", m4a, adts])
        #expect(json.status == 0, "\(json.stderr)")
        for expected in [
            "\"container\":\"mp4\"", "\"container\":\"adts\"", "\"format\":\"aac\"", "\"channels\":2", "\"sampleRate\":44100",
            "\"frames\":44100", "\"primingFrames\":1024", "bitrate", "\"durationSeconds\":",
        ] {
            #expect(json.text.replacingOccurrences(of: " ", with: "").contains(expected), "\(expected) in \(json.text)")
        }
        let text = try run(RepositoryPaths.executable, ["info", m4a])
        #expect(text.status == 0 && text.text.contains("44100"), "\(text.text)\(text.stderr)")
    }
}

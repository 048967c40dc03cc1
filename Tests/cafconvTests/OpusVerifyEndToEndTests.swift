import Foundation
import TestSupport
import Testing

/// `cafconv verify` on Opus CAFs that ffmpeg writes: their `pakt` drops the encoder's pre-skip
/// (priming 0, valid frames = packets x 960), which verify must name, with the fix.
@Suite("cafconv verify, Opus CAFs from ffmpeg")
struct OpusVerifyEndToEndTests {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// Whether ffmpeg here has the libopus encoder (Debian's does; a minimal build may not).
    static let ffmpegHasLibopus: Bool = {
        guard let ffmpeg, let result = try? runMerged(ffmpeg, ["-hide_banner", "-encoders"]) else { return false }
        return result.text.contains("libopus")
    }()

    @Test(
        "verify fails an ffmpeg -c:a libopus CAF with opus-priming and says to convert it again",
        .enabled(if: ffmpegHasLibopus, "ffmpeg with the libopus encoder is absent"))
    func ffmpegOpusCAF() throws {
        let folder = TempDirectory()
        let caf = folder.file("ffmpeg.caf")
        let made = try runMerged(
            try #require(Self.ffmpeg),
            [
                "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1:sample_rate=48000",
                "-c:a", "libopus", "-b:a", "64k", caf,
            ])
        try #require(made.status == 0, "\(made.text)")
        let result = try run(RepositoryPaths.executable, ["verify", caf])
        #expect(result.status == 1)
        #expect(result.text.contains("opus-priming"), "\(result.text)")
        #expect(result.text.contains("48960 valid frames, its 51 packets x the 960 frames per packet"), "\(result.text)")
        #expect(result.text.contains("cafconv convert"), "\(result.text)")
    }

    static let appleFile: String = {
        URL(fileURLWithPath: RepositoryPaths.root).deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/apple-opus/jt274_ogg_caf_converter__test.caf").standardizedFileURL.path
    }()

    @Test(
        "info spells out Apple's Opus cookie, and verify passes Apple's file",
        .enabled(if: FileManager.default.fileExists(atPath: appleFile), "../shared/corpus/apple-opus is absent"))
    func appleInfo() throws {
        let info = try run(RepositoryPaths.executable, ["info", Self.appleFile])
        #expect(info.status == 0)
        #expect(
            info.text.contains("Opus header:     application voip, 24000 Hz, 480 frames per packet, bit rate auto, 1 channel"),
            "\(info.text)")
        #expect(info.text.contains("Packets:         151, priming 156, remainder 324"))
        let json = try run(RepositoryPaths.executable, ["info", "--json", Self.appleFile])
        #expect(json.text.contains("\"opusHeader\""))
        let verify = try run(RepositoryPaths.executable, ["verify", Self.appleFile])
        #expect(verify.status == 0, "\(verify.text)")
    }
}

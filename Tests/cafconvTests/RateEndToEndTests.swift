import BinaryIO
import CAFKit
import TestSupport
import Testing

@Suite("cafconv convert -d FMT@RATE -c N, end to end")
struct RateEndToEndTests {
    @Test("afconvert's most common line: -d LEI16@22050 -c 1; verify checks rate and channels; -v names the rule")
    func afconvertLine() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 44100, sampleRate: 44100).bytes)
        let output = folder.file("out.caf")
        let result = try run(RepositoryPaths.executable, ["convert", "-v", "-d", "LEI16@22050", "-c", "1", input, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.text.contains(
                "proof: exact after rule mixed 2→1; resampled 44100→22050 with soxr VHQ; rounded to 16 bits"),
            "\(result.text)")
        #expect(result.text.contains("1 ch, 22050 Hz, 22050 frames"), "\(result.text)")
        let file = try CAFFile(reading: MemoryByteSource(try #require(readFile(output))))
        #expect(file.audioDescription.sampleRate == 22050)
        #expect(file.audioDescription.channelsPerFrame == 1)
        #expect(file.audioDescription.byteOrder == .little)
        #expect(file.linearPCMFrames == 22050)
        let verified = try run(RepositoryPaths.executable, ["verify", "-d", "LEI16@22050", "--channels", "1", output])
        #expect(verified.status == 0, "\(verified.text)")
        let wrong = try run(RepositoryPaths.executable, ["verify", "-d", "0@44100", output])
        #expect(wrong.status == 1)
        // The same line again (a single-file run keeps no state: it converts) leaves the same
        // bytes in place; another rate does not.
        let bytes = readFile(output)
        let again = try run(RepositoryPaths.executable, ["convert", "-d", "LEI16@22050", "-c", "1", input, "-o", output])
        #expect(again.status == 0 && readFile(output) == bytes, "\(again.stderr)")
        let other = try run(RepositoryPaths.executable, ["convert", "-d", "0@16000", "-c", "1", input, "-o", output])
        #expect(other.stderr.contains("1 converted"), "\(other.stderr)")
    }

    @Test("convert --help documents the new options")
    func help() throws {
        let help = try run(RepositoryPaths.executable, ["convert", "--help"])
        for option in ["-c, --channels", "--mix", "--no-mix", "-r, --src-quality", "--dither", "0@RATE"] {
            #expect(help.text.contains(option), "\(option) missing from help")
        }
    }
}

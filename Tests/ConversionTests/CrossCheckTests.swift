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

/// An independent decoder: ffmpeg reads our CAF and must produce the source's samples.
@Suite("ffmpeg cross-check", .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed"))
struct CrossCheckTests {
    @Test(arguments: [WAVFixture.Encoding.unsigned8, .int16, .int24, .int32, .float32, .float64], [EndianChoice.little, .big])
    func ffmpegDecodesTheSameSamples(encoding: WAVFixture.Encoding, order: EndianChoice) throws {
        let fixture = WAVFixture.signal(encoding, channels: 2, frames: 777)
        let converted = try convert(fixture.bytes, options: ConversionOptions(endian: order, jobs: 1))
        let ffmpeg = try #require(which("ffmpeg"))
        let codec = encoding.isFloat ? "pcm_f64le" : "pcm_s32le"
        let result = try run(
            ffmpeg,
            [
                "-v", "error", "-i", converted.path, "-f", encoding.isFloat ? "f64le" : "s32le",
                "-c:a", codec, "-",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        if encoding.isFloat {
            let decoded = PCMLayout(bits: 64, isFloat: true, byteOrder: .little, channels: 2).decodeFloats(result.stdout[...])
            expectSameSamples(decoded, fixture.floats)
        } else {
            let decoded = PCMLayout(bits: 32, isFloat: false, byteOrder: .little, channels: 2).decodeIntegers(result.stdout[...])
            let shift = Int32(32 - encoding.bits)
            expectSameSamples(decoded, fixture.integers.map { $0 << shift })
        }
    }
}

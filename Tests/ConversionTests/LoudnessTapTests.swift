import Conversion
import ConversionModel
import Foundation
import Loudness
import TestSupport
import Testing
import Transcoding

/// `convert --loudness`: the output's re-measurement comes from the proof's own decoding of the
/// output (``OutputLoudnessTap``), not from decoding it once more.
@Suite(.enabled(if: LoudnessMeter.unavailableReason == nil, "libebur128 cannot be loaded (Debian libebur128-dev)"))
struct LoudnessTapTests {
    /// Two seconds of a stereo 1 kHz sine at -30 dBFS, 16-bit, 48 kHz.
    static let tone: [UInt8] = {
        let samples = (0..<96_000).flatMap { frame -> [Int32] in
            let value = Int32((pow(10, -30 / 20) * 32767 * sin(2 * Double.pi * 1000 * Double(frame) / 48_000)).rounded())
            return [value, value]
        }
        return WAVFixture(encoding: .int16, channels: 2, sampleRate: 48_000, integers: samples).bytes(order: .little)
    }()

    @Test(
        "a linear PCM output is re-measured from its proof's decoding (no second decoding); µ-law, whose proof has no tap, is decoded again"
    )
    func measuredFromTheProof() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", Self.tone)
        for (format, decodedAgain) in [("LEF32", 0), ("LEI16", 0), ("ulaw", 1)] {
            var options = ConversionOptions(jobs: 1)
            options.codecs = OutputCodecs.vocabulary
            options.dataFormat = try DataFormat(parsing: format)
            options.loudnessTarget = -18
            let before = LoudnessScan.outputsDecodedAgain.load(ordering: .relaxed)
            let report = Engine.convert(inputs: [input], output: folder.file("out-\(format).caf"), options: options)
            let file = try #require(report.files.first)
            #expect(file.status == .converted, "\(format): \(file.reason ?? "")")
            #expect(abs((file.loudness?.reached ?? 0) - -18) < 0.01, "\(format)")
            #expect(LoudnessScan.outputsDecodedAgain.load(ordering: .relaxed) - before == decodedAgain, "\(format)")
        }
    }
}

import Foundation
import TestSupport
import Testing

/// Noise (hiss, wind, rain) encoded lossily at the default bit rates: the codecs rebuild its
/// bands' energy rather than its waveform, so its SNR stays near 0 dB, below the floors; the
/// proof passes it by its energy envelope and says so in its rule.
@Suite("lossy noise proven by its energy envelope, end to end")
struct NoiseProofEndToEndTests {
    @Test("white noise to -d opus and -d aac at their default bit rates converts, the proof naming the envelope", arguments: ["opus", "aac"])
    func whiteNoise(format: String) throws {
        let folder = TempDirectory()
        let wav = folder.write(
            "noise.wav", LoudnessPlanEndToEndTests.noise(channels: 1, seconds: 1.3, amplitude: 0.5, seed: 9))
        let caf = folder.file("noise.caf")
        let result = try run(RepositoryPaths.executable, ["convert", "--json", "-d", format, wav, "-o", caf])
        #expect(result.status == 0, "\(format): \(result.stderr)")
        #expect(result.text.contains("noise-like: below the"), "\(format): \(result.text)")
        let verified = try run(RepositoryPaths.executable, ["verify", caf, "--against", wav])
        #expect(verified.status == 0, "\(format): \(verified.text)\(verified.stderr)")
    }
}

import Foundation
import TestSupport
import Testing

/// `convert --loudness`: the output lands on the target (or the capped level) whatever the job
/// does after the gain: a channel mix or a rate change (the gain is planned on what the encoder is
/// fed), the -70 LUFS gate moving with a large gain, a lossy encoder (the job is encoded again
/// with the measured error taken out), and the output's own rounding (a capped gain leaves room
/// for it, so that `verify --max-true-peak` at the same ceiling passes).
@Suite("convert --loudness lands on the target, end to end")
struct LoudnessPlanEndToEndTests {
    /// `seconds` of noise at 48 kHz, `channels` channels, each sample uniform in ±`amplitude`
    /// times `envelope(t)`; written as 32-bit float WAV.
    static func noise(
        channels: Int, seconds: Double, amplitude: Double, seed: UInt64, rate: Int = 48_000,
        envelope: (Double) -> Double = { _ in 1 }
    ) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        let frames = Int(seconds * Double(rate))
        var values: [Double] = []
        values.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            let level = amplitude * envelope(Double(frame) / Double(rate))
            for _ in 0..<channels { values.append(Double.random(in: -1...1, using: &random) * level) }
        }
        return WAVFixture(encoding: .float32, channels: channels, sampleRate: rate, floats: values).bytes(order: .little)
    }

    /// The integrated loudness `info --loudness --json` reads from `path`.
    static func loudness(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let result = try run(RepositoryPaths.executable, ["info", "--loudness", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [[String: Any]])
        let measured = try #require(array.first?["loudness"] as? [String: Any], "\(result.text)")
        return (try #require(measured["integratedLUFS"] as? Double), try #require(measured["truePeakDBTP"] as? Double))
    }

    /// Converts `wav` into `name` in `folder` with `--loudness target` and `options`, and expects
    /// the run to succeed and the output to read within `tolerance` LU of the target.
    static func expectReaches(
        _ target: Double, _ wav: String, options: [String], in folder: TempDirectory, name: String = "out.caf",
        tolerance: Double = 0.1
    ) throws {
        let caf = folder.file(name)
        let result = try run(RepositoryPaths.executable, ["convert", "--loudness", "\(target)"] + options + [wav, "-o", caf])
        #expect(result.status == 0, "\(options): \(result.stderr)")
        let measured = try loudness(caf)
        #expect(abs(measured.integrated - target) <= tolerance, "\(options): \(measured.integrated) LUFS")
    }

    @Test(
        "a mix to fewer or more channels and a lower rate: the output reaches the target",
        arguments: [
            (2, ["-c", "1"]), (1, ["-c", "2"]), (2, ["-c", "1", "--no-mix"]), (1, ["-d", "LEI16@8000"]),
            (2, ["-d", "LEF32@22050", "-c", "1"]),
        ])
    func transforms(channels: Int, options: [String]) throws {
        let folder = TempDirectory()
        // Uncorrelated channels: a mix to mono loses 3 dB of loudness; white noise loses its
        // upper bands at 8 kHz.
        let wav = folder.write("in.wav", Self.noise(channels: channels, seconds: 2, amplitude: 0.05, seed: 7))
        try Self.expectReaches(-16, wav, options: options, in: folder)
    }

    @Test("the true-peak ceiling holds after a rate change (the peaks are measured on what is encoded)")
    func ceilingAfterResampling() throws {
        let folder = TempDirectory()
        // A full-scale 997 Hz square wave: resampled to 44.1 kHz its true peak rises by ~0.3 dB.
        let values = (0..<96_000).flatMap { frame -> [Double] in
            let value = sin(2 * Double.pi * 997 * Double(frame) / 48_000) >= 0 ? 0.999 : -0.999
            return [value, value]
        }
        let wav = folder.write(
            "square.wav", WAVFixture(encoding: .float32, channels: 2, sampleRate: 48_000, floats: values).bytes(order: .little))
        let caf = folder.file("square.caf")
        let result = try run(
            RepositoryPaths.executable,
            ["convert", "--loudness", "0", "--true-peak", "-3", "-d", "LEF32@44100", wav, "-o", caf])
        #expect(result.status == 0, "\(result.stderr)")
        let verified = try run(RepositoryPaths.executable, ["verify", "--max-true-peak", "-3", caf])
        #expect(verified.status == 0, "\(verified.text)\(verified.stderr)")
    }

    @Test("a quiet hit whose tail fades under the gate, brought up 35 dB, reaches the target")
    func gateMoves() throws {
        let folder = TempDirectory()
        // About -53 LUFS, fading 20 dB a second for 6 s: after the gain, blocks that were under
        // the -70 LUFS gate count, and the output read 0.8 LU low with the gain planned once.
        let wav = folder.write(
            "tail.wav", Self.noise(channels: 2, seconds: 6, amplitude: 0.0055, seed: 3) { exp(-2.3 * $0) })
        try Self.expectReaches(-18, wav, options: ["-d", "LEI16"], in: folder)
    }

    @Test("Opus on white noise (its upper bands dropped by the encoder) reaches the target")
    func lossy() throws {
        let folder = TempDirectory()
        let wav = folder.write("noise.wav", Self.noise(channels: 1, seconds: 1.3, amplitude: 0.3, seed: 11, rate: 24_000))
        // libebur128 reads the output, which cafconv's own meter checked within 0.1 LU.
        try Self.expectReaches(-23, wav, options: ["-d", "opus"], in: folder, tolerance: 0.15)
    }

    @Test(
        "a capped gain leaves room for the output's rounding: verify --max-true-peak at the same ceiling passes",
        arguments: ["LEI16", "LEI24", "LEF32", "I8", "ulaw", "alaw"])
    func cappedOutputsPassTheGate(format: String) throws {
        let folder = TempDirectory()
        var outputs: [String] = []
        for seed in UInt64(0)..<4 {
            // Noise of a high crest factor: -5 LUFS would need a true peak far above -1 dBTP.
            let wav = folder.write("n\(seed).wav", Self.noise(channels: 1, seconds: 1, amplitude: 0.1, seed: seed))
            let caf = folder.file("n\(seed).caf")
            let result = try run(
                RepositoryPaths.executable, ["convert", "--loudness", "-5", "--true-peak", "-1", "-d", format, wav, "-o", caf])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(result.stderr.contains("true peak limited to -1.0 dBTP"), "\(format): \(result.stderr)")
            outputs.append(caf)
        }
        let verified = try run(RepositoryPaths.executable, ["verify", "--max-true-peak", "-1"] + outputs)
        #expect(verified.status == 0, "\(format): \(verified.text)\(verified.stderr)")
    }

    @Test("a ceiling above 0 dBTP is 0 for an integer output (never clipped), and holds as asked for a float one")
    func ceilingAboveFullScale() throws {
        let folder = TempDirectory()
        let wav = folder.write("n.wav", Self.noise(channels: 1, seconds: 1, amplitude: 0.1, seed: 5))
        for (format, ceiling) in [("LEI16", 0.0), ("LEF32", 3.0)] {
            let caf = folder.file("\(format).caf")
            let result = try run(
                RepositoryPaths.executable, ["convert", "--loudness", "0", "--true-peak", "3", "-d", format, wav, "-o", caf])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(result.stderr.contains("true peak limited to \(ceiling == 0 ? "0.0" : "3.0") dBTP"), "\(format): \(result.stderr)")
            let verified = try run(RepositoryPaths.executable, ["verify", "--max-true-peak", "\(ceiling)", caf])
            #expect(verified.status == 0, "\(format): \(verified.text)\(verified.stderr)")
        }
    }

    /// A 16-bit WAV of `channels` channels with channel mask `mask`: a -20 dBFS 1 kHz tone in
    /// channel `lit` alone, 3 s.
    static func oneChannel(_ lit: Int, of channels: Int, mask: UInt32) -> [UInt8] {
        let samples = (0..<144_000).flatMap { frame -> [Int32] in
            let value = Int32((0.1 * 32767 * sin(2 * Double.pi * 1000 * Double(frame) / 48_000)).rounded())
            return (0..<channels).map { $0 == lit ? value : 0 }
        }
        var wav = WAVFixture(encoding: .int16, channels: channels, sampleRate: 48_000, integers: samples, extensible: true)
        wav.channelMask = mask
        return wav.bytes(order: .little)
    }

    @Test(
        "channels are weighed by where the channel mask says they play (BS.1770-4), and an output keeps the layout it was weighed by",
        arguments: [
            // 7.1 (FL FR FC LFE BL BR SL SR): a side surround +1.5 dB, a back one (135-150 degrees) not.
            (8, UInt32(0x63F), 6, -21.5), (8, 0x63F, 4, -23.0),
            // 6.0 (FL FR FC BC SL SR): the back centre is a speaker, not the LFE.
            (6, 0x707, 3, -23.0),
            // 4.0 (FL FR FC BC): the front centre is not a surround.
            (4, 0x107, 2, -23.0),
            // 5.1 (back): its backs are the surrounds.
            (6, 0x3F, 4, -21.5),
        ])
    func weightsByPosition(channels: Int, mask: UInt32, lit: Int, expected: Double) throws {
        let folder = TempDirectory()
        let wav = folder.write("in.wav", Self.oneChannel(lit, of: channels, mask: mask))
        #expect(abs(try Self.loudness(wav).integrated - expected) <= 0.05, "mask \(mask), channel \(lit)")
        let caf = folder.file("out.caf")
        let result = try run(RepositoryPaths.executable, ["convert", "--loudness", "-20", wav, "-o", caf])
        #expect(result.status == 0, "\(result.stderr)")
        let verified = try run(RepositoryPaths.executable, ["verify", "--loudness", "-20.1..-19.9", caf])
        #expect(verified.status == 0, "mask \(mask), channel \(lit): \(verified.text)\(verified.stderr)")
    }
}

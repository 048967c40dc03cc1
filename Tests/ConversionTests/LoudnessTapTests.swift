import Conversion
import ConversionModel
import Foundation
import Loudness
import TestSupport
import Testing
import Transcoding

/// `convert --loudness`: the output's re-measurement comes from the proof's own decoding of the
/// output (``OutputLoudnessTap``), not from decoding it once more; and the source is oversampled
/// for its true peak only when that could cap the gain. Serialized: the tests read global counters.
@Suite(.serialized, .enabled(if: LoudnessMeter.unavailableReason == nil, "libebur128 cannot be loaded (Debian libebur128-dev)"))
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

    /// `--loudness TARGET --true-peak CEILING` (LEF32, one job) of `input`: the file's result and how many true-peak
    /// passes it took.
    static func normalise(_ input: String, to target: Double, ceiling: Double = -1, in folder: TempDirectory) throws
        -> (FileResult, Int)
    {
        let (files, passes) = try run([input], into: folder.file("out.caf"), to: target, ceiling: ceiling, group: nil)
        return (try #require(files.first), passes)
    }

    /// `convert -d LEF32 -j 1 --loudness TARGET --true-peak CEILING [--loudness-group GROUP]` of `inputs` into
    /// `output`: the results and how many true-peak passes the run took.
    static func run(_ inputs: [String], into output: String, to target: Double, ceiling: Double, group: String?) throws
        -> ([FileResult], Int)
    {
        var options = ConversionOptions(jobs: 1)
        options.codecs = OutputCodecs.vocabulary
        options.dataFormat = try DataFormat(parsing: "LEF32")
        options.loudnessTarget = target
        options.truePeakCeiling = ceiling
        options.loudnessGroup = group
        let before = LoudnessScan.truePeakPasses.load(ordering: .relaxed)
        let report = Engine.convert(inputs: inputs, output: output, options: options)
        return (report.files, LoudnessScan.truePeakPasses.load(ordering: .relaxed) - before)
    }

    @Test("a quiet source whose sample peak cannot reach the ceiling after the gain is never oversampled for its true peak")
    func quietSourceSkipsTheTruePeak() throws {
        let folder = TempDirectory()
        let (file, passes) = try Self.normalise(folder.write("in.wav", Self.tone), to: -18, in: folder)
        #expect(file.status == .converted, "\(file.reason ?? "")")
        #expect(abs((file.loudness?.reached ?? 0) - -18) < 0.01)
        #expect(file.warnings.isEmpty, "\(file.warnings)")
        #expect(passes == 0)
    }

    @Test(
        "a source whose inter-sample peak caps the gain is measured for its true peak and gets exactly the gain the full meter gives"
    )
    func interSamplePeakStillCaps() throws {
        // A 12 kHz sine at 48 kHz, -6 dBFS, sampled 45 degrees off its crests: its samples peak
        // 3 dB below its true peak (as EBU Tech 3341's true-peak cases).
        let samples = (0..<96_000).flatMap { frame -> [Int32] in
            let value = Int32((0.5 * 32767 * sin(Double.pi / 2 * Double(frame) + Double.pi / 4)).rounded())
            return [value, value]
        }
        let folder = TempDirectory()
        let input = folder.write(
            "in.wav", WAVFixture(encoding: .int16, channels: 2, sampleRate: 48_000, integers: samples).bytes(order: .little))
        let full = try LoudnessScan.measure(path: input)
        // The float output's rounding room below the ceiling (``LoudnessGain/codingHeadroom``).
        let headroom = LoudnessGain.codingHeadroom(bits: nil, companded: false, ceiling: -6)
        let expected = try #require(LoudnessGain.plan(full, target: -1, ceiling: -6, headroom: headroom))
        try #require(expected.isCapped)
        let samplePeakCap = -6 - (full.samplePeak ?? 0)
        #expect(expected.decibels < samplePeakCap - 2.5, "the true peak, not the sample peak, decides")
        let (file, passes) = try Self.normalise(input, to: -1, ceiling: -6, in: folder)
        #expect(file.status == .converted, "\(file.reason ?? "")")
        #expect(passes == 1)
        // The same gain (the meters differ only in how the frames are handed to libebur128).
        #expect(abs((file.loudness?.gain ?? 0) - expected.decibels) < 1e-9, "\(file.loudness.map { "\($0)" } ?? "")")
        #expect(abs((file.loudness?.reached ?? 0) - expected.reached) < 1e-9)
        #expect(file.warnings.count == 1, "\(file.warnings)")
    }

    /// `--loudness TARGET --loudness-group folder` of the folder `in` of `folder`.
    static func normaliseGroup(to target: Double, ceiling: Double, in folder: TempDirectory) throws -> ([FileResult], Int) {
        try run([folder.file("in")], into: folder.file("out"), to: target, ceiling: ceiling, group: "folder")
    }

    @Test(
        "a group: only the members whose sample peak could cap the gain are oversampled, and the cap is the one their true peaks give"
    )
    func groupTruePeaks() throws {
        let hot = (0..<96_000).flatMap { frame -> [Int32] in
            let value = Int32((0.5 * 32767 * sin(Double.pi / 2 * Double(frame) + Double.pi / 4)).rounded())
            return [value, value]
        }
        let hotBytes = WAVFixture(encoding: .int16, channels: 2, sampleRate: 48_000, integers: hot).bytes(order: .little)
        // Quiet: -18 LUFS is reached without a cap, and no member is oversampled.
        let quiet = TempDirectory()
        quiet.write("in/a.wav", Self.tone)
        quiet.write("in/b.wav", Self.tone)
        let (quietFiles, quietPasses) = try Self.normaliseGroup(to: -18, ceiling: -1, in: quiet)
        #expect(quietFiles.count == 2 && quietFiles.allSatisfy { $0.status == .converted }, "\(quietFiles.map { $0.reason ?? "" })")
        #expect(quietFiles.allSatisfy { abs(($0.loudness?.reached ?? 0) - -18) < 0.01 && $0.warnings.isEmpty })
        #expect(quietPasses == 0)
        // Hot: the 12 kHz sine's true peak (3 dB over its samples) caps the group; the quiet
        // tone beside it cannot, and is not oversampled.
        let folder = TempDirectory()
        let inputs = [folder.write("in/hot.wav", hotBytes), folder.write("in/quiet.wav", Self.tone)]
        let (files, passes) = try Self.normaliseGroup(to: -1, ceiling: -6, in: folder)
        #expect(files.count == 2 && files.allSatisfy { $0.status == .converted }, "\(files.map { $0.reason ?? "" })")
        #expect(passes == 1)
        let truePeak = try #require(try LoudnessScan.measure(path: inputs[0]).truePeak)
        let headroom = LoudnessGain.codingHeadroom(bits: nil, companded: false, ceiling: -6)  // a float output
        #expect(files.allSatisfy { abs(($0.loudness?.gain ?? 0) - (-6 - headroom - truePeak)) < 1e-9 }, "\(files.map { $0.loudness.map { "\($0)" } ?? "" })")
    }
}

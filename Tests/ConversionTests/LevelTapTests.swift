import SoundLevels
import Conversion
import Foundation
import ConversionModel
import SoundReport
import TestSupport
import Testing
import Transcoding

/// `convert --report` measures each source and output while the conversion decodes them
/// (`ConversionOptions.measuresLevels`), and what it measures is what `cafconv report` measures
/// of the same file by decoding it on its own (`LevelTap.measure` over `SourceAudio.open`).
@Suite struct LevelTapTests {
    /// A 24-bit stereo signal long enough for a gated loudness (0.7 s).
    static let fixture: WAVFixture = {
        let frames = 30_870
        let values = (0..<frames * 2).map { index -> Int32 in
            let frame = Double(index / 2)
            let phase = 2 * Double.pi * (index % 2 == 0 ? 440 : 1250) * frame / 44100
            return Int32((sin(phase) * (index % 2 == 0 ? 0.5 : 0.8) * 8_388_607).rounded())
        }
        return WAVFixture(encoding: .int24, channels: 2, sampleRate: 44100, integers: values)
    }()

    /// The roads a job takes: the direct payload (no decoding), the sample pump (libsndfile
    /// or cafconv's G.711 encoder), ALAC (libsndfile decodes the proof), the transforms, IMA4
    /// (CAFKit's decoder in the proof) and Opus (libopus in the lossy proof).
    static let roads: [(String, ConversionOptions)] = {
        func options(_ format: String?, channels: Int? = nil) -> ConversionOptions {
            var options = ConversionOptions(
                dataFormat: format.flatMap { try? DataFormat(parsing: $0) }, jobs: 1,
                channels: channels)
            options.codecs = OutputCodecs.vocabulary
            options.measuresLevels = true
            return options
        }
        return [
            ("payload", options(nil)), ("pump", options("LEF32")), ("ulaw", options("ulaw")), ("alac", options("alac24")),
            ("mono", options(nil, channels: 1)), ("ima4", options("ima4")), ("opus", options("opus")),
        ]
    }()

    @Test(arguments: roads.map(\.0))
    func levelsMeasuredInTheRunAreTheFilesOwn(_ road: String) throws {
        try expectLevels(of: try #require(Self.roads.first { $0.0 == road }?.1))
    }

    /// An AAC output: the proof's libavcodec decoding feeds the meters.
    @Test(.enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
    func aacOutputMeasuredByItsProof() throws {
        var options = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1)
        options.codecs = OutputCodecs.vocabulary
        options.measuresLevels = true
        try expectLevels(of: options)
    }

    func expectLevels(of options: ConversionOptions) throws {
        let converted = try convert(Self.fixture.bytes, options: options)
        let source = try #require(converted.result.sourceLevels, "the run measured no source levels")
        let output = try #require(converted.result.outputLevels, "the run measured no output levels")
        let input = converted.folder.file("in.wav")
        // What `cafconv report` computes of each file, decoding it alone (the decoder's name
        // aside: the proof names CAFKit, `SourceAudio` cafconv's reader).
        for (measured, path) in [(source, input), (output, converted.path)] {
            let alone = try LevelTap.measure(try SourceAudio.open(path))
            #expect(measured.envelope == alone.envelope, "envelope of \(path)")
            #expect(measured.samplePeak == alone.samplePeak && measured.truePeak == alone.truePeak)
            #expect(measured.loudness == alone.loudness && measured.sampleRate == alone.sampleRate)
        }
        #expect((300...SoundMeter.defaultColumns).contains(output.envelope.columns))
        // Every frame of the output (Opus codes at 48 kHz: the source's frames at that rate).
        #expect(output.frames == Int64((Double(Self.fixture.frames) * output.sampleRate / 44100).rounded()))
        #expect(output.loudness != nil && source.loudness != nil)
    }

    @Test func withoutTheReportNothingIsMeasured() throws {
        let converted = try convert(Self.fixture.bytes, options: ConversionOptions(jobs: 1))
        #expect(converted.result.sourceLevels == nil && converted.result.outputLevels == nil)
    }
}

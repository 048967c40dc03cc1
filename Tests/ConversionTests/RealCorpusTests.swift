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
import WAVEKit

/// The WAV files of `../shared/corpus/real/`, made by other tools, convert exactly as documented here.
@Suite("Real-world WAV files", .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
struct RealCorpusTests {
    /// What each file must become: the output format, the frames (ORACLE.json `frames`) and a
    /// phrase one of the warnings must contain (for the malformed ones).
    static let expectations: [String: (format: String, warning: String?)] = [
        "Borewit_music-metadata__ffmpeg-missing-chunksize.wav": ("LEI16", "0xFFFFFFFF"),
        "Borewit_music-metadata__issue-819.wav": ("LEI16", "declares 4294967195 bytes"),
        "PaulMcClernan_OpenXTalk-Apple-AVAudioRecorder__test.wav": ("LEF32", nil),
        "go-audio_wav__32bit.wav": ("LEI32", nil),
        "go-audio_wav__bwf.wav": ("LEI24", "RIFF size"),
        "go-audio_wav__flloop.wav": ("LEI16", nil),
        // WAVE_FORMAT_EXTENSIBLE with wValidBitsPerSample 0: read as 32-bit integers, as libsndfile and ffprobe do.
        "ruuda_hound__nonstandard-02.wav": ("LEI32", nil),
        "ruuda_hound__pcmwaveformat-8bit-44100Hz-mono.wav": ("I8", nil),
        "ruuda_hound__pro_tools_bext.wav": ("LEI24", nil),
        "ruuda_hound__waveformatex-8bit-11025Hz-mono.wav": ("I8", "RIFF size"),
        "ruuda_hound__waveformatex-ieeefloat-44100Hz-mono.wav": ("LEF32", nil),
        "ruuda_hound__waveformatextensible-24bit-192kHz-mono.wav": ("LEI24", nil),
        // 24 valid bits in 32-bit containers: the 32-bit containers are kept as they are (sample-exact).
        "ruuda_hound__waveformatextensible-24bit-4byte-48kHz-stereo.wav": ("LEI32", nil),
        "ruuda_hound__waveformatextensible-ieeefloat-44100Hz-mono.wav": ("LEF32", nil),
        "ryanfrancesconi_spfk-testing__tabla.wav": ("LEI24", nil),
    ]

    @Test("every WAV in the corpus is covered here")
    func covered() throws {
        let oracle = try RepositoryPaths.oracle()
        let wavs = oracle.filter { ($0.value["container"] as? String) == "wav" }.keys.sorted()
        #expect(wavs == Self.expectations.keys.sorted())
    }

    @Test(arguments: expectations.keys.sorted())
    func converts(name: String) throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let oracle = try #require(try RepositoryPaths.oracle()[name])
        let expected = try #require(Self.expectations[name])
        let input = corpus + "/" + name
        let before = try #require(readFile(input))
        let folder = TempDirectory()
        let output = folder.file("out.caf")
        let report = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1))
        let result = try #require(report.files.first)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.formatOut == expected.format)
        if let warning = expected.warning {
            #expect(result.warnings.contains { $0.message.contains(warning) }, "warnings: \(result.warnings)")
        }
        let frames = try #require(oracle["frames"] as? Int)
        #expect(result.frames == Int64(frames))
        #expect(readFile(input) == before)

        let bytes = try #require(readFile(output))
        let caf = try CAFFile(reading: MemoryByteSource(bytes))
        expectCleanLayout(caf)
        #expect(caf.linearPCMFrames == UInt64(frames))
        #expect(caf.audioDescription.sampleRate == (oracle["sample_rate"] as? Double))
        #expect(caf.audioDescription.channelsPerFrame == UInt32(oracle["channels"] as? Int ?? 0))
        #expect(caf.audioDescription.byteOrder == .little || caf.audioDescription.bitsPerChannel == 8)

        // Sample-exact: the source's samples, decoded by WAVEKit + PCMLayout, equal the CAF's.
        let wave = try WAVEFile(reading: MemoryByteSource(before))
        let sourceLayout = PCMLayout(
            bits: Int(wave.format.bitsPerSample), isFloat: wave.format.isFloat,
            byteOrder: .little, channels: Int(wave.format.channels),
            isUnsigned8Bit: wave.format.bitsPerSample == 8)
        let start = Int(wave.audioOffset)
        let sourceAudio = before[start..<start + frames * Int(wave.format.blockAlign)]
        let outLayout = try #require(PCMLayout(caf.audioDescription))
        let outAudio = bytes[Int(caf.audioOffset)..<Int(caf.audioOffset + caf.audioBytes)]
        if wave.format.isFloat {
            expectSameSamples(outLayout.decodeFloats(outAudio), sourceLayout.decodeFloats(sourceAudio))
        } else {
            expectSameSamples(outLayout.decodeIntegers(outAudio), sourceLayout.decodeIntegers(sourceAudio))
        }
    }
}

import BinaryIO
import CAFKit
@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// The route table (`DecodeRoute`): each kind of source told once and opened into the same
/// `SourceStage`, with the refusals that depend on the job as typed failures.
@Suite("Source routes")
struct SourceRouteTests {
    /// A 2-channel IMA4 CAF written by CAFKit, in a fresh folder.
    func ima4Source() throws -> (TempDirectory, String) {
        let folder = TempDirectory()
        let samples = IMA4Fixtures.sines(frames: 2205, channels: 2)
        let path = folder.write(
            "in.caf", try CAFWriter.ima4Bytes(sampleRate: 44100, channels: 2, samples: samples.map { Int16($0) }))
        return (folder, path)
    }

    func open(_ path: String, _ options: ConversionOptions) throws(ConversionError) -> SourceStage {
        var warnings: [ConversionWarning] = []
        return try SourceStage.open(Job(input: path, output: path + ".out.caf"), options: options, warnings: &warnings)
    }

    func refusal(_ path: String, _ options: ConversionOptions) -> ConversionError? {
        do { _ = try open(path, options) } catch { return error }
        return nil
    }

    @Test("the table names each kind: cafconv's reader, IMA4, libsndfile")
    func table() throws {
        let (folder, ima4) = try ima4Source()
        let wave = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 100).bytes)
        func route(_ path: String) throws -> DecodeRoute {
            try DecodeRoute.route(for: try SourceContent.read(try FileByteSource(path: path)))
        }
        guard case .ima4 = try route(ima4) else { Issue.record("IMA4 CAF not routed to CAFKit"); return }
        guard case .cafconv = try route(wave) else { Issue.record("16-bit WAV not routed to cafconv"); return }
        guard case .libsndfile = try DecodeRoute.route(for: .other(prefix: "starts with 'OggS'")) else {
            Issue.record("a container cafconv does not parse is libsndfile's")
            return
        }
    }

    @Test("an IMA4 source opens as a stage of its own decoder, and refuses what it refused")
    func ima4() throws {
        let (folder, path) = try ima4Source()
        var warnings: [ConversionWarning] = []
        let stage = try SourceStage.open(Job(input: path, output: folder.file("o.caf")), options: .init(jobs: 1), warnings: &warnings)
        #expect(warnings.isEmpty, "an IMA4 CAF reports no container warnings on convert's road")
        guard case .ima4? = stage.codec else { Issue.record("no IMA4 decoder"); return }
        #expect(stage.formatCode == "ima4" && stage.headerFrames == 2205 && stage.info.channels == 2)
        #expect(refusal(path, ConversionOptions(jobs: 1, sampleRate: 22050)) == .source(.ima4NoTransform))
        #expect(refusal(path, ConversionOptions(jobs: 1, channels: 1)) == .source(.ima4NoTransform))
        let toAAC = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1)
        #expect(refusal(path, toAAC) == .source(.ima4ConvertsToPCMOrIMA4(aifc: false)))
        #expect(throws: ConversionError.source(.ima4ConvertsToPCMOrIMA4(aifc: false))) {
            try SourceStage.open(path, warnings: &warnings)
        }
        // `verify --against`'s reader takes it through the same table.
        let audio = try SourceAudio.open(path)
        #expect(audio.decoderName == "cafkit-ima4" && audio.channels == 2 && audio.limit == 2205)
        let job = Job(input: path, output: folder.file("out.caf"))
        let ulaw = ConversionOptions(dataFormat: try DataFormat(parsing: "ulaw"), jobs: 1)
        let result = Converter.convert(job, options: ulaw, sequence: 0)
        #expect(result.status == .failed && result.reason == SourceFailure.ima4Target("ulaw").message)
        #expect(result.code == .unsupported && result.formatIn == "ima4" && result.channels == 2)
    }

    @Test(
        "an AAC CAF opens as a stage of libavcodec's decoder, and refuses what it refused",
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func aac() throws {
        let path = try #require(RepositoryPaths.realCorpus) + "/mattetti_audio__bass.caf"
        let stage = try open(path, ConversionOptions(jobs: 1))
        guard case .aac? = stage.codec else { Issue.record("no AAC decoder"); return }
        #expect(stage.formatCode == "aac" && stage.info.channels == 2 && stage.info.sampleRate == 44100)
        func options(_ format: String) throws -> ConversionOptions {
            ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1)
        }
        #expect(refusal(path, try options("aac")) == .source(.aacToAAC))
        #expect(refusal(path, try options("I8")) == .source(.aacBits(8)))
        #expect(refusal(path, try options("ulaw")) == .source(.aacToOther))
        // Resampling or remixing is refused once the source is open, and the report says what it is.
        let folder = TempDirectory()
        for asked in [ConversionOptions(jobs: 1, sampleRate: 22050), ConversionOptions(jobs: 1, channels: 1)] {
            let result = Converter.convert(Job(input: path, output: folder.file("out.caf")), options: asked, sequence: 0)
            #expect(result.error == .source(.aacNoTransform))
            #expect(result.formatIn == "aac" && result.channels == 2 && result.sampleRate == 44100)
        }
        var warnings: [ConversionWarning] = []
        #expect(throws: ConversionError.source(.aacDecodedOnlyByConvert(formatID: "aac"))) {
            try SourceStage.open(path, warnings: &warnings)
        }
    }

    @Test("a broken CAF is named in convert's words, and in -d aac's")
    func brokenCAF() throws {
        let (folder, path) = try ima4Source()
        let bytes = try #require(readFile(path))
        let broken = folder.write("broken.caf", Array(bytes.prefix(40)))
        guard case .source(.cannotReadCAF)? = refusal(broken, ConversionOptions(jobs: 1)) else {
            Issue.record("\(String(describing: refusal(broken, ConversionOptions(jobs: 1))))")
            return
        }
        let toAAC = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1)
        guard case .source(.unreadableCAF)? = refusal(broken, toAAC) else {
            Issue.record("\(String(describing: refusal(broken, toAAC)))")
            return
        }
    }
}

import BinaryIO
import CAFKit
@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import SndFile
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification
import WAVEKit

@testable import Conversion

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Each stage of the conversion pipeline on its own (Converter.convert, which chains them, is
/// covered by the conversion and end-to-end suites).
@Suite("Pipeline stages")
struct PipelineStageTests {
    /// A 16-bit stereo WAV of 3000 frames in a fresh folder.
    func source(_ encoding: WAVFixture.Encoding = .int16, frames: Int = 3000) throws -> (TempDirectory, SourceStage) {
        let folder = TempDirectory()
        let path = folder.write("in.wav", WAVFixture.signal(encoding, channels: 2, frames: frames).bytes)
        var warnings: [ConversionWarning] = []
        return (folder, try SourceStage.open(path, warnings: &warnings))
    }

    func target(_ source: SourceStage, _ format: String?) throws -> TargetFormat {
        TargetFormat.resolve(
            source: source.encoding, sourceOrder: source.byteOrder,
            dataFormat: try format.map { try DataFormat(parsing: $0) }, endian: nil)
    }

    /// Runs the container and encoder stages into `folder/out.caf`; returns the path, the encoder
    /// and the container's checked document.
    func write(
        _ source: SourceStage, as target: TargetFormat, in folder: TempDirectory, direct: Bool = true
    ) throws -> (String, EncoderStage, CAFDocument) {
        let path = folder.file("out.caf")
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        try #require(descriptor >= 0)
        let writer = try ContainerStage.libsndfileWriter(
            descriptor: descriptor, path: path, source: source, target: target)
        let encoder = EncoderStage.choose(for: source, target: target, options: ConversionOptions(directPayload: direct))
        let frames = try #require(
            try encoder.run(source: source, writer: writer, temporary: path, blockSamples: 4096, isCancelled: { false }))
        // The writer owns the descriptor and closed it (closing it again could close another
        // test's file that got the same number).
        let document = try ContainerStage.finish(
            path, target: target, channels: source.info.channels, sampleRate: source.exactRate,
            frames: UInt64(frames))
        return (path, encoder, document)
    }

    @Test("source: both readers open the file and agree; what it is, its header frames and its probe")
    func sourceStage() throws {
        let (_, source) = try source()
        #expect(source.encoding == .pcm16)
        #expect(source.info.channels == 2)
        #expect(source.headerFrames == 3000)
        #expect(source.probe != nil, "libsndfile and cafconv agree on a plain 16-bit file")
        #expect(source.formatCode == "LEI16")
    }

    @Test("source: a file that is not a WAV is refused with the reader's reason")
    func sourceStageRefuses() throws {
        let folder = TempDirectory()
        let path = folder.write("in.wav", Array("not a sound file at all".utf8))
        var warnings: [ConversionWarning] = []
        #expect {
            _ = try SourceStage.open(path, warnings: &warnings)
        } throws: { error in
            (error as? ConversionError)?.code == .notAudio && !((error as? ConversionError)?.message ?? "").isEmpty
        }
    }

    @Test("source: an input that cannot be opened is an input failure, not 'not audio'")
    func sourceStageCannotOpen() throws {
        let folder = TempDirectory()
        let fifo = folder.file("pipe.wav")
        #expect(mkfifo(fifo, 0o600) == 0)
        var warnings: [ConversionWarning] = []
        for path in [folder.file("gone.wav"), fifo, folder.path] {
            #expect {
                _ = try SourceStage.open(path, warnings: &warnings)
            } throws: { error in
                (error as? ConversionError)?.code == .input
            }
        }
    }

    @Test("encoder: the road follows the target and the options")
    func encoderChoice() throws {
        let (_, source) = try source()
        func road(_ format: String?, direct: Bool = true) throws -> EncoderStage {
            EncoderStage.choose(
                for: source, target: try target(source, format), options: ConversionOptions(directPayload: direct))
        }
        guard case .directPayload = try road(nil) else {
            Issue.record("the same format with nothing to change moves the bytes")
            return
        }
        guard case .samples(.integers) = try road(nil, direct: false) else {
            Issue.record("--no-direct-payload (the option off) pumps the samples")
            return
        }
        guard case .samples(.integersToFloats) = try road("LEF32") else {
            Issue.record("16-bit to float is pumped as integers to floats")
            return
        }
        guard case .samples(.g711(.muLaw)) = try road("ulaw") else {
            Issue.record("16-bit to µ-law is encoded by cafconv's G.711 encoder")
            return
        }
        #expect(try road("ulaw").transfer(from: source) == .g711Encoded)
        #expect(try road("LEF32").transfer(from: source) == .libsndfile)
        #expect(try road(nil).transfer(from: source) == .copied)
    }

    @Test("container: the expectations follow the target, and finish refuses a file that does not meet them")
    func containerStage() throws {
        let (folder, source) = try source()
        let target = try target(source, "BEI24")
        let expected = ContainerStage.expectations(for: target, channels: 2, sampleRate: 44100, frames: 3000)
        #expect(expected.formatID == .lpcm)
        #expect(expected.bitsPerChannel == 24)
        #expect(expected.byteOrder == .big)
        #expect(expected.validFrames == 3000)
        let (path, _, document) = try write(source, as: target, in: folder)
        #expect(document.file.validFrames == 3000)
        #expect(throws: ConversionError.self) {
            _ = try ContainerStage.finish(path, target: target, channels: 2, sampleRate: 44100, frames: 3001)
        }
    }

    @Test(
        "proof: the output of each road proves, and one changed sample fails it",
        arguments: [(nil as String?, true), ("LEF32", true), ("ulaw", true), (nil, false)])
    func proofStage(format: String?, direct: Bool) throws {
        let (folder, source) = try source()
        let target = try target(source, format)
        let (path, encoder, document) = try write(source, as: target, in: folder, direct: direct)
        let proof = try ProofStage.run(
            path, document: document, encoder: encoder, source: source, target: target, blockSamples: 4096,
            isCancelled: { false })
        #expect(proof.extent == (direct && format == nil ? "ends" : "every-frame"))
        // The last byte of the audio changed: the last frame's last channel.
        var bytes = try #require(readFile(path))
        let last = Int(document.file.audioOffset) + Int(document.file.audioBytes) - 1
        bytes[last] ^= 0x40
        writeFile(path, bytes)
        #expect(throws: ConversionError.self) {
            _ = try ProofStage.run(
                path, document: document, encoder: encoder, source: source, target: target, blockSamples: 4096,
                isCancelled: { false })
        }
    }
}

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

@Suite("The proof after a transform: the same plan on cafconv's own decoding, compared exactly")
struct TransformProofTests {
    @Test("a written file passes; one sample changed by 1 LSB fails, naming the frame and the rule")
    func proofCatchesPlumbing() throws {
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 5000, sampleRate: 48000)
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1, sampleRate: 22050, channels: 1)
        let converted = try convert(fixture.bytes, options: options)
        let input = converted.folder.file("in.wav")
        var warnings: [ConversionWarning] = []
        let source = try SourceStage.open(input, warnings: &warnings)
        let target = TargetFormat.resolve(
            source: source.encoding, sourceOrder: source.byteOrder, dataFormat: options.dataFormat, endian: nil)
        let plan = try #require(try TransformPlan.make(source: source, target: target, options: options, warnings: &warnings))
        func prove(_ path: String) throws(ConversionError) -> Proof {
            let document = try ContainerStage.readBack(path)
            let audio: TransformedAudio
            do { audio = try TransformedAudio(source: try source.proofAudio(), plan: plan) } catch {
                throw .proof(.unreadable(reason: "\(error)"))
            }
            return try ProofStage.prove(
                path, document: document, target: target, source: audio, transformRule: plan.rule, blockSamples: 4096,
                isCancelled: { false })
        }
        #expect(try prove(converted.path).rule == "mixed 2→1; resampled 48000→22050 with soxr VHQ; rounded to 16 bits")

        // One sample changed by 1 LSB in the middle of the payload.
        var bytes = converted.bytes
        let middle = Int(converted.file.audioOffset) + 2 * 1000
        bytes[middle] ^= 1
        let changed = converted.folder.write("changed.caf", bytes)
        #expect {
            try prove(changed)
        } throws: { error in
            let message = (error as? ConversionError)?.message ?? ""
            return (error as? ConversionError)?.code == .proof && message.contains("frame 1000")
                && message.contains("after rule mixed 2→1")
        }
    }
}

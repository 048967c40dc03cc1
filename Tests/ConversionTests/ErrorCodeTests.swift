import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

/// The stable failure codes of the JSON report (`files[].code`).
@Suite("Failure codes")
struct ErrorCodeTests {
    @Test("every code has its own kebab-case name and a one-sentence summary")
    func everyCodeIsDescribed() {
        let codes = ConversionError.Code.allCases
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        #expect(Set(codes.map(\.summary)).count == codes.count)
        for code in codes {
            #expect(!code.summary.isEmpty, "\(code)")
            #expect(code.rawValue.allSatisfy { ("a"..."z").contains($0) || $0 == "-" }, "\(code.rawValue)")
        }
    }

    @Test("the codes the README documents are the codes there are, by name")
    func namesAreStable() {
        #expect(
            ConversionError.Code.allCases.map(\.rawValue) == [
                "input", "not-audio", "unsupported", "readers-disagree", "libsndfile", "io", "source-changed",
                "output", "proof", "manifest", "interrupted",
            ])
    }

    @Test("a failed file carries its code: missing input, not audio, an output that is an input")
    func failuresCarryCodes() throws {
        let folder = TempDirectory()
        let notAudio = folder.write("text.wav", Array("this is not a sound file".utf8))
        let missing = folder.file("missing.wav")
        let report = Engine.convert(inputs: [notAudio, missing], output: folder.file("out"), options: ConversionOptions(jobs: 1))
        let codes = Dictionary(uniqueKeysWithValues: report.files.map { ($0.input, $0.code) })
        #expect(codes[notAudio] == .notAudio, "\(report.files)")
        #expect(codes[missing] == .input, "\(report.files)")
        #expect(report.files.allSatisfy { $0.status == .failed })

        let wav = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let clash = Engine.convert(inputs: [wav], output: wav, options: ConversionOptions(jobs: 1))
        #expect(clash.files.first?.code == .output, "\(clash.files)")
    }

    @Test("a converted file has no code")
    func convertedHasNoCode() throws {
        let converted = try convert(WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        #expect(converted.result.code == nil)
    }
}

import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// Linear PCM (`-d LEI16`, `BEF32`, `I8`...): written by libsndfile's CAF writer, or, when the
/// source's bytes already are the output's samples, moved as bytes into libsndfile's empty CAF
/// (the direct payload, `DirectPayload`; `EncoderStage` picks the road). The proof decodes the
/// file with CAFKit and compares every frame exactly, or exactly after a named rule
/// (`24-to-16-bit`, `int-to-float`...); the direct payload's compares the output's ends with
/// libsndfile's reading of the source.
package struct LinearPCMCodec: LibsndfileWriterCodec {
    package var spelling: DataFormat.Spelling {
        DataFormat.Spelling(DataFormat.Kind.linearPCMName, examples: DataFormat.Vocabulary.linearPCMExamples)
    }
    package var formatIDs: [FourCC] { [.lpcm] }

    package func keeps(_ encoding: Encoding) -> Bool { encoding.isLinearPCM }

    package func encoding(for asked: DataFormat.Kind, source: Encoding) -> Encoding {
        let bits = asked.bits ?? 16
        if asked.isFloat { return bits == 64 ? .float64 : .float32 }
        return [8: Encoding.pcmS8, 16: .pcm16, 24: .pcm24][bits] ?? .pcm32
    }

    package func verifyExpectations(_ expected: inout CAFExpectations, asked: DataFormat.Kind) {
        expected.formatID = .lpcm
        if asked.isLinearPCM, let bits = asked.bits {
            expected.bitsPerChannel = UInt32(clamping: bits)
            expected.isFloat = asked.isFloat
        }
    }

    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        guard format.kind.isLinearPCM, let bits = format.kind.bits else { return format.text }
        return (format.kind.isFloat ? "F" : "I") + String(bits)
    }

    package func proofDecoding(
        _ path: String, document: CAFDocument, target: TargetFormat, source: any FrameSource, codesCopied: Bool
    ) throws(ConversionError) -> OutputDecoding {
        guard let layout = PCMLayout(document.file.audioDescription) else {
            throw ConversionError.proof(.notPackedPCM)
        }
        let decoder = OutputProof.OutputDecoder.cafkit(
            layout, try Self.bytes(path), offset: document.file.audioOffset, frames: Int64(document.file.validFrames ?? 0))
        return OutputDecoding(decoder: decoder, rule: Self.rule(source, target), name: "cafkit")
    }

    package func expectations(_ expected: inout CAFExpectations, for target: TargetFormat) {
        expected.formatID = .lpcm
        expected.bitsPerChannel = UInt32(target.encoding.bits ?? 0)
        expected.isFloat = target.encoding.isFloat
        expected.byteOrder = target.byteOrder
    }

    /// The rule from the source's samples to the output's bits.
    package static func rule(_ source: any FrameSource, _ target: TargetFormat) -> String? {
        Proof.rule(
            sourceIsFloat: source.isFloat, sourceBits: source.bits, outputIsFloat: target.encoding.isFloat,
            outputBits: target.encoding.bits ?? 16)
    }
}

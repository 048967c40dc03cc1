import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// Stage 4 of a conversion, the **Proof**: the temporary file read back with CAFKit (libsndfile
/// for ALAC), decoded and compared with the independent decoding of the source under the rule
/// that applies (exact, or exact after a named conversion rule). The direct payload's proof
/// compares the output's ends with libsndfile's probe of the source.
package enum ProofStage {
    /// Proves the output at `temporary` (already checked by the container as `document`) holds
    /// the source's audio as `encoder` put it there.
    package static func run(
        _ temporary: String, document: CAFDocument, encoder: EncoderStage, source: SourceStage, target: TargetFormat,
        blockSamples: Int, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof {
        if case .directPayload(_, let probe) = encoder {
            try checkOutput(temporary, document: document, against: probe)
            return Proof(comparison: "exact", sourceDecoder: "cafconv", outputDecoder: "cafkit", extent: "ends")
        }
        if case .transformed(let plan, _) = encoder {
            let audio: TransformedAudio
            do { audio = try TransformedAudio(source: try source.proofAudio(), plan: plan) } catch let error as SourceError {
                throw ConversionError(.unsupported, error.message)
            } catch {
                throw error as? ConversionError ?? ConversionError(.io, "\(error)")
            }
            return try prove(
                temporary, document: document, target: target, source: audio, transformRule: plan.rule,
                blockSamples: blockSamples, isCancelled: isCancelled)
        }
        var codesCopied = false
        if case .g711Copy = encoder { codesCopied = true }
        return try prove(
            temporary, document: document, target: target, source: try source.proofAudio(), codesCopied: codesCopied,
            blockSamples: blockSamples, isCancelled: isCancelled)
    }

    /// Decodes the written output as its codec says (CAFKit for linear PCM, µ-law and A-law,
    /// libsndfile for ALAC) and compares every frame with `source`, after the conversion rule; throws at the first
    /// difference. G.711 codes `codesCopied` from a source of the same law are compared byte for
    /// byte with the source's codes.
    package static func prove(
        _ path: String, document: CAFDocument, target: TargetFormat, source: any FrameSource, codesCopied: Bool = false,
        transformRule: String? = nil, blockSamples: Int, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof {
        let codec = OutputCodecs.libsndfileCodec(writing: target)
        let decoding = try codec.proofDecoding(
            path, document: document, target: target, source: source, codesCopied: codesCopied)
        let decoder = decoding.decoder
        let rule = transformRule.map { codec.rule(decoding.rule, after: $0) } ?? decoding.rule
        let mismatch: OutputProof.Mismatch?
        do {
            mismatch = try OutputProof.firstMismatch(
                source: source, output: decoder, blockSamples: blockSamples, isCancelled: isCancelled)
        } catch {
            throw ConversionError(.proof, error.message)
        }
        if let mismatch {
            if let frames = mismatch.frames {
                throw ConversionError(
                    .proof,
                    "the written CAF failed verification: it holds \(frames.found) frames, the source \(frames.expected) (as \(source.decoderName) decodes it)"
                )
            }
            if case .libsndfile = decoder {
                throw ConversionError(
                    .unsupported,
                    "libsndfile's \(target) encoder did not reproduce the audio (frame \(mismatch.frame), channel \(mismatch.channel)); this audio cannot be stored as ALAC by libsndfile \(SoundFile.libraryVersion), use a PCM format"
                )
            }
            throw ConversionError(
                .proof,
                "the written CAF failed verification: frame \(mismatch.frame), channel \(mismatch.channel) holds \(mismatch.found), the source \(mismatch.expected) (as \(source.decoderName) decodes it\(rule.map { ", after rule \($0)" } ?? ""))"
            )
        }
        return Proof(
            comparison: rule == nil ? "exact" : "exact-after-rule", rule: rule, sourceDecoder: source.decoderName,
            outputDecoder: decoding.name, extent: "every-frame")
    }

    /// Compares the first and last frames of the written CAF, as CAFKit decodes them, with what
    /// libsndfile read from the source.
    package static func checkOutput(_ path: String, document: CAFDocument, against probe: SampleProbe) throws(ConversionError) {
        guard let layout = PCMLayout(document.file.audioDescription) else {
            throw ConversionError(.proof, "the written CAF failed verification: its samples are not packed linear PCM")
        }
        let difference: (frame: Int64, channel: Int, expected: String, found: String)?
        do {
            difference = try probe.firstDifference(
                in: try FileByteSource(path: path), at: document.file.audioOffset, layout: layout)
        } catch {
            throw ConversionError(.proof, "the written CAF cannot be read back: \(error)")
        }
        if let difference {
            throw ConversionError(
                .proof,
                "the written CAF failed verification: frame \(difference.frame), channel \(difference.channel) holds \(difference.found), the source \(difference.expected)"
            )
        }
    }

}

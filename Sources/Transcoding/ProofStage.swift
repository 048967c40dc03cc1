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
        blockSamples: Int, levelTap: LevelTap? = nil, isCancelled: () -> Bool, loudnessTap: OutputLoudnessTap? = nil
    ) throws(ConversionError) -> Proof {
        if case .directPayload(_, let probe) = encoder {
            try checkOutput(temporary, document: document, against: probe)
            // `convert --report`: nothing decoded the samples the payload moved; the source's
            // one decoding measures both (their sample values are the same).
            if let levelTap { try measureOnce(source, output: levelTap, blockSamples: blockSamples) }
            return Proof(comparison: "exact", sourceDecoder: "cafconv", outputDecoder: "cafkit", extent: "ends")
        }
        if case .transformed(let plan, _) = encoder {
            let audio: TransformedAudio
            do { audio = try TransformedAudio(source: try source.proofAudio(), plan: plan) } catch let error as SourceError {
                throw ConversionError.encoding(.transform(reason: error.message))
            } catch {
                throw error as? ConversionError ?? .encoding(.unexpected("\(error)"))
            }
            return try prove(
                temporary, document: document, target: target, source: audio, transformRule: plan.rule,
                blockSamples: blockSamples, levelTap: levelTap, isCancelled: isCancelled, loudnessTap: loudnessTap)
        }
        var codesCopied = false
        if case .g711Copy = encoder { codesCopied = true }
        return try prove(
            temporary, document: document, target: target, source: try source.proofAudio(), codesCopied: codesCopied,
            blockSamples: blockSamples, levelTap: levelTap, isCancelled: isCancelled,
            loudnessTap: loudnessTap)
    }

    /// Reads the source's independent decoding to its end into its meters, and lets `output`
    /// give the same levels.
    private static func measureOnce(_ source: SourceStage, output: LevelTap, blockSamples: Int) throws(ConversionError) {
        let audio = try source.proofAudio()
        let blockFrames = max(1, blockSamples / max(1, audio.channels))
        var ints = [Int32](repeating: 0, count: audio.isFloat ? 0 : blockFrames * audio.channels)
        var doubles = [Double](repeating: 0, count: audio.isFloat ? blockFrames * audio.channels : 0)
        do { while try audio.read(ints: &ints, doubles: &doubles, frames: blockFrames) > 0 {} } catch {
            throw ConversionError.proof(.decoding(reason: error.message))
        }
        if let tap = source.levelTap { output.mirror(tap) }
    }

    /// Decodes the written output as its codec says (CAFKit for linear PCM, µ-law and A-law,
    /// libsndfile for ALAC) and compares every frame with `source`, after the conversion rule; throws at the first
    /// difference. G.711 codes `codesCopied` from a source of the same law are compared byte for
    /// byte with the source's codes.
    package static func prove(
        _ path: String, document: CAFDocument, target: TargetFormat, source: any FrameSource, codesCopied: Bool = false,
        transformRule: String? = nil, blockSamples: Int, levelTap: LevelTap? = nil, isCancelled: () -> Bool,
        loudnessTap: OutputLoudnessTap? = nil
    ) throws(ConversionError) -> Proof {
        let codec = OutputCodecs.libsndfileCodec(writing: target)
        let decoding = try codec.proofDecoding(
            path, document: document, target: target, source: source, codesCopied: codesCopied)
        let decoder = decoding.decoder
        let rule = transformRule.map { codec.rule(decoding.rule, after: $0) } ?? decoding.rule
        let mismatch: OutputProof.Mismatch?
        let layout = WAVESamples(caf: document.file)
        if let levelTap {
            let rate = document.file.audioDescription.sampleRate
            levelTap.start(
                channels: source.channels, rate: Int(exactly: rate.rounded()) ?? 0, exactRate: rate,
                expectedFrames: layout?.frames ?? document.file.validFrames.map { Int64(clamping: $0) }, decoder: decoding.name)
        }
        do {
            mismatch = try OutputProof.firstMismatch(
                source: source, output: decoder, blockSamples: blockSamples, levelTap: levelTap.map { ($0, layout) },
                isCancelled: isCancelled, loudnessTap: loudnessTap)
        } catch {
            throw ConversionError.proof(.decoding(reason: error.message))
        }
        if let mismatch {
            if let frames = mismatch.frames {
                throw ConversionError.proof(.frameCount(found: frames.found, expected: frames.expected, decoder: source.decoderName))
            }
            if case .libsndfile = decoder {
                throw ConversionError.encoding(
                    .notReproduced(
                        target: "\(target)", frame: mismatch.frame, channel: mismatch.channel, version: SoundFile.libraryVersion))
            }
            throw ConversionError.proof(
                .sampleDiffers(
                    frame: mismatch.frame, channel: mismatch.channel, found: mismatch.found, expected: mismatch.expected,
                    decoder: source.decoderName, rule: rule))
        }
        return Proof(
            comparison: rule == nil ? "exact" : "exact-after-rule", rule: rule, sourceDecoder: source.decoderName,
            outputDecoder: decoding.name, extent: "every-frame")
    }

    /// Compares the first and last frames of the written CAF, as CAFKit decodes them, with what
    /// libsndfile read from the source.
    package static func checkOutput(_ path: String, document: CAFDocument, against probe: SampleProbe) throws(ConversionError) {
        guard let layout = PCMLayout(document.file.audioDescription) else {
            throw ConversionError.proof(.notPackedPCM)
        }
        let difference: (frame: Int64, channel: Int, expected: String, found: String)?
        do {
            difference = try probe.firstDifference(
                in: try FileByteSource(path: path), at: document.file.audioOffset, layout: layout)
        } catch {
            throw ConversionError.proof(.unreadable(reason: "\(error)"))
        }
        if let difference {
            throw ConversionError.proof(
                .probeDiffers(
                    frame: difference.frame, channel: difference.channel, found: difference.found, expected: difference.expected))
        }
    }

}

import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// The codecs whose files libsndfile's CAF writer lays out (linear PCM, µ-law, A-law, ALAC):
/// they share the road from the Transforms to the Proof and differ in what they are called, which
/// targets they write and how their output is decoded for the proof (``proofDecoding(_:document:target:source:codesCopied:)``).
package protocol LibsndfileWriterCodec: OutputCodec where Written == LibsndfileWritten {
    /// How the proof decodes the written file at `path` (read back as `document`), and the rule
    /// that maps `source`'s samples onto the output's. `codesCopied`: G.711 codes copied from a
    /// source of the same law.
    func proofDecoding(
        _ path: String, document: CAFDocument, target: TargetFormat, source: any FrameSource, codesCopied: Bool
    ) throws(ConversionError) -> OutputDecoding

    /// The rule a proof names when the transform stage (`transformRule`) stood before the encoder
    /// and the codec's own rule is `own`.
    func rule(_ own: String?, after transformRule: String) -> String?

    /// What the written file must say (`CAFValidator` checks it): the format, and for linear PCM
    /// its bits, float or integer, and byte order.
    func expectations(_ expected: inout CAFExpectations, for target: TargetFormat)
}

/// How a proof decodes a written file.
package struct OutputDecoding {
    /// The decoder.
    package var decoder: OutputProof.OutputDecoder
    /// The rule mapping the source's samples onto the output's (`nil`: the same values).
    package var rule: String?
    /// Who decodes: `cafkit` or `libsndfile`.
    package var name: String

    package init(decoder: OutputProof.OutputDecoder, rule: String?, name: String) {
        self.decoder = decoder
        self.rule = rule
        self.name = name
    }
}

/// What libsndfile's writer road made: the frames, the file as CAFKit read it back, and the road
/// the samples took (the proof and the report depend on it).
package struct LibsndfileWritten {
    package var frames: Int64
    package var document: CAFDocument
    package var encoder: EncoderStage
}

extension LibsndfileWriterCodec {
    /// After a transform, the samples are already rounded to the output's bits (or are floats for
    /// a float output): the comparison is exact and the transform is the whole rule.
    package func rule(_ own: String?, after transformRule: String) -> String? { transformRule }

    package func plan(_ source: SourceStage, options: ConversionOptions, result: inout FileResult) throws -> OutputPlan {
        try OutputPlan.make(source, target: OutputPlan.target(source, options: options), options: options, result: &result)
    }

    /// libsndfile's writer on the temporary file, the samples moved by the road `EncoderStage`
    /// picks, then the container finished (rate, pad byte, metadata) and checked.
    package func write(_ plan: OutputPlan, from source: SourceStage, into output: OutputTarget, result: inout FileResult) throws
        -> LibsndfileWritten?
    {
        let temporary = output.temporary
        let options = output.options
        let writer = try ContainerStage.libsndfileWriter(
            descriptor: try temporary.descriptor(), path: temporary.path, source: source, target: plan.target,
            plan: plan.transform)
        let encoder = EncoderStage.choose(for: source, target: plan.target, options: options, plan: plan.transform)
        guard
            let frames = try encoder.run(
                source: source, writer: writer, temporary: temporary.path, blockSamples: options.blockSamples,
                isCancelled: output.isCancelled)
        else { return nil }
        try source.checkDecoded(frames: frames, rate: plan.transform?.rate)
        result.warnAboutFrames(
            frames, headerFrames: plan.headerFrames(of: source), empty: .noFrames)
        if output.isCancelled() { return nil }
        let metadata = source.metadata(
            outputRate: plan.exactRate, outputFrames: UInt64(frames), options: options, warnings: &result.warnings)
        // Channels a mix did not make play where the source's did.
        let (layout, assumed) = source.speakerLayout()
        let keepsChannels = plan.channels == source.info.channels && plan.transform?.matrix?.isDiagonal ?? true
        let document = try ContainerStage.finish(
            temporary.path, target: plan.target, channels: plan.channels, sampleRate: plan.exactRate,
            frames: UInt64(frames), metadata: metadata, speakers: keepsChannels && !assumed ? layout : nil,
            blockSize: options.blockSamples * 8)
        return LibsndfileWritten(frames: frames, document: document, encoder: encoder)
    }

    package func prove(_ written: LibsndfileWritten, plan: OutputPlan, source: SourceStage, output: OutputTarget) throws -> Proof? {
        try ProofStage.run(
            output.temporary.path, document: written.document, encoder: written.encoder, source: source,
            target: plan.target, blockSamples: output.options.blockSamples, levelTap: output.levelTap,
            isCancelled: output.isCancelled, loudnessTap: output.loudnessTap)
    }

    package func record(
        _ written: LibsndfileWritten, proof: Proof, plan: OutputPlan, source: SourceStage, into result: inout FileResult,
        output: OutputTarget
    ) throws {
        result.proof = proof
        if output.isCancelled() { throw ConversionError.interrupted }
        result.bytes = written.document.file.fileLength
        result.frames = written.frames
        result.samples = written.encoder.transfer(from: source)
    }

    /// Decoded by CAFKit's reader of the written bytes.
    package static func bytes(_ path: String) throws(ConversionError) -> FileByteSource {
        do { return try FileByteSource(path: path) } catch {
            throw ConversionError.proof(.unreadable(reason: "\(error)"))
        }
    }
}

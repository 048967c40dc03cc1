import AACCodec
import BinaryIO
import CAFKit
import SndFile
import WAVEKit

extension FileResult {
    /// Records an IMA4 output that was written and proven: frames, size, proof, and the
    /// warnings every road gives (a short source, no audio).
    mutating func finishIMA4(
        _ done: (frames: Int64, document: CAFDocument, proof: Proof), headerFrames: Int64?, cancellation: Cancellation
    ) throws(ConversionError) {
        if let headerFrames, done.frames < headerFrames {
            warnings.append(
                "the header declares \(headerFrames) frames but only \(done.frames) could be read; converted \(done.frames)")
        }
        if done.frames == 0 { warnings.append("no audio frames: the output holds an empty 'data' chunk") }
        if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
        frames = done.frames
        bytes = done.document.file.fileLength
        proof = done.proof
        samples = .ima4Encoded
    }
}

/// How samples travel from the reader to the writer.
enum SampleRoute: Equatable {
    /// Integer in, integer out: libsndfile's left-justified 32-bit ints, exact.
    case integers
    /// Float in, float out: doubles, exact.
    case floats
    /// Integer in, float out: a sample of N bits `s` becomes `s / 2^(N-1)`.
    case integersToFloats
    /// Float in, integer out: `x * 2^(bits-1)`, rounded to nearest, clipped to the integer range.
    case floatsToIntegers(bits: Int)
    /// Integers or floats in, µ-law or A-law codes out: CAFKit's `G711Law` makes the codes (the
    /// nearest level of the same sign to each exact sample) and libsndfile takes them raw.
    case g711(G711Law)

    init(from source: Encoding, to target: Encoding) {
        if let law = G711Law(target) {
            self = .g711(law)
            return
        }
        switch (source.isFloat, target.isFloat) {
        case (true, true): self = .floats
        case (false, true): self = .integersToFloats
        case (true, false): self = .floatsToIntegers(bits: target.bits ?? 16)
        case (false, false): self = .integers
        }
    }
}

/// Converts one job as a chain of stages: `SourceStage` (open and cross-check the input) ->
/// `EncoderStage` (the road the samples take) -> `ContainerStage` (libsndfile's CAF writer on a
/// temporary file, then CAFKit's check of the layout) -> `ProofStage` (the output decoded and
/// compared with the source) -> commit (`FileSystem.TemporaryFile`: the atomic rename). Any
/// failure leaves nothing at the output path.
enum Converter {
    static func convert(
        _ job: Job, options: ConversionOptions, sequence: Int, cancellation: Cancellation = Cancellation()
    ) -> FileResult {
        return run(job) { result, temporaryFile in
            // The source, of whatever kind the route table names (`DecodeRoute`), opened once.
            let source = try SourceStage.open(job, options: options, warnings: &result.warnings)
            switch source.codec {
            case .aac?:
                // AAC CAF sources: decoded by libavcodec, written by CAFKit.
                return try AACSourceRoute.convert(
                    job, source: source, options: options, result: &result, temporaryFile: &temporaryFile,
                    cancellation: cancellation)
            case .ima4(let ima4)?:
                // IMA4 sources: decoded by CAFKit (libsndfile cannot).
                return try ima4.convert(
                    job, source: source, options: options, result: &result, temporaryFile: &temporaryFile,
                    cancellation: cancellation)
            case nil: break
            }
            if options.dataFormat?.kind == .aac {
                result.formatIn = source.formatCode
                let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
                let temporaryOutput = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output))
                temporaryFile = temporaryOutput
                try AACStage.convert(
                    source: source, options: options, temporary: temporaryOutput, result: &result,
                    isCancelled: { cancellation.isCancelled })
                if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
                return
            }
            let target = TargetFormat.resolve(
                source: source.encoding, sourceOrder: source.byteOrder,
                dataFormat: options.dataFormat, endian: options.endian)
            result.formatIn = source.formatCode
            result.formatOut = target.description
            let plan = try TransformPlan.make(source: source, target: target, options: options, warnings: &result.warnings)
            let channels = plan?.outputChannels ?? source.info.channels
            let sampleRate = plan?.outputRate ?? source.info.sampleRate
            // What the output's `desc` says: the asked rate after a resampling, else the source's
            // rate exactly as its container stores it (libsndfile's is an integer).
            let exactRate = plan?.rate == nil ? source.exactRate : Double(sampleRate)
            result.channels = channels
            result.sampleRate = sampleRate

            // Below the output root no symlink is followed; the file is new (O_EXCL), locked and
            // named so that nobody can guess it.
            let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
            let temporaryOutput = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output))
            temporaryFile = temporaryOutput
            let temporary = temporaryOutput.path
            let isCancelled = { cancellation.isCancelled }
            if target.isIMA4 {
                // `-d ima4`: CAFKit encodes, writes and proves (IMA4Stage); libsndfile only reads.
                // The transform stage, when there is one, stands between the source and the
                // encoder, and the proof applies the same plan to the independent decoding.
                let pumpAudio: SourceAudio
                do { pumpAudio = try source.pumpAudio() } catch let error as SndFileError {
                    throw ConversionError.libsndfile(code: error.code, message: error.message, doing: "reading failed")
                }
                let audio: any FrameSource
                let proofAudio: () throws(ConversionError) -> any FrameSource
                var announced = pumpAudio.limit ?? source.headerFrames ?? 0
                if let plan {
                    do throws(SourceError) { audio = try TransformedAudio(source: pumpAudio, plan: plan) } catch {
                        throw ConversionError(.unsupported, error.message)
                    }
                    proofAudio = { () throws(ConversionError) -> any FrameSource in
                        do { return try TransformedAudio(source: try source.proofAudio(), plan: plan) } catch {
                            throw ConversionError(.proof, "\(error)")
                        }
                    }
                    announced = plan.rate?.frames(announced) ?? announced
                } else {
                    audio = pumpAudio
                    proofAudio = { () throws(ConversionError) -> any FrameSource in try source.proofAudio() }
                }
                let metadata =
                    options.stripMetadata
                    ? []
                    : ContainerStage.metadata(
                        of: source.input, sourceRate: source.exactRate,
                        outputRate: exactRate, outputFrames: UInt64(max(0, announced)),
                        warnings: &result.warnings)
                guard
                    let done = try IMA4Stage.run(
                        audio: audio, announcedFrames: UInt64(max(0, announced)), proofAudio: proofAudio,
                        metadata: metadata, temporary: temporaryOutput, options: options, sampleRate: exactRate,
                        isCancelled: isCancelled)
                else { throw ConversionError(.interrupted, Cancellation.reason) }
                try? source.reader?.close()
                try result.finishIMA4(
                    done, headerFrames: plan?.rate == nil ? source.headerFrames : nil, cancellation: cancellation)
                if let plan, var proof = result.proof {
                    proof.rule = [plan.rule, proof.rule].compactMap { $0 }.joined(separator: "; ")
                    result.proof = proof
                }
                return
            }
            let writer = try ContainerStage.libsndfileWriter(
                descriptor: try temporaryOutput.descriptor(), path: temporary, source: source, target: target, plan: plan)
            let encoder = EncoderStage.choose(for: source, target: target, options: options, plan: plan)
            let pumped = try encoder.run(
                source: source, writer: writer, temporary: temporary, blockSamples: options.blockSamples,
                isCancelled: isCancelled)
            guard let frames = pumped else { throw ConversionError(.interrupted, Cancellation.reason) }
            if plan?.rate == nil, let headerFrames = source.headerFrames, frames < headerFrames {
                result.warnings.append(
                    "the header declares \(headerFrames) frames but only \(frames) could be read; converted \(frames)")
            }
            if frames == 0 {
                result.warnings.append("no audio frames: the output holds an empty 'data' chunk")
            }
            if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
            let metadata =
                options.stripMetadata
                ? []
                : ContainerStage.metadata(
                    of: source.input, sourceRate: source.exactRate,
                    outputRate: exactRate, outputFrames: UInt64(frames),
                    warnings: &result.warnings)
            let document = try ContainerStage.finish(
                temporary, target: target, channels: channels, sampleRate: exactRate,
                frames: UInt64(frames), metadata: metadata, blockSize: options.blockSamples * 8)
            result.proof = try ProofStage.run(
                temporary, document: document, encoder: encoder, source: source, target: target,
                blockSamples: options.blockSamples, isCancelled: isCancelled)
            if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
            result.bytes = document.file.fileLength
            result.frames = frames
            result.samples = encoder.transfer(from: source)
        }
    }

    /// The frame every road of a job shares: the result is `failed` until `body` returns, then
    /// the temporary output `body` made is committed (the atomic rename) and the result is
    /// `converted`; any error becomes the record's reason and code, a temporary file that was not
    /// committed is deleted (its lock goes when it is freed), and the time is measured.
    static func run(
        _ job: Job, _ body: (inout FileResult, inout FileSystem.TemporaryFile?) throws -> Void
    ) -> FileResult {
        let started = FileSystem.now()
        var result = FileResult(input: job.input, output: job.output, status: .failed)
        var temporaryFile: FileSystem.TemporaryFile? = nil
        do {
            try body(&result, &temporaryFile)
            try temporaryFile?.commit()
            result.status = .converted
        } catch {
            result.record(error as? ConversionError ?? ConversionError(.io, "\(error)"))
        }
        if result.status != .converted { temporaryFile?.discard() }
        result.milliseconds = Double(FileSystem.now() - started) / 1_000_000
        return result
    }
}

import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import WAVEKit

extension FileResult {
    /// Records an IMA4 output that was written and proven: frames, size, proof, and the
    /// warnings every codec gives (a short source, no audio); `isCancelled` is asked before the
    /// report says it was written.
    package mutating func finishIMA4(
        _ done: (frames: Int64, document: CAFDocument, proof: Proof), headerFrames: Int64?, isCancelled: () -> Bool
    ) throws(ConversionError) {
        warnAboutFrames(done.frames, headerFrames: headerFrames, empty: .noFrames)
        if isCancelled() { throw ConversionError.interrupted }
        frames = done.frames
        bytes = done.document.file.fileLength
        proof = done.proof
        samples = .ima4Encoded
    }
}

/// How samples travel from the reader to the writer.
package enum SampleRoute: Equatable {
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

    package init(from source: Encoding, to target: Encoding) {
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

/// Converts one job as a chain of stages, the same for every output encoding: Source
/// (`SourceStage`: open and cross-check the input) -> Transforms, Encoder, Container and Proof,
/// each asked of the job's codec (``OutputCodec``, picked from ``OutputCodecs``) -> Commit
/// (`FileSystem.TemporaryFile`: the atomic rename, in ``run(_:_:)``). Any failure leaves nothing
/// at the output path.
package enum Converter {
    package static func convert(
        _ job: Job, options: ConversionOptions, sequence: Int, cancellation: Cancellation = Cancellation(),
        progress: FrameProgress? = nil
    ) -> FileResult {
        return run(job) { result, temporaryFile in
            // `--loudness`: an output that missed its loudness by what the plan cannot foresee
            // (``LoudnessScan/Retry``) is encoded again from a fresh start, its gain corrected.
            let fresh = result
            var correction = 0.0
            for attempt in 1...LoudnessScan.Retry.attempts {
                do {
                    // The first attempt counted the frames for the progress display.
                    return try attemptJob(
                        job, options: options, correction: correction, cancellation: cancellation,
                        progress: attempt == 1 ? progress : nil, result: &result, temporaryFile: &temporaryFile)
                } catch let error as ConversionError {
                    // A group member keeps the group's gain (its relative level is the point).
                    guard attempt < LoudnessScan.Retry.attempts, options.loudnessTarget != nil,
                        options.loudnessGroupPlan == nil,
                        let retry = LoudnessScan.Retry.after(error, correction: correction)
                    else { throw error }
                    correction = retry.correction
                    result = fresh
                    temporaryFile = nil
                }
            }
        }
    }

    /// One attempt at `job` (see ``convert(_:options:sequence:cancellation:progress:)``).
    private static func attemptJob(
        _ job: Job, options: ConversionOptions, correction: Double, cancellation: Cancellation, progress: FrameProgress?,
        result: inout FileResult, temporaryFile: inout FileSystem.TemporaryFile?
    ) throws {
        // The source, of whatever kind the route table names (`DecodeRoute`), opened once.
        var source = try SourceStage.open(job, options: options, warnings: &result.warnings)
        if options.measuresLevels { source.levelTap = LevelTap() }
        source.frameProgress = progress
        progress?.setTotal(source.headerFrames)
        result.formatIn = source.formatCode
        try source.admits(options, result: &result)
        let codec = OutputCodecs.codec(for: source, options: options)
        // `-o -` with a linear PCM output: streamed, no file to commit.
        if PCMStream.applies(codec, options: options) {
            return try PCMStream.run(
                source, job: job, options: options, result: &result, isCancelled: { cancellation.isCancelled })
        }
        try chain(
            codec, source: source, job: job, options: options, loudnessCorrection: correction, result: &result,
            temporaryFile: &temporaryFile, isCancelled: { cancellation.isCancelled })
    }

    /// Transforms, Encoder, Container and Proof of one job by `codec`, into a temporary file in
    /// the output folder (below the output root no symlink is followed; the file is new, locked
    /// and without a name until its commit, or, where the system cannot, named so that nobody can
    /// guess it).
    package static func chain<Codec: OutputCodec>(
        _ codec: Codec, source: SourceStage, job: Job, options: ConversionOptions, loudnessCorrection: Double = 0,
        result: inout FileResult, temporaryFile: inout FileSystem.TemporaryFile?, isCancelled: @escaping () -> Bool
    ) throws {
        // `--loudness`: the output's channels weighed as its plan and its check both weigh them.
        let outputKinds = LoudnessScan.outputKinds(source, writesLayout: codec is any LibsndfileWriterCodec, options: options)
        func openOutput() throws(ConversionError) -> OutputTarget {
            let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
            let temporary = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output), anonymous: true)
            temporaryFile = temporary
            return OutputTarget(
                temporary: temporary, options: options, isCancelled: isCancelled,
                levelTap: options.measuresLevels ? LevelTap() : nil,
                loudnessTap: options.loudnessTarget == nil ? nil : OutputLoudnessTap(kinds: outputKinds))
        }
        var output = try codec.opensOutputFirst ? openOutput() : nil
        // `--loudness`: the source measured from its own decoding, one static gain planned.
        var options = options
        var shape: TransformPlan? = nil
        if options.loudnessTarget != nil {
            // The job's transform without the gain (its warnings are given by the plan below).
            var ignored = result
            shape = try codec.plan(source, options: options, result: &ignored).transform
        }
        let loudness = try LoudnessScan.plan(
            source, shape: shape, kinds: outputKinds, correction: loudnessCorrection, options: &options, result: &result)
        let plan = try codec.plan(source, options: options, result: &result)
        try source.admits(plan.target)
        if output == nil { output = try openOutput() }
        guard let output else { return }
        let written = try codec.write(plan, from: source, into: output, result: &result)
        source.frameProgress?.finishReading()
        guard let written,
            let proof = try codec.prove(written, plan: plan, source: source, output: output)
        else { throw ConversionError.interrupted }
        if let loudness { try LoudnessScan.check(output.temporary.path, reaches: loudness, tap: output.loudnessTap) }
        try codec.record(written, proof: proof, plan: plan, source: source, into: &result, output: output)
        result.sourceLevels = source.levelTap?.levels
        result.outputLevels = output.levelTap?.levels
    }

    /// The frame every road of a job shares: the result is `failed` until `body` returns, then
    /// the temporary output `body` made is committed (the atomic rename) and the result is
    /// `converted`; any error becomes the record's reason and code, a temporary file that was not
    /// committed is deleted (its lock goes when it is freed), and the time is measured.
    package static func run(
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
            result.record(error as? ConversionError ?? .encoding(.unexpected("\(error)")))
        }
        if result.status != .converted { temporaryFile?.discard() }
        result.milliseconds = Double(FileSystem.now() - started) / 1_000_000
        return result
    }
}

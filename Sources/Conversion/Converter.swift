import AACCodec
import BinaryIO
import CAFKit
import SndFile
import WAVEKit

/// Options that decide what a conversion writes.
public struct ConversionOptions: Sendable, Equatable {
    /// `-d`: the output data format; `nil` keeps the source's format where CAF can hold it.
    public var dataFormat: DataFormat?
    /// `--endian`: the output byte order; `nil` means the `-d` prefix, else little-endian.
    public var endian: EndianChoice?
    /// `-j`: how many files to convert at once.
    public var jobs: Int
    /// Samples (all channels) moved per block; bounds memory per job.
    public var blockSamples: Int
    /// `--force`: convert every input, even when its output is up to date.
    public var force: Bool
    /// `--dry-run` / `--check`: decide what is out of date and write nothing at all.
    public var dryRun: Bool
    /// `--prune`: delete outputs cafconv made whose source is gone.
    public var prune: Bool
    /// Move linear PCM sample bytes without decoding them when the output holds the same samples
    /// (copied by the kernel, byte-swapped or sign-flipped); `false` sends every sample through
    /// libsndfile. The output bytes are the same either way.
    public var directPayload: Bool
    /// `--strip-metadata`: write no loops, markers, regions, instrument or text chunks
    /// (docs/metadata.md); only the chunks the audio needs.
    public var stripMetadata: Bool
    /// `-d FMT@RATE`: the output's sample rate in Hz; `nil` keeps the source's.
    public var sampleRate: Int?
    /// `-c`: the output's channel count; `nil` keeps the source's.
    public var channels: Int?
    /// `--mix` (the default) / `--no-mix`: whether a channel count change mixes (1 → 2 copies, N → 2
    /// and N → 1 downmix by ITU-R BS.775) or keeps the first channels (adding silent ones).
    public var mix: Bool
    /// `--src-quality`: libsoxr's recipe when the rate changes (default VHQ).
    public var srcQuality: RateQuality
    /// `--dither`: TPDF dither where samples become integers of fewer bits (default none).
    public var dither: Dither
    /// `-d ima4`: how hard the IMA4 encoder searches (``IMA4Encoder/Options/standard``, the beam
    /// of 12 states, by default). Part of the fingerprint for IMA4 outputs.
    public var ima4Search: IMA4Encoder.Options = .standard
    /// `-d ima4`: the proof's floor in dB; an IMA4 output whose SNR against the source is lower
    /// (and whose error is louder than ``IMA4Proof/quietError``) fails. See ``IMA4Proof``.
    public var ima4MinimumSNR: Double = IMA4Proof.defaultFloor
    /// `--shard K/N`: convert only this shard's share of the planned files (run-wide; not part of
    /// the fingerprint).
    public var shard: Shard? = nil
    /// `-b`: the total bit rate of `-d aac`, in bits per second; `nil` takes the default for the
    /// source's channel count (64 kb/s per channel, at most AAC's ceiling for the rate).
    public var bitRate: Int?

    /// Creates options; `jobs` defaults to the number of processors.
    public init(
        dataFormat: DataFormat? = nil, endian: EndianChoice? = nil, jobs: Int? = nil, blockSamples: Int = 1 << 16,
        force: Bool = false, dryRun: Bool = false, prune: Bool = false, directPayload: Bool = true,
        sampleRate: Int? = nil, channels: Int? = nil, mix: Bool = true, srcQuality: RateQuality = .vhq,
        dither: Dither = .none,
        stripMetadata: Bool = false, bitRate: Int? = nil
    ) {
        self.bitRate = bitRate
        self.dataFormat = dataFormat
        self.endian = endian
        self.jobs = max(1, jobs ?? FileSystem.processorCount)
        self.blockSamples = max(1, blockSamples)
        self.force = force
        self.dryRun = dryRun
        self.prune = prune
        self.directPayload = directPayload
        self.stripMetadata = stripMetadata
        self.sampleRate = sampleRate
        self.channels = channels
        self.mix = mix
        self.srcQuality = srcQuality
        self.dither = dither
    }

    /// Version of the conversion rules; bump it when the same options would write different bytes,
    /// so every output recorded by an older cafconv is converted again. 2: compressed sources
    /// end at the header's frame count (`fact`), 24-bit samples in 4-byte slots are decoded by
    /// cafconv, and µ-law and A-law codes come from cafconv's G.711 encoder (libsndfile's coded
    /// -32768 as positive full scale). 3: the source's loops, markers and text are written as
    /// `info`, `inst`, `regn`, `mark` and `strg` chunks, and lossy codecs (MP3, Vorbis, Opus; MP3
    /// in WAV was already accepted) are read as the decoder's floats and mapped by the
    /// float-to-integer rule, instead of libsndfile's 16-bit integers.
    public static let rulesVersion = 3

    /// What decides the bytes of an output besides its source: the rules version, the resolved
    /// `-d` format and `--endian`; the rate with `--src-quality` when `@RATE` is given, the
    /// channels with `--mix`/`--no-mix` when `-c` is, `--dither tpdf` and `--strip-metadata`. (Without those options
    /// the text is what it was before they existed, so earlier outputs stay up to date.) `-j` and
    /// the block size change nothing and are left out.
    public var fingerprint: String {
        var format = "source"
        switch dataFormat?.kind {
        case .linearPCM(let bits, let isFloat)?: format = (isFloat ? "F" : "I") + String(bits)
        case .ulaw?: format = "ulaw"
        case .alaw?: format = "alaw"
        case .alac?: format = "alac"
        case .alacBits(let bits)?: format = "alac\(bits)"
        case .ima4?:
            // The encoder's revision and search decide the bytes; the floor decides which files
            // are written at all.
            format =
                "ima4(enc=\(IMA4Stage.encoderRevision),width=\(ima4Search.searchWidth),range=\(ima4Search.codeRange),floor=\(ima4MinimumSNR))"
        case .aac?:
            // The encoder's identity and version decide the bytes as much as the bit rate does
            // (libavcodec is loaded here only for AAC options).
            format = "aac;b=\(bitRate.map(String.init) ?? "default");enc=\(LibAVCodec.encoderIdentity)"
        case nil: break
        }
        let order = dataFormat?.byteOrder.map { $0 == .little ? "LE" : "BE" } ?? ""
        var text = "rules=\(Self.rulesVersion);d=\(order)\(format);endian=\(endian?.rawValue ?? "default")"
        if let sampleRate { text += ";rate=\(sampleRate);src=\(srcQuality.rawValue)" }
        if let channels { text += ";channels=\(channels);mix=\(mix ? "on" : "off")" }
        if dither != .none { text += ";dither=\(dither.rawValue)" }
        if stripMetadata { text += ";meta=strip" }
        return text
    }

    /// Checks that the options agree with each other.
    public func validate() throws(DataFormatError) {
        if let bitRate {
            guard dataFormat?.kind == .aac else { throw DataFormatError("-b sets the bit rate of -d aac; it does nothing for -d \(dataFormat?.text ?? "(source format)")") }
            guard bitRate > 0 else { throw DataFormatError("-b \(bitRate): the bit rate must be positive (bits per second, e.g. 128000)") }
        }
        if dataFormat?.kind == .aac, endian != nil {
            throw DataFormatError("--endian does not apply to -d aac (AAC packets have no byte order)")
        }
        if let endian, endian == .little || endian == .big,
            let problem = dataFormat?.disagreement(withEndian: endian.rawValue)
        {
            throw problem
        }
        if dataFormat?.byteOrder != nil, let endian, endian == .native || endian == .source {
            throw DataFormatError("-d \(dataFormat?.text ?? "") already names a byte order; drop --endian \(endian.rawValue)")
        }
    }
}

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
        // AAC CAF sources: their own route (decoded by libavcodec, written by CAFKit).
        if AACSourceRoute.handles(job.input) { return AACSourceRoute.convert(job, options: options, cancellation: cancellation) }
        if options.dataFormat?.kind == .aac { return AACStage.convertJob(job, options: options, cancellation: cancellation) }
        return run(job) { result, temporaryFile in
            // IMA4 CAF sources: CAFKit decodes them (IMA4Source), libsndfile cannot.
            if let ima4 = try IMA4Source.openChecked(job.input) {
                try ima4.convert(
                    job, options: options, result: &result, temporaryFile: &temporaryFile, cancellation: cancellation)
                return
            }
            let source = try SourceStage.open(job.input, warnings: &result.warnings)
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

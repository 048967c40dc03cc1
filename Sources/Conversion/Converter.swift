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
    /// `-b`: the total bit rate of `-d aac`, in bits per second; `nil` takes the default for the
    /// source's channel count (64 kb/s per channel, at most AAC's ceiling for the rate).
    public var bitRate: Int?

    /// Creates options; `jobs` defaults to the number of processors.
    public init(
        dataFormat: DataFormat? = nil, endian: EndianChoice? = nil, jobs: Int? = nil, blockSamples: Int = 1 << 16,
        force: Bool = false, dryRun: Bool = false, prune: Bool = false, directPayload: Bool = true, bitRate: Int? = nil
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
    }

    /// Version of the conversion rules; bump it when the same options would write different bytes,
    /// so every output recorded by an older cafconv is converted again. 2: compressed sources
    /// end at the header's frame count (`fact`), 24-bit samples in 4-byte slots are decoded by
    /// cafconv, and µ-law and A-law codes come from cafconv's G.711 encoder (libsndfile's coded
    /// -32768 as positive full scale).
    public static let rulesVersion = 2

    /// What decides the bytes of an output besides its source: the rules version, the resolved
    /// `-d` format and `--endian`. `-j` and the block size change nothing and are left out.
    public var fingerprint: String {
        var format = "source"
        switch dataFormat?.kind {
        case .linearPCM(let bits, let isFloat)?: format = (isFloat ? "F" : "I") + String(bits)
        case .ulaw?: format = "ulaw"
        case .alaw?: format = "alaw"
        case .alac?: format = "alac"
        case .aac?:
            // The encoder's identity and version decide the bytes as much as the bit rate does
            // (libavcodec is loaded here only for AAC options).
            format = "aac;b=\(bitRate.map(String.init) ?? "default");enc=\(LibAVCodec.encoderIdentity)"
        case nil: break
        }
        let order = dataFormat?.byteOrder.map { $0 == .little ? "LE" : "BE" } ?? ""
        return "rules=\(Self.rulesVersion);d=\(order)\(format);endian=\(endian?.rawValue ?? "default")"
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
        let started = FileSystem.now()
        var result = FileResult(input: job.input, output: job.output, status: .failed)
        var temporaryFile: FileSystem.TemporaryFile? = nil
        do {
            let source = try SourceStage.open(job.input, warnings: &result.warnings)
            let target = TargetFormat.resolve(
                source: source.encoding, sourceOrder: source.wave.byteOrder,
                dataFormat: options.dataFormat, endian: options.endian)
            result.formatIn = source.formatCode
            result.formatOut = target.description
            result.channels = source.info.channels
            result.sampleRate = source.info.sampleRate

            // Below the output root no symlink is followed; the file is new (O_EXCL), locked and
            // named so that nobody can guess it.
            let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
            let temporaryOutput = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output))
            temporaryFile = temporaryOutput
            let temporary = temporaryOutput.path
            let writer = try ContainerStage.libsndfileWriter(
                descriptor: try temporaryOutput.descriptor(), path: temporary, source: source, target: target)
            let isCancelled = { cancellation.isCancelled }
            let encoder = EncoderStage.choose(for: source, target: target, options: options)
            let pumped = try encoder.run(
                source: source, writer: writer, temporary: temporary, blockSamples: options.blockSamples,
                isCancelled: isCancelled)
            guard let frames = pumped else { throw ConversionError(.interrupted, Cancellation.reason) }
            if let headerFrames = source.headerFrames, frames < headerFrames {
                result.warnings.append(
                    "the header declares \(headerFrames) frames but only \(frames) could be read; converted \(frames)")
            }
            if frames == 0 {
                result.warnings.append("no audio frames: the output holds an empty 'data' chunk")
            }
            if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
            let document = try ContainerStage.finish(
                temporary, target: target, channels: source.info.channels,
                sampleRate: source.info.sampleRate, frames: UInt64(frames))
            result.proof = try ProofStage.run(
                temporary, document: document, encoder: encoder, source: source, target: target,
                blockSamples: options.blockSamples, isCancelled: isCancelled)
            if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
            result.bytes = document.file.fileLength
            result.frames = frames
            result.samples = encoder.transfer(from: source)
            try temporaryOutput.commit()
            result.status = .converted
        } catch {
            result.record(error as? ConversionError ?? ConversionError(.io, "\(error)"))
        }
        // Deletes the temporary file unless it was committed (its lock goes when it is freed).
        if result.status != .converted { temporaryFile?.discard() }
        result.milliseconds = Double(FileSystem.now() - started) / 1_000_000
        return result
    }
}

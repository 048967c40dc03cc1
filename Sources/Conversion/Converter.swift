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

    /// Creates options; `jobs` defaults to the number of processors.
    public init(
        dataFormat: DataFormat? = nil, endian: EndianChoice? = nil, jobs: Int? = nil, blockSamples: Int = 1 << 16,
        force: Bool = false, dryRun: Bool = false, prune: Bool = false, directPayload: Bool = true
    ) {
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
        case nil: break
        }
        let order = dataFormat?.byteOrder.map { $0 == .little ? "LE" : "BE" } ?? ""
        return "rules=\(Self.rulesVersion);d=\(order)\(format);endian=\(endian?.rawValue ?? "default")"
    }

    /// Checks that the options agree with each other.
    public func validate() throws(UsageError) {
        if let endian, endian == .little || endian == .big,
            let problem = dataFormat?.disagreement(withEndian: endian.rawValue)
        {
            throw problem
        }
        if dataFormat?.byteOrder != nil, let endian, endian == .native || endian == .source {
            throw UsageError("-d \(dataFormat?.text ?? "") already names a byte order; drop --endian \(endian.rawValue)")
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

/// Converts one job: read with libsndfile, write a temporary CAF with libsndfile, check it with
/// CAFKit, then rename it into place. Any failure leaves nothing at the output path.
enum Converter {
    static func convert(
        _ job: Job, options: ConversionOptions, sequence: Int, cancellation: Cancellation = Cancellation()
    ) -> FileResult {
        let started = FileSystem.now()
        var result = FileResult(input: job.input, output: job.output, status: .failed)
        var temporaryFile: FileSystem.TemporaryFile? = nil
        do {
            let input: FileByteSource
            let wave: WAVEFile
            do {
                input = try FileByteSource(path: job.input)
                wave = try WAVEFile(reading: input)
            } catch let error as WAVEError {
                throw ConversionError(error.message)
            } catch let error as ByteError {
                throw ConversionError(error.description)
            }
            result.warnings = wave.warnings.map(\.message)

            let reader: SoundFile
            do { reader = try SoundFile.open(readingFrom: job.input) } catch {
                throw ConversionError("libsndfile cannot read it: \(error.message)")
            }
            do { try reader.setNormalisation(false) } catch {
                throw ConversionError("libsndfile cannot read it: \(error.message)")
            }
            let source = reader.info
            // cafconv's own reader decodes linear PCM; libsndfile must read the same samples, or
            // the file is not converted (wide slots, which libsndfile cannot read, excepted).
            var samples = WAVESamples(wave: wave)
            if samples == nil, wave.format.isLinearPCM {
                throw ConversionError(
                    "cafconv's WAV reader cannot decode \(wave.format.bitsPerSample)-bit \(wave.format.isFloat ? "float" : "integer") samples in \(wave.bytesPerFrame)-byte frames of \(wave.format.channels) channels, and the file is not converted on libsndfile's reading alone"
                )
            }
            do { try samples?.settleSlots(in: input) } catch { throw ConversionError(error.message) }
            var probe: SampleProbe?
            if let samples {
                switch try crossCheck(samples, wave: wave, reader: reader, input: input) {
                case .agree(let agreed): probe = agreed
                case .ownReader(let note): result.warnings.append(note)
                }
            }
            let sourceEncoding = samples.map(\.encoding) ?? source.encoding
            // The header's frame count: compressed formats decode to whole blocks, `fact` says how
            // many of those frames are audio.
            // An empty 'data' chunk holds no frames, whatever a decoder makes of the bytes after it.
            let headerFrames: Int64? =
                wave.audioBytes == 0 ? 0 : samples?.frames ?? wave.frames.map { Int64(clamping: $0) }
            if wave.audioBytes == 0, source.frames > 0 {
                result.warnings.append(
                    "the 'data' chunk is empty, but libsndfile reads \(source.frames) frames from the bytes after it; they are not audio: nothing is converted from them"
                )
            }
            let target = TargetFormat.resolve(
                source: sourceEncoding, sourceOrder: wave.byteOrder,
                dataFormat: options.dataFormat, endian: options.endian)
            if case .other = sourceEncoding {
                result.formatIn = wave.formatID
            } else {
                result.formatIn = formatCode(sourceEncoding, wave.byteOrder)
            }
            result.formatOut = target.description
            result.channels = source.channels
            result.sampleRate = source.sampleRate

            // Below the output root no symlink is followed; the file is new (O_EXCL), locked and
            // named so that nobody can guess it.
            let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
            let temporaryOutput = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output))
            temporaryFile = temporaryOutput
            let temporary = temporaryOutput.path
            let descriptor = try temporaryOutput.descriptor()
            let outInfo = SoundInfo(
                sampleRate: source.sampleRate, channels: source.channels, major: .caf,
                encoding: target.encoding,
                endianness: target.byteOrder == .little ? .little : .big)
            let writer: SoundFile
            do {
                writer = try SoundFile.create(descriptor: descriptor, path: temporary, info: outInfo)
                try writer.setAddPeakChunk(false)
                try writer.setNormalisation(false)
                if let map = try reader.channelMap() { try? writer.setChannelMap(map) }
            } catch {
                throw ConversionError("libsndfile cannot write \(target) CAF: \(error.message)")
            }
            let isCancelled = { cancellation.isCancelled }
            var direct: (payload: DirectPayload, probe: SampleProbe)? = nil
            if options.directPayload, let probe,
                let payload = DirectPayload(wave: wave, source: source, target: target, fileLength: input.length)
            {
                direct = (payload, probe)
            }
            // µ-law and A-law: cafconv makes the codes (libsndfile 1.2's encoders flip -32768), or
            // copies them from a source of the same law.
            var g711Copy: G711Copy? = nil
            if direct == nil, let law = G711Law(target.encoding) {
                g711Copy = G711Copy(law: law, source: samples, crossChecked: probe != nil)
            }
            let route = SampleRoute(from: sourceEncoding, to: target.encoding)
            let pumped: Int64?
            do {
                if let direct {
                    // libsndfile writes the header of an empty CAF; the payload follows it.
                    try writer.close()
                    try reader.close()
                    let done = try appendPayload(direct.payload, from: input, to: temporary, isCancelled: isCancelled)
                    pumped = done ? direct.payload.frames : nil
                } else if let g711Copy {
                    pumped = try g711Copy.write(
                        from: input, to: writer, blockSamples: options.blockSamples, isCancelled: isCancelled)
                    try writer.close()
                    try reader.close()
                } else {
                    let audio: SourceAudio
                    if probe == nil, let samples {
                        audio = SourceAudio(samples: samples, source: input, sampleRate: source.sampleRate)
                    } else {
                        if probe != nil { try reader.seek(toFrame: 0) }
                        audio = SourceAudio(reader: reader, limit: headerFrames)
                    }
                    pumped = try pump(
                        from: audio, to: writer, route: route, blockSamples: options.blockSamples,
                        isCancelled: isCancelled)
                    try writer.close()
                    try reader.close()
                }
            } catch let error as SndFileError {
                throw ConversionError("\(error.path == job.input ? "reading" : "writing") failed: \(error.message)")
            } catch let error as ByteError {
                throw ConversionError("reading failed: \(error.description)")
            }
            guard let frames = pumped else { throw ConversionError(Cancellation.reason) }
            if let headerFrames, frames < headerFrames {
                result.warnings.append(
                    "the header declares \(headerFrames) frames but only \(frames) could be read; converted \(frames)")
            }
            if frames == 0 {
                result.warnings.append("no audio frames: the output holds an empty 'data' chunk")
            }
            if cancellation.isCancelled { throw ConversionError(Cancellation.reason) }
            let document = try finish(
                temporary, target: target, channels: source.channels,
                sampleRate: source.sampleRate, frames: UInt64(frames))
            if let direct {
                try checkOutput(temporary, document: document, against: direct.probe)
                result.proof = Proof(comparison: "exact", sourceDecoder: "cafconv", outputDecoder: "cafkit", extent: "ends")
            } else {
                let proofSource: SourceAudio
                if let samples {
                    proofSource = SourceAudio(samples: samples, source: input, sampleRate: source.sampleRate)
                } else {
                    do {
                        let again = try SoundFile.open(readingFrom: job.input)
                        try again.setNormalisation(false)
                        proofSource = SourceAudio(reader: again, limit: headerFrames)
                    } catch {
                        throw ConversionError("libsndfile cannot read it again to check the output: \(error.message)")
                    }
                }
                result.proof = try prove(
                    temporary, document: document, target: target, source: proofSource, codesCopied: g711Copy != nil,
                    blockSamples: options.blockSamples, isCancelled: isCancelled)
                if cancellation.isCancelled { throw ConversionError(Cancellation.reason) }
            }
            result.bytes = document.file.fileLength
            result.frames = frames
            if let direct {
                result.samples = direct.payload.transform.transfer
            } else if g711Copy != nil {
                result.samples = .copied
            } else if case .g711 = route {
                result.samples = .g711Encoded
            } else {
                result.samples = probe == nil && samples != nil ? .cafconv : .libsndfile
            }
            try temporaryOutput.commit()
            result.status = .converted
        } catch {
            result.reason = (error as? ConversionError)?.message ?? "\(error)"
        }
        // Deletes the temporary file unless it was committed (its lock goes when it is freed).
        if result.status != .converted { temporaryFile?.discard() }
        result.milliseconds = Double(FileSystem.now() - started) / 1_000_000
        return result
    }

    /// Moves every frame through the route; returns the number of frames written, or `nil` when
    /// `isCancelled` said stop (it is asked before every block).
    static func pump(
        from source: SourceAudio, to writer: SoundFile, route: SampleRoute,
        blockSamples: Int, isCancelled: () -> Bool = { false }
    ) throws -> Int64? {
        let channels = source.channels
        let blockFrames = max(1, blockSamples / channels)
        var ints = [Int32](repeating: 0, count: blockFrames * channels)
        var doubles = [Double](repeating: 0, count: blockFrames * channels)
        var codes: [UInt8] = []
        if case .g711 = route { codes = [UInt8](repeating: 0, count: blockFrames * channels) }
        var total: Int64 = 0
        while true {
            if isCancelled() { return nil }
            let got: Int
            do { got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames) } catch {
                throw ConversionError(error.message)
            }
            if got == 0 { break }
            switch route {
            case .g711(let law):
                let count = got * channels
                codes.withUnsafeMutableBufferPointer { codes in
                    if source.isFloat {
                        doubles.withUnsafeBufferPointer {
                            law.encode(floats: UnsafeBufferPointer(rebasing: $0[0..<count]), into: codes)
                        }
                    } else {
                        ints.withUnsafeBufferPointer {
                            law.encode(leftJustified: UnsafeBufferPointer(rebasing: $0[0..<count]), into: codes)
                        }
                    }
                }
                try writer.writeRaw(codes[0..<count])
            case .integers: try writer.write(ints, frames: got)
            case .floats: try writer.write(doubles, frames: got)
            case .integersToFloats:
                SampleScaling.integersToFloats(ints, into: &doubles, count: got * channels)
                try writer.write(doubles, frames: got)
            case .floatsToIntegers(let bits):
                SampleScaling.floatsToIntegers(doubles, into: &ints, count: got * channels, bits: bits)
                try writer.write(ints, frames: got)
            }
            total += Int64(got)
        }
        return total
    }

    /// The result of comparing libsndfile's reading of a linear PCM source with cafconv's.
    enum CrossCheck {
        /// Same layout, frames and first and last frames: libsndfile's probe of both ends.
        case agree(SampleProbe)
        /// libsndfile cannot read this layout (wide slots); cafconv's reader is the source, and
        /// the note says so.
        case ownReader(String)
    }

    /// Compares libsndfile's reading of the source with cafconv's own (layout, frames, the first
    /// and last 2048 frames) and throws, naming the disagreement, when they differ.
    static func crossCheck(
        _ samples: WAVESamples, wave: WAVEFile, reader: SoundFile, input: some ByteSource
    ) throws(ConversionError) -> CrossCheck {
        let info = reader.info
        let what = "libsndfile and cafconv's WAV reader disagree about this file"
        if samples.hasWideSlots {
            let place =
                samples.isHighJustified
                ? "in its top bytes, the low bytes being 0" : "in its low bytes, as ALSA writes them"
            return .ownReader(
                "each \(samples.bits)-bit sample sits in a \(samples.slotBytes)-byte slot (block align \(samples.bytesPerFrame)); libsndfile reads packed \(samples.bits)-bit samples here, so cafconv's own WAV reader decoded the slots (each sample \(place))"
            )
        }
        if info.channels != samples.channels {
            throw ConversionError(
                "\(what): libsndfile reads \(info.channels) channels, the 'fmt ' chunk says \(samples.channels); not converted")
        }
        if info.encoding != samples.encoding {
            throw ConversionError(
                "\(what): libsndfile reads \(info.encoding), the 'fmt ' chunk says \(samples.encoding); not converted")
        }
        if info.frames != samples.frames {
            let header =
                wave.audioBytes == 0
                ? "the 'data' chunk is empty (0 bytes)"
                : "the 'data' chunk holds \(samples.frames) frames (\(wave.audioBytes) bytes of \(samples.bytesPerFrame))"
            throw ConversionError("\(what): libsndfile reads \(info.frames) frames, \(header); not converted")
        }
        let probe: SampleProbe?
        do {
            probe = try SampleProbe.read(reader, frames: samples.frames, channels: samples.channels, isFloat: samples.isFloat)
        } catch {
            throw ConversionError("reading failed: \(error.message)")
        }
        guard let probe else {
            throw ConversionError("\(what): libsndfile reads fewer than the \(samples.frames) frames it announces; not converted")
        }
        do {
            if let difference = try probe.firstDifference(from: samples, in: input) {
                throw ConversionError(
                    "\(what): at frame \(difference.frame), channel \(difference.channel) libsndfile decodes \(difference.expected), cafconv \(difference.found); not converted"
                )
            }
        } catch let error as SourceError {
            throw ConversionError(error.message)
        } catch let error as ConversionError {
            throw error
        } catch {
            throw ConversionError("\(error)")
        }
        return .agree(probe)
    }

    /// Decodes the written output (CAFKit for linear PCM, µ-law and A-law, libsndfile for ALAC)
    /// and compares every frame with `source`, after the conversion rule; throws at the first
    /// difference. G.711 codes `codesCopied` from a source of the same law are compared byte for
    /// byte with the source's codes.
    static func prove(
        _ path: String, document: CAFDocument, target: TargetFormat, source: SourceAudio, codesCopied: Bool = false,
        blockSamples: Int, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof {
        let outputBits = target.encoding.bits ?? 16
        var rule = Proof.rule(
            sourceIsFloat: source.isFloat, sourceBits: source.bits, outputIsFloat: target.encoding.isFloat,
            outputBits: outputBits)
        let decoder: OutputProof.OutputDecoder
        var outputDecoder = "cafkit"
        switch target.encoding {
        case .ulaw, .alaw:
            let law: G711Law = target.encoding == .ulaw ? .muLaw : .aLaw
            let desc = document.file.audioDescription
            guard Int(desc.bytesPerPacket) == source.channels, desc.framesPerPacket == 1 else {
                throw ConversionError(
                    "the written CAF failed verification: it does not hold one \(law) code per channel and frame")
            }
            let bytes: FileByteSource
            do { bytes = try FileByteSource(path: path) } catch {
                throw ConversionError("the written CAF cannot be read back: \(error)")
            }
            rule = Proof.rule(sourceLaw: source.law, outputLaw: law)
            decoder = .g711(
                law, bytes, offset: document.file.audioOffset, frames: Int64(document.file.validFrames ?? 0),
                check: OutputProof.G711Check(law: law, sourceLaw: source.law, copied: codesCopied))
        case .alac16, .alac20, .alac24, .alac32:
            do {
                let written = try SoundFile.open(readingFrom: path)
                try written.setNormalisation(false)
                decoder = .libsndfile(written, bits: outputBits)
                outputDecoder = "libsndfile"
            } catch {
                throw ConversionError("cannot check the written \(target): \(error.message)")
            }
        default:
            guard let layout = PCMLayout(document.file.audioDescription) else {
                throw ConversionError("the written CAF failed verification: its samples are not packed linear PCM")
            }
            let bytes: FileByteSource
            do { bytes = try FileByteSource(path: path) } catch {
                throw ConversionError("the written CAF cannot be read back: \(error)")
            }
            decoder = .cafkit(
                layout, bytes, offset: document.file.audioOffset, frames: Int64(document.file.validFrames ?? 0))
        }
        let mismatch: OutputProof.Mismatch?
        do {
            mismatch = try OutputProof.firstMismatch(
                source: source, output: decoder, blockSamples: blockSamples, isCancelled: isCancelled)
        } catch {
            throw ConversionError(error.message)
        }
        if let mismatch {
            if let frames = mismatch.frames {
                throw ConversionError(
                    "the written CAF failed verification: it holds \(frames.found) frames, the source \(frames.expected) (as \(source.decoderName) decodes it)"
                )
            }
            if case .libsndfile = decoder {
                throw ConversionError(
                    "libsndfile's \(target) encoder did not reproduce the audio (frame \(mismatch.frame), channel \(mismatch.channel)); this audio cannot be stored as ALAC by libsndfile \(SoundFile.libraryVersion), use a PCM format"
                )
            }
            throw ConversionError(
                "the written CAF failed verification: frame \(mismatch.frame), channel \(mismatch.channel) holds \(mismatch.found), the source \(mismatch.expected) (as \(source.decoderName) decodes it\(rule.map { ", after rule \($0)" } ?? ""))"
            )
        }
        return Proof(
            comparison: rule == nil ? "exact" : "exact-after-rule", rule: rule, sourceDecoder: source.decoderName,
            outputDecoder: outputDecoder, extent: "every-frame")
    }

    /// Trims libsndfile's stray pad byte, checks the file with CAFKit, and returns its size.
    static func finish(
        _ path: String, target: TargetFormat, channels: Int, sampleRate: Int,
        frames: UInt64
    ) throws(ConversionError) -> CAFDocument {
        var document = try readBack(path)
        // libsndfile pads an odd-length last 'data' chunk with one byte; CAF has no pad bytes.
        if let data = document.file.dataChunk, data == document.file.chunks.last,
            document.file.fileLength == data.end + 1
        {
            try FileSystem.truncate(path, to: data.end)
            document = try readBack(path)
        }
        let problems = Checks.problems(
            document,
            expecting: expectations(
                for: target, channels: channels,
                sampleRate: sampleRate, frames: frames))
        if let first = problems.first {
            throw ConversionError("the written CAF failed verification: \(first)")
        }
        return document
    }

    /// Appends the payload to the empty CAF libsndfile wrote at `path` and sets the size of its
    /// `data` chunk. Returns `false` when cancelled.
    static func appendPayload(
        _ payload: DirectPayload, from input: FileByteSource, to path: String, isCancelled: () -> Bool
    ) throws(ConversionError) -> Bool {
        let output = try FileSystem.openForUpdate(path)
        defer { FileSystem.closeFile(output) }
        // An empty CAF ends with its 'data' chunk: type, size 4 (the edit count alone), edit count.
        let headerLength = try FileSystem.length(of: output)
        guard headerLength >= 16 + CAFFile.headerSize else {
            throw ConversionError("libsndfile wrote a CAF header of \(headerLength) bytes, too short to hold a 'data' chunk")
        }
        var cursor = ByteCursor(try FileSystem.readExactly(output, count: 16, at: headerLength - 16))
        guard (try? cursor.readFourCC()) == .data, (try? cursor.readUInt64(.big)) == 4 else {
            throw ConversionError("libsndfile's empty CAF does not end with an empty 'data' chunk")
        }
        guard try PayloadMover.move(payload, from: input.fileDescriptor, to: output, at: headerLength, isCancelled: isCancelled)
        else { return false }
        var size = ByteWriter()
        size.write(4 + payload.byteCount, .big)
        try FileSystem.writeAll(output, size.bytes, at: headerLength - 12)
        return true
    }

    /// Compares the first and last frames of the written CAF, as CAFKit decodes them, with what
    /// libsndfile read from the source.
    static func checkOutput(_ path: String, document: CAFDocument, against probe: SampleProbe) throws(ConversionError) {
        guard let layout = PCMLayout(document.file.audioDescription) else {
            throw ConversionError("the written CAF failed verification: its samples are not packed linear PCM")
        }
        let difference: (frame: Int64, channel: Int, expected: String, found: String)?
        do {
            difference = try probe.firstDifference(
                in: try FileByteSource(path: path), at: document.file.audioOffset, layout: layout)
        } catch {
            throw ConversionError("the written CAF cannot be read back: \(error)")
        }
        if let difference {
            throw ConversionError(
                "the written CAF failed verification: frame \(difference.frame), channel \(difference.channel) holds \(difference.found), the source \(difference.expected)"
            )
        }
    }

    static func readBack(_ path: String) throws(ConversionError) -> CAFDocument {
        do {
            return try Checks.read(try FileByteSource(path: path))
        } catch {
            throw ConversionError("the written CAF cannot be read back: \(error)")
        }
    }

    /// What the written file must say, derived from the target (not from libsndfile).
    static func expectations(for target: TargetFormat, channels: Int, sampleRate: Int, frames: UInt64) -> CAFExpectations {
        var expected = CAFExpectations(channels: UInt32(channels), sampleRate: Double(sampleRate))
        switch target.encoding {
        case .pcmS8, .pcm16, .pcm24, .pcm32, .float32, .float64:
            expected.formatID = .lpcm
            expected.bitsPerChannel = UInt32(target.encoding.bits ?? 0)
            expected.isFloat = target.encoding.isFloat
            expected.byteOrder = target.byteOrder
            expected.validFrames = frames
        case .ulaw:
            expected.formatID = .ulaw
            expected.validFrames = frames
        case .alaw:
            expected.formatID = .alaw
            expected.validFrames = frames
        case .alac16, .alac20, .alac24, .alac32:
            expected.formatID = .alac
            expected.validFrames = frames
        default: break
        }
        return expected
    }
}

/// The documented mapping between integer and float samples. Integers of N bits map to floats by
/// dividing by 2^(N-1): full scale -2^(N-1) is exactly -1.0 and 2^(N-1)-1 is 1 - 2^-(N-1).
/// Floats map back by multiplying by 2^(N-1), rounding to nearest (ties to even) and clipping.
public enum SampleScaling {
    /// Left-justified 32-bit integers to floats: `x / 2^31`, which is `s / 2^(N-1)` for an N-bit `s`.
    public static func integersToFloats(_ source: [Int32], into target: inout [Double], count: Int) {
        for index in 0..<count { target[index] = float(source[index]) }
    }

    /// One left-justified 32-bit integer as a float: `x / 2^31`.
    @inline(__always) public static func float(_ sample: Int32) -> Double { Double(sample) / 2_147_483_648.0 }

    /// Floats to left-justified integers of `bits` bits: round(x * 2^(bits-1)), clipped, shifted left.
    public static func floatsToIntegers(_ source: [Double], into target: inout [Int32], count: Int, bits: Int) {
        let scale = Double(Int64(1) << (bits - 1))
        let high = scale - 1
        let low = -scale
        let shift = Int32(32 - bits)
        for index in 0..<count {
            var value = (source[index] * scale).rounded(.toNearestOrEven)
            if value.isNaN { value = 0 }
            value = min(max(value, low), high)
            target[index] = Int32(value) << shift
        }
    }
}

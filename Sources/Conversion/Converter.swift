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
    /// so every output recorded by an older cafconv is converted again.
    public static let rulesVersion = 1

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

    init(from source: Encoding, to target: Encoding) {
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
            let target = TargetFormat.resolve(
                source: source.encoding, sourceOrder: wave.byteOrder,
                dataFormat: options.dataFormat, endian: options.endian)
            result.formatIn = formatCode(source.encoding, wave.byteOrder)
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
            if options.directPayload,
                let payload = DirectPayload(wave: wave, source: source, target: target, fileLength: input.length),
                let probe = try agreedProbe(payload, reader: reader, input: input)
            {
                direct = (payload, probe)
            }
            let pumped: Int64?
            do {
                if let direct {
                    // libsndfile writes the header of an empty CAF; the payload follows it.
                    try writer.close()
                    try reader.close()
                    let done = try appendPayload(direct.payload, from: input, to: temporary, isCancelled: isCancelled)
                    pumped = done ? direct.payload.frames : nil
                } else {
                    pumped = try pump(
                        from: reader, to: writer, route: SampleRoute(from: source.encoding, to: target.encoding),
                        blockSamples: options.blockSamples, isCancelled: isCancelled)
                    try writer.close()
                    try reader.close()
                }
            } catch let error as SndFileError {
                throw ConversionError("\(error.path == job.input ? "reading" : "writing") failed: \(error.message)")
            }
            guard let frames = pumped else { throw ConversionError(Cancellation.reason) }
            if frames < source.frames {
                result.warnings.append(
                    "the header declares \(source.frames) frames but only \(frames) could be read; converted \(frames)")
            }
            if frames == 0 {
                result.warnings.append("no audio frames: the output holds an empty 'data' chunk")
            }
            if cancellation.isCancelled { throw ConversionError(Cancellation.reason) }
            if target.encoding.bits != nil, !target.encoding.isLinearPCM {
                // CAFKit does not decode ALAC: prove the lossless claim by decoding it with libsndfile.
                try checkLossless(
                    source: job.input, output: temporary, sourceEncoding: source.encoding,
                    target: target.encoding, blockSamples: options.blockSamples)
            }
            let document = try finish(
                temporary, target: target, channels: source.channels,
                sampleRate: source.sampleRate, frames: UInt64(frames))
            if let direct { try checkOutput(temporary, document: document, against: direct.probe) }
            result.bytes = document.file.fileLength
            result.frames = frames
            result.samples = direct?.payload.transform.transfer ?? .libsndfile
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
        from reader: SoundFile, to writer: SoundFile, route: SampleRoute,
        blockSamples: Int, isCancelled: () -> Bool = { false }
    ) throws(SndFileError) -> Int64? {
        let channels = max(reader.info.channels, 1)
        let blockFrames = max(1, blockSamples / channels)
        var total: Int64 = 0
        switch route {
        case .integers:
            var buffer = [Int32](repeating: 0, count: blockFrames * channels)
            while true {
                if isCancelled() { return nil }
                let got = try reader.read(into: &buffer, frames: blockFrames)
                if got == 0 { break }
                try writer.write(buffer, frames: got)
                total += Int64(got)
            }
        case .floats:
            var buffer = [Double](repeating: 0, count: blockFrames * channels)
            while true {
                if isCancelled() { return nil }
                let got = try reader.read(into: &buffer, frames: blockFrames)
                if got == 0 { break }
                try writer.write(buffer, frames: got)
                total += Int64(got)
            }
        case .integersToFloats:
            var ints = [Int32](repeating: 0, count: blockFrames * channels)
            var doubles = [Double](repeating: 0, count: blockFrames * channels)
            while true {
                if isCancelled() { return nil }
                let got = try reader.read(into: &ints, frames: blockFrames)
                if got == 0 { break }
                SampleScaling.integersToFloats(ints, into: &doubles, count: got * channels)
                try writer.write(doubles, frames: got)
                total += Int64(got)
            }
        case .floatsToIntegers(let bits):
            var doubles = [Double](repeating: 0, count: blockFrames * channels)
            var ints = [Int32](repeating: 0, count: blockFrames * channels)
            while true {
                if isCancelled() { return nil }
                let got = try reader.read(into: &doubles, frames: blockFrames)
                if got == 0 { break }
                SampleScaling.floatsToIntegers(doubles, into: &ints, count: got * channels, bits: bits)
                try writer.write(ints, frames: got)
                total += Int64(got)
            }
        }
        return total
    }

    /// Decodes `output` and `source` side by side and throws at the first sample that differs
    /// (after the same integer/float mapping the conversion used).
    static func checkLossless(
        source: String, output: String, sourceEncoding: Encoding, target: Encoding,
        blockSamples: Int
    ) throws(ConversionError) {
        do {
            let original = try SoundFile.open(readingFrom: source)
            let written = try SoundFile.open(readingFrom: output)
            try original.setNormalisation(false)
            try written.setNormalisation(false)
            let channels = max(original.info.channels, 1)
            let blockFrames = max(1, blockSamples / channels)
            var expected = [Int32](repeating: 0, count: blockFrames * channels)
            var doubles = [Double](repeating: 0, count: sourceEncoding.isFloat ? blockFrames * channels : 0)
            var found = [Int32](repeating: 0, count: blockFrames * channels)
            var frame: Int64 = 0
            while true {
                let got: Int
                if sourceEncoding.isFloat {
                    got = try original.read(into: &doubles, frames: blockFrames)
                    SampleScaling.floatsToIntegers(doubles, into: &expected, count: got * channels, bits: target.bits ?? 24)
                } else {
                    got = try original.read(into: &expected, frames: blockFrames)
                }
                let back = try written.read(into: &found, frames: blockFrames)
                if back != got {
                    throw ConversionError(
                        "the written \(target) holds \(frame + Int64(back)) frames, expected \(frame + Int64(got))")
                }
                if got == 0 { return }
                // Compare at the target's precision: a 16-bit ALAC of an 8-bit source holds the same values.
                let drop = Int32(32 - (target.bits ?? 32))
                for index in 0..<got * channels where expected[index] >> drop != found[index] >> drop {
                    throw ConversionError(
                        "libsndfile's \(target) encoder did not reproduce the audio (frame \(frame + Int64(index / channels)), channel \(index % channels + 1)); this audio cannot be stored as ALAC by libsndfile \(SoundFile.libraryVersion), use a PCM format"
                    )
                }
                frame += Int64(got)
            }
        } catch let error as ConversionError {
            throw error
        } catch {
            throw ConversionError("cannot check the written \(target): \(error)")
        }
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

    /// libsndfile's decode of the payload's first and last frames, when CAFKit decodes the same
    /// samples from the bytes at WAVEKit's offset; otherwise `nil`, with the reader back at frame 0
    /// for the sample pump.
    static func agreedProbe(
        _ payload: DirectPayload, reader: SoundFile, input: some ByteSource
    ) throws(ConversionError) -> SampleProbe? {
        if let probe = try? SampleProbe.read(reader, payload: payload) {
            do {
                if try probe.firstDifference(in: input, at: payload.offset, layout: payload.layout) == nil { return probe }
            } catch {}
        }
        do { try reader.seek(toFrame: 0) } catch {
            throw ConversionError("reading failed: \(error.message)")
        }
        return nil
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
        guard let layout = PCMLayout(document.file.description) else {
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
            expected.frames = frames
        case .ulaw: expected.formatID = .ulaw
        case .alaw: expected.formatID = .alaw
        case .alac16, .alac20, .alac24, .alac32:
            expected.formatID = .alac
            expected.frames = frames
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

import BinaryIO

/// A problem that stops a WAVE file from being read, with the byte offset where it was found.
public struct WAVEError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The absolute byte offset of the problem.
    public var offset: UInt64
    /// One sentence: what was expected and what was found.
    public var message: String

    /// Creates an error.
    public init(at offset: UInt64, _ message: String) {
        self.offset = offset
        self.message = message
    }

    /// The message.
    public var description: String { message }

    static func from(_ error: ByteError, reading what: String) -> WAVEError {
        switch error {
        case .truncated(let offset, let needed, let available):
            return WAVEError(at: offset, "truncated \(what) at byte \(offset): needed \(needed) bytes, found \(available)")
        case .io(_, _, let message):
            return WAVEError(at: 0, "cannot read: \(message)")
        }
    }
}

/// A recoverable oddity in a RIFF file and what the reader did about it.
public struct WAVEWarning: Equatable, Sendable, CustomStringConvertible {
    /// The absolute byte offset the warning is about.
    public var offset: UInt64
    /// One sentence.
    public var message: String

    /// Creates a warning.
    public init(at offset: UInt64, _ message: String) {
        self.offset = offset
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// One chunk of a RIFF file.
public struct RIFFChunk: Equatable, Sendable {
    /// The chunk ID.
    public var type: FourCC
    /// The absolute offset of the chunk header.
    public var offset: UInt64
    /// The size field as written (for RF64, the `ds64` value when the field is 0xFFFFFFFF).
    public var declaredSize: UInt64
    /// The size the reader uses, clamped to the file.
    public var size: UInt64

    /// Creates a chunk entry.
    public init(type: FourCC, offset: UInt64, declaredSize: UInt64, size: UInt64) {
        self.type = type
        self.offset = offset
        self.declaredSize = declaredSize
        self.size = size
    }

    /// The absolute offset of the chunk body.
    public var bodyOffset: UInt64 { offset + 8 }
}

/// A RIFF/WAVE, RIFX or RF64 file as a tolerant reader sees it: chunks, format and audio extent.
/// Reading costs O(chunks); audio is never loaded.
public struct WAVEFile: Sendable {
    /// RIFF, RIFX or RF64.
    public var container: Container
    /// Every chunk in file order.
    public var chunks: [RIFFChunk]
    /// The `fmt ` chunk.
    public var format: WAVEFormat
    /// The absolute offset of the first audio byte.
    public var audioOffset: UInt64
    /// Audio bytes present in the file (the declared `data` size clamped to the file).
    public var audioBytes: UInt64
    /// The `data` size as declared.
    public var declaredAudioBytes: UInt64
    /// The byte order of sizes and samples.
    public var byteOrder: ByteOrder
    /// Recoverable problems.
    public var warnings: [WAVEWarning]

    /// The `fact` chunk's sample length (frames per channel), when there is one.
    public var factSampleLength: UInt32?
    /// The `ds64` chunk of an RF64 file.
    public var ds64: DataSize64?
    /// Every `LIST` chunk the reader parsed, in file order.
    public var lists: [ListChunk] = []
    /// The `bext` chunk of a Broadcast Wave file.
    public var broadcast: BroadcastExtension?
    /// The `smpl` chunk.
    public var sampler: SamplerInfo?
    /// The points of the `cue ` chunk.
    public var cuePoints: [CuePoint] = []

    /// Frames of audio in the file, from the header.
    ///
    /// Linear PCM and G.711 (one frame per block): the whole blocks in the `data` bytes present.
    /// Other codecs (ADPCM, GSM 6.10, MPEG...): the `fact` chunk's sample length, which leaves out
    /// the decoder's padding of the last block, at most what the blocks present can hold when the
    /// frames per block are known; without `fact`, the whole blocks times the frames per block.
    /// `nil` when the header does not say.
    public var frames: UInt64? {
        guard format.blockAlign > 0 else { return nil }
        if format.isLinearPCM || format.isG711 { return audioBytes / bytesPerFrame }
        let blocks = audioBytes / UInt64(format.blockAlign)
        let capacity = blockCapacity
        if let fact = factSampleLength {
            return capacity.map { min(UInt64(fact), $0) } ?? UInt64(fact)
        }
        guard let perBlock = format.samplesPerBlock, perBlock > 0 else { return nil }
        return blocks * UInt64(perBlock)
    }

    /// Bytes per frame: the block align, except that linear PCM frames are never smaller than
    /// their packed samples (channels x whole bytes per sample; a block align below that is a
    /// header mistake, with a warning, and libsndfile ignores it too).
    public var bytesPerFrame: UInt64 {
        let align = UInt64(format.blockAlign)
        guard format.isLinearPCM else { return max(align, 1) }
        return max(align, packedFrameBytes, 1)
    }

    /// Channels x whole bytes per sample.
    var packedFrameBytes: UInt64 { UInt64(format.channels) * ((UInt64(format.bitsPerSample) + 7) / 8) }

    /// For block codecs whose frames per block are known: the frames the `data` bytes present can
    /// hold, counting a partial last block as a whole one.
    var blockCapacity: UInt64? {
        guard format.blockAlign > 0, let perBlock = format.samplesPerBlock, perBlock > 0 else { return nil }
        let blocks = (audioBytes + UInt64(format.blockAlign) - 1) / UInt64(format.blockAlign)
        return blocks * UInt64(perBlock)
    }

    /// Every `LIST`/`INFO` entry, in file order.
    public var info: [InfoEntry] { lists.flatMap(\.info) }

    /// Every `LIST`/`INFO` entry as text pairs such as `("ISFT", "Lavf58.76.100")`.
    public var infoStrings: [(key: String, value: String)] { info.map { ($0.key.description, $0.value) } }

    /// The `labl`, `note` and `ltxt` entries of every `LIST`/`adtl` chunk.
    public var associatedData: AssociatedData {
        var merged = AssociatedData()
        for list in lists {
            merged.labels += list.associatedData.labels
            merged.notes += list.associatedData.notes
            merged.labeledTexts += list.associatedData.labeledTexts
        }
        return merged
    }

    /// Chunks this reader does not interpret (kept with type, offset and size).
    public var unknownChunks: [RIFFChunk] { chunks.filter { !WAVEFile.knownTypes.contains($0.type) } }

    /// The format as a four-character code in the style of CAF: `lpcm` for integer and float
    /// PCM, `ulaw`, `alaw`, else a short lowercase name of the WAVE format tag.
    public var formatID: String { format.formatID }
    /// Bits per sample of the container (`wBitsPerSample`) for linear PCM, `nil` otherwise.
    public var bitsPerChannel: Int? { format.isLinearPCM ? Int(format.bitsPerSample) : nil }
    /// Valid bits per sample: `wValidBitsPerSample` of WAVE_FORMAT_EXTENSIBLE when it is not 0,
    /// else the container size; `nil` when not linear PCM.
    public var validBitsPerSample: Int? {
        guard format.isLinearPCM else { return nil }
        if let valid = format.validBitsPerSample, valid > 0 { return Int(valid) }
        return Int(format.bitsPerSample)
    }
    /// Whether the samples are IEEE floats.
    public var isFloat: Bool { format.isFloat }
    /// The byte order of the samples, `nil` when they are not linear PCM.
    public var sampleByteOrder: ByteOrder? { format.isLinearPCM ? byteOrder : nil }

    /// The chunks this reader interprets: the structure and the metadata.
    static let knownTypes = metadataTypes + [FourCC("fmt "), FourCC("data"), FourCC("ds64")]

    /// Reads the chunk table, `fmt `, the `data` extent and the metadata chunks of a WAVE file.
    public init(reading source: some ByteSource) throws(WAVEError) {
        let length = source.length
        guard length > 0 else { throw WAVEError(at: 0, "empty file (0 bytes)") }
        let (container, riffSize) = try Self.readHeader(source)
        self.container = container
        let order: ByteOrder = container == .rifx ? .big : .little
        byteOrder = order
        let table = try ChunkWalker.walk(source, from: 12, order: order, rf64: container == .rf64)
        var warnings = Self.sizeWarnings(container, riffSize: riffSize, ds64: table.ds64, length: length)
        let chunks = table.chunks
        ds64 = table.ds64
        warnings += table.warnings
        self.chunks = chunks

        guard let fmt = chunks.first(where: { $0.type == FourCC("fmt ") }) else {
            throw WAVEError(at: 12, ChunkWalker.missing("fmt ", among: chunks))
        }
        format = try Self.readFormat(fmt, of: source, order: order, warnings: &warnings)
        guard let data = chunks.first(where: { $0.type == FourCC("data") }) else {
            throw WAVEError(at: 12, ChunkWalker.missing("data", among: chunks))
        }
        audioOffset = data.bodyOffset
        audioBytes = data.size
        declaredAudioBytes = data.declaredSize
        try Self.checkFormat(format, of: fmt)
        warnings += Self.frameWarnings(format, of: fmt, data: data)
        if chunks.filter({ $0.type == FourCC("data") }).count > 1 {
            warnings.append(WAVEWarning(at: data.offset, "more than one 'data' chunk; the first is used"))
        }
        self.warnings = warnings
        readMetadata(source, order: order)
        if let fact = factSampleLength, let capacity = blockCapacity, UInt64(fact) > capacity,
            let chunk = chunks.first(where: { $0.type == FourCC("fact") })
        {
            self.warnings.append(
                WAVEWarning(
                    at: chunk.offset,
                    "'fact' declares \(fact) frames but the 'data' blocks hold at most \(capacity); \(capacity) used"))
        }
    }

    /// The container of the 12-byte RIFF header and its size field.
    static func readHeader(_ source: some ByteSource) throws(WAVEError) -> (Container, riffSize: UInt32) {
        let prefix: [UInt8]
        do { prefix = try source.read(at: 0, count: 12) } catch { throw WAVEError.from(error, reading: "RIFF header") }
        if prefix.count < 12, prefix.count >= 4,
            ["RIFF", "RIFX", "RF64", "BW64"].contains(FourCC(bytes: prefix[0], prefix[1], prefix[2], prefix[3]).description)
        {
            throw WAVEError(at: 0, "truncated RIFF header: the file is \(prefix.count) bytes, a header needs 12")
        }
        guard let container = Container.detect(prefix) else {
            throw WAVEError(at: 0, "not a RIFF/WAVE file (\(WAVEFile.describePrefix(prefix)))")
        }
        guard container.isWAVE else {
            throw WAVEError(at: 0, "not a RIFF/WAVE file: the content is \(container.displayName)")
        }
        var header = ByteCursor(prefix)
        do {
            try header.skip(4)
            return (container, try header.readUInt32(container == .rifx ? .big : .little))
        } catch {
            throw WAVEError.from(error, reading: "RIFF header")
        }
    }

    /// Where the header's size (or an RF64 file's `ds64` size) disagrees with the file's length.
    static func sizeWarnings(_ container: Container, riffSize: UInt32, ds64: DataSize64?, length: UInt64) -> [WAVEWarning] {
        var warnings: [WAVEWarning] = []
        if container == .rf64 {
            if ds64 == nil {
                warnings.append(WAVEWarning(at: 12, "RF64 file without a 'ds64' chunk first; 32-bit sizes used"))
            }
            if riffSize == 0xFFFF_FFFF, let ds64 {
                if ds64.riffSize != length - 8 {
                    warnings.append(
                        WAVEWarning(at: 20, "'ds64' RIFF size says the file is \(ds64.riffSize &+ 8) bytes, but it is \(length)"))
                }
            } else if UInt64(riffSize) + 8 != length {
                warnings.append(
                    WAVEWarning(at: 4, "RF64 size says the file is \(UInt64(riffSize) + 8) bytes, but it is \(length)"))
            }
        } else if riffSize == 0xFFFF_FFFF {
            warnings.append(WAVEWarning(at: 4, "RIFF size is 0xFFFFFFFF (unknown length); the file is \(length) bytes"))
        } else if UInt64(riffSize) + 8 != length {
            warnings.append(WAVEWarning(at: 4, "RIFF size says the file is \(UInt64(riffSize) + 8) bytes, but it is \(length)"))
        }
        return warnings
    }

    /// Parses the `fmt ` chunk; an extension that does not fit is ignored, with a warning.
    static func readFormat(_ fmt: RIFFChunk, of source: some ByteSource, order: ByteOrder, warnings: inout [WAVEWarning])
        throws(WAVEError) -> WAVEFormat
    {
        guard fmt.size >= 16 else {
            throw WAVEError(at: fmt.offset, "'fmt ' chunk is \(fmt.size) bytes, expected at least 16")
        }
        let format: WAVEFormat
        do {
            var body = try source.cursor(at: fmt.bodyOffset, count: Int(min(fmt.size, 64)))
            format = try WAVEFormat(parsing: &body, order: order)
        } catch {
            throw WAVEError.from(error, reading: "'fmt ' chunk")
        }
        if let extra = format.extensionSize, UInt64(extra) > fmt.size - 18 {
            warnings.append(
                WAVEWarning(
                    at: fmt.bodyOffset + 16,
                    "'fmt ' extension size (cbSize) is \(extra) but the chunk holds \(fmt.size - 18) bytes after it; extension ignored"
                ))
        }
        if format.formatTag == WAVEFormat.extensible, format.subFormat == nil {
            warnings.append(
                WAVEWarning(
                    at: fmt.offset,
                    "WAVE_FORMAT_EXTENSIBLE 'fmt ' chunk is \(fmt.size) bytes, too short for its 22-byte extension"))
        }
        return format
    }

    /// Refuses a format whose frames have no size or no rate.
    static func checkFormat(_ format: WAVEFormat, of fmt: RIFFChunk) throws(WAVEError) {
        if format.channels == 0 { throw WAVEError(at: fmt.bodyOffset + 2, "'fmt ' chunk declares 0 channels") }
        if format.sampleRate == 0 { throw WAVEError(at: fmt.bodyOffset + 4, "'fmt ' chunk declares a sample rate of 0") }
        if format.isLinearPCM, format.bitsPerSample == 0 {
            throw WAVEError(at: fmt.bodyOffset + 14, "'fmt ' chunk declares 0 bits per sample")
        }
        if format.blockAlign == 0 { throw WAVEError(at: fmt.bodyOffset + 12, "'fmt ' chunk declares a block align of 0") }
    }

    /// Linear PCM whose block align is smaller than its packed samples, or whose `data` is not a
    /// whole number of frames.
    static func frameWarnings(_ format: WAVEFormat, of fmt: RIFFChunk, data: RIFFChunk) -> [WAVEWarning] {
        guard format.isLinearPCM else { return [] }
        var warnings: [WAVEWarning] = []
        let packedFrameBytes = UInt64(format.channels) * ((UInt64(format.bitsPerSample) + 7) / 8)
        let bytesPerFrame = max(UInt64(format.blockAlign), packedFrameBytes, 1)
        if UInt64(format.blockAlign) < packedFrameBytes {
            warnings.append(
                WAVEWarning(
                    at: fmt.bodyOffset + 12,
                    "'fmt ' block align is \(format.blockAlign), too small for \(format.channels) channels of \(format.bitsPerSample)-bit samples; \(packedFrameBytes)-byte frames used"
                ))
        }
        if data.size % bytesPerFrame != 0 {
            warnings.append(
                WAVEWarning(
                    at: data.offset,
                    "'data' holds \(data.size) bytes, not a whole number of \(bytesPerFrame)-byte frames; the partial frame is dropped"
                ))
        }
        return warnings
    }

    /// The chunks the metadata pass reads (`fmt `, `data` and `ds64` are read before it).
    static let metadataTypes = [FourCC("fact"), FourCC("LIST"), FourCC("bext"), FourCC("smpl"), FourCC("cue ")]

    private mutating func readMetadata(_ source: some ByteSource, order: ByteOrder) {
        warnings += ChunkWalker.readMetadata(chunks, types: Self.metadataTypes, in: source) { chunk, body in
            switch chunk.type {
            case FourCC("fact"):
                if factSampleLength == nil { factSampleLength = try body.readUInt32(order) }
            case FourCC("LIST"):
                let list = try ListChunk(parsing: &body, order: order)
                lists.append(list)
                if list.truncatedEntries > 0 {
                    return
                        "'LIST'/'\(list.listType.trimmed)' chunk has \(list.truncatedEntries) entries cut short; they are ignored"
                }
            case FourCC("bext"):
                if broadcast == nil { broadcast = try BroadcastExtension(parsing: &body, order: order) }
            case FourCC("smpl"):
                let info = try SamplerInfo(parsing: &body, order: order)
                if sampler == nil { sampler = info }
                if UInt64(info.loops.count) < UInt64(info.declaredLoopCount) {
                    return "'smpl' chunk declares \(info.declaredLoopCount) loops but holds \(info.loops.count)"
                }
            case FourCC("cue "):
                let (points, count) = try CuePoint.parseList(&body, order: order)
                if cuePoints.isEmpty { cuePoints = points }
                if UInt64(points.count) < UInt64(count) {
                    return "'cue ' chunk declares \(count) points but holds \(points.count)"
                }
            default:
                break
            }
            return nil
        }
    }

    static func describePrefix(_ prefix: [UInt8]) -> String {
        if prefix.isEmpty { return "empty file" }
        if prefix.count < 12 { return "only \(prefix.count) bytes" }
        let head = FourCC(bytes: prefix[0], prefix[1], prefix[2], prefix[3])
        return "starts with '\(head)'"
    }
}

import BinaryIO

/// An AIFF or AIFF-C file as a tolerant reader sees it: chunks, `COMM`, the `SSND` extent and the
/// metadata chunks. Reading costs O(chunks); audio is never loaded.
public struct AIFFFile: Sendable {
    /// `.aiff` or `.aifc`.
    public var container: Container
    /// Every chunk in file order (sizes as declared and as clamped to the file).
    public var chunks: [RIFFChunk]
    /// The `COMM` chunk.
    public var common: AIFFCommon
    /// The `SSND` offset field: bytes between the block-size field and the first sample.
    public var soundDataOffset: UInt32
    /// The `SSND` block size field.
    public var blockSize: UInt32
    /// The absolute offset of the first audio byte.
    public var audioOffset: UInt64
    /// Audio bytes present in the file after `audioOffset` within `SSND`, clamped to the file.
    public var audioBytes: UInt64
    /// Recoverable problems.
    public var warnings: [WAVEWarning]
    /// The markers of the `MARK` chunk.
    public var markers: [AIFFMarker] = []
    /// The `INST` chunk.
    public var instrument: AIFFInstrument?
    /// The `FVER` timestamp (AIFF-C version, normally 0xA2805140).
    public var formatVersion: UInt32?
    /// The text chunks (`NAME`, `AUTH`, `(c) `, `ANNO`) in file order.
    public var texts: [AIFFText] = []
    /// The comments of the `COMT` chunk.
    public var comments: [AIFFComment] = []

    /// The chunks this reader interprets: the structure and the metadata.
    static let knownTypes = metadataTypes + [FourCC("COMM"), FourCC("SSND")]

    /// Chunks this reader does not interpret (kept with type, offset and size).
    public var unknownChunks: [RIFFChunk] { chunks.filter { !AIFFFile.knownTypes.contains($0.type) } }

    /// Sample frames, from `COMM` numSampleFrames: for linear PCM and G.711 it counts frames;
    /// for AIFF-C codecs that pack frames into packets it counts packets (Apple's AIFF-C files
    /// store the packet count there), so it is multiplied by the frames per packet (`ima4`: 64,
    /// `MAC3`/`MAC6`: 6).
    public var frames: UInt64 { UInt64(common.sampleFrames) * UInt64(framesPerPacket) }

    /// Frames per `COMM` count: 1 except for the packet codecs above.
    public var framesPerPacket: Int {
        switch common.compressionType {
        case FourCC("ima4"): return 64
        case FourCC("MAC3"), FourCC("MAC6"): return 6
        default: return 1
        }
    }
    /// Channels.
    public var channels: Int { Int(common.channels) }
    /// The sample rate in Hz.
    public var sampleRate: Double { common.sampleRate }
    /// The `COMM` compression type (`NONE` for plain AIFF).
    public var compressionType: FourCC { common.compressionType }

    /// The format as a CAF-style code: `lpcm` for all linear PCM (`NONE`, `twos`, `sowt`, `raw `,
    /// `in24`, `in32`, `23ni`, `42ni`, `fl32`, `fl64`), `ulaw`, `alaw`, `ima4`, else the
    /// compression type with trailing spaces trimmed.
    public var formatID: String {
        switch sampleLayout {
        case .some: return "lpcm"
        case .none:
            switch common.compressionType {
            case FourCC("ulaw"), FourCC("ULAW"): return "ulaw"
            case FourCC("alaw"), FourCC("ALAW"): return "alaw"
            default: return common.compressionType.trimmed
            }
        }
    }

    /// Whether the samples are IEEE floats.
    public var isFloat: Bool { sampleLayout?.isFloat ?? false }
    /// The byte order of the samples, `nil` when they are not linear PCM.
    public var byteOrder: ByteOrder? { sampleLayout?.order }
    /// Bits per sample for linear PCM (32 or 64 for floats), `nil` otherwise.
    public var bitsPerChannel: Int? { sampleLayout?.bits }

    /// How linear PCM samples are stored, or `nil` for compressed formats.
    var sampleLayout: (order: ByteOrder, isFloat: Bool, bits: Int)? {
        let size = Int(common.sampleSize)
        switch common.compressionType {
        case FourCC("NONE"), FourCC("twos"), FourCC("raw "): return (.big, false, size)
        case FourCC("sowt"): return (.little, false, size)
        case FourCC("in24"): return (.big, false, 24)
        case FourCC("in32"): return (.big, false, 32)
        case FourCC("23ni"): return (.little, false, 24)
        case FourCC("42ni"): return (.little, false, 32)
        case FourCC("fl32"), FourCC("FL32"): return (.big, true, 32)
        case FourCC("fl64"), FourCC("FL64"): return (.big, true, 64)
        default: return nil
        }
    }

    /// Reads the chunk table, `COMM`, the `SSND` extent and the metadata chunks of an AIFF or
    /// AIFF-C file.
    public init(reading source: some ByteSource) throws(WAVEError) {
        let length = source.length
        guard length > 0 else { throw WAVEError(at: 0, "empty file (0 bytes)") }
        let (container, formSize) = try Self.readHeader(source)
        self.container = container
        var warnings: [WAVEWarning] = []
        if formSize + 8 != length {
            warnings.append(WAVEWarning(at: 4, "FORM size says the file is \(formSize + 8) bytes, but it is \(length)"))
        }
        let table = try ChunkWalker.walk(source, from: 12, order: .big, rf64: false)
        warnings += table.warnings
        chunks = table.chunks

        guard let comm = chunks.first(where: { $0.type == FourCC("COMM") }) else {
            throw WAVEError(at: 12, ChunkWalker.missing("COMM", among: chunks))
        }
        common = try Self.readCommon(comm, of: source, container: container, warnings: &warnings)
        soundDataOffset = 0
        blockSize = 0
        audioOffset = 0
        audioBytes = 0
        if let ssnd = chunks.first(where: { $0.type == FourCC("SSND") }) {
            (soundDataOffset, blockSize, audioOffset, audioBytes) = try Self.readSoundData(
                ssnd, of: source, warnings: &warnings)
        } else if common.sampleFrames > 0 {
            throw WAVEError(
                at: 12, ChunkWalker.missing("SSND", among: chunks) + ", but 'COMM' declares \(common.sampleFrames) frames")
        }
        self.warnings = warnings
        if let layout = sampleLayout, layout.bits > 0 {
            let frameBytes = UInt64(common.channels) * UInt64((layout.bits + 7) / 8)
            let needed = frameBytes * UInt64(common.sampleFrames)
            if needed > audioBytes {
                self.warnings.append(
                    WAVEWarning(
                        at: audioOffset,
                        "'COMM' declares \(common.sampleFrames) frames (\(needed) bytes) but 'SSND' holds \(audioBytes) audio bytes"
                    ))
            }
        }
        readMetadata(source)
    }

    /// The container of the 12-byte FORM header and its size field.
    static func readHeader(_ source: some ByteSource) throws(WAVEError) -> (Container, formSize: UInt64) {
        let prefix: [UInt8]
        do { prefix = try source.read(at: 0, count: 12) } catch { throw WAVEError.from(error, reading: "FORM header") }
        if prefix.count < 12, prefix.count >= 4, FourCC(bytes: prefix[0], prefix[1], prefix[2], prefix[3]) == FourCC("FORM") {
            throw WAVEError(at: 0, "truncated FORM header: the file is \(prefix.count) bytes, a header needs 12")
        }
        guard let container = Container.detect(prefix) else {
            throw WAVEError(at: 0, "not an AIFF file (\(WAVEFile.describePrefix(prefix)))")
        }
        guard container == .aiff || container == .aifc else {
            throw WAVEError(at: 0, "not an AIFF file: the content is \(container.displayName)")
        }
        let formSize = UInt64(prefix[4]) << 24 | UInt64(prefix[5]) << 16 | UInt64(prefix[6]) << 8 | UInt64(prefix[7])
        return (container, formSize)
    }

    /// Parses `COMM`, refusing one without channels, a rate or (for PCM) a sample size.
    static func readCommon(_ comm: RIFFChunk, of source: some ByteSource, container: Container, warnings: inout [WAVEWarning])
        throws(WAVEError) -> AIFFCommon
    {
        let common: AIFFCommon
        do {
            var body = try ChunkWalker.body(of: comm, in: source, cap: 4096)
            common = try AIFFCommon(parsing: &body, aifc: container == .aifc)
        } catch {
            throw WAVEError.from(error, reading: "'COMM' chunk")
        }
        if container == .aifc, comm.size < 22 {
            warnings.append(WAVEWarning(at: comm.offset, "AIFF-C 'COMM' chunk has no compression type; NONE assumed"))
        }
        if common.channels <= 0 {
            throw WAVEError(at: comm.bodyOffset, "'COMM' chunk declares \(common.channels) channels")
        }
        if !(common.sampleRate > 0) || !common.sampleRate.isFinite {
            throw WAVEError(at: comm.bodyOffset + 8, "'COMM' chunk declares a sample rate of \(common.sampleRate)")
        }
        if AIFFFile.needsSampleSize(common), common.sampleSize <= 0 {
            throw WAVEError(at: comm.bodyOffset + 6, "'COMM' chunk declares \(common.sampleSize) bits per sample")
        }
        return common
    }

    /// The `SSND` header (offset and block size) and where its audio lies; an offset past the
    /// chunk leaves no audio, with a warning.
    static func readSoundData(_ ssnd: RIFFChunk, of source: some ByteSource, warnings: inout [WAVEWarning])
        throws(WAVEError) -> (soundDataOffset: UInt32, blockSize: UInt32, audioOffset: UInt64, audioBytes: UInt64)
    {
        let soundDataOffset: UInt32
        let blockSize: UInt32
        do {
            var body = try ChunkWalker.body(of: ssnd, in: source, cap: 8)
            soundDataOffset = try body.readUInt32(.big)
            blockSize = try body.readUInt32(.big)
        } catch {
            throw WAVEError.from(error, reading: "'SSND' chunk")
        }
        let space = ssnd.size - 8
        guard UInt64(soundDataOffset) <= space else {
            warnings.append(
                WAVEWarning(
                    at: ssnd.bodyOffset, "'SSND' offset \(soundDataOffset) points past the chunk's \(space) data bytes; no audio")
            )
            return (soundDataOffset, blockSize, ssnd.bodyOffset + ssnd.size, 0)
        }
        return (soundDataOffset, blockSize, ssnd.bodyOffset + 8 + UInt64(soundDataOffset), space - UInt64(soundDataOffset))
    }

    private static func needsSampleSize(_ common: AIFFCommon) -> Bool {
        [FourCC("NONE"), FourCC("twos"), FourCC("sowt"), FourCC("raw ")].contains(common.compressionType)
    }

    /// The chunks the metadata pass reads (`COMM` and `SSND` are read before it).
    static let metadataTypes = [
        FourCC("MARK"), FourCC("INST"), FourCC("FVER"), FourCC("NAME"), FourCC("AUTH"), FourCC("(c) "), FourCC("ANNO"),
        FourCC("COMT"),
    ]

    private mutating func readMetadata(_ source: some ByteSource) {
        warnings += ChunkWalker.readMetadata(chunks, types: Self.metadataTypes, in: source) { chunk, body in
            switch chunk.type {
            case FourCC("MARK"):
                let (list, count) = try AIFFMarker.parseList(&body)
                if markers.isEmpty { markers = list }
                if list.count < Int(count) { return "'MARK' chunk declares \(count) markers but holds \(list.count)" }
            case FourCC("INST"):
                if instrument == nil { instrument = try AIFFInstrument(parsing: &body) }
            case FourCC("FVER"):
                if formatVersion == nil { formatVersion = try body.readUInt32(.big) }
            case FourCC("NAME"), FourCC("AUTH"), FourCC("(c) "), FourCC("ANNO"):
                texts.append(AIFFText(type: chunk.type, text: ChunkText.decode(body.readRest())))
            case FourCC("COMT"):
                comments += try AIFFComment.parseList(&body)
            default:
                break
            }
            return nil
        }
    }
}

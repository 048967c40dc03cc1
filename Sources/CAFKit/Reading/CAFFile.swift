import BinaryIO

/// A recoverable oddity the reader found and worked around.
public struct CAFWarning: Equatable, Sendable, CustomStringConvertible {
    /// The absolute byte offset the warning is about.
    public var offset: UInt64
    /// One sentence: what was found and what the reader did about it.
    public var message: String

    /// Creates a warning.
    public init(at offset: UInt64, _ message: String) {
        self.offset = offset
        self.message = message
    }

    /// `at byte N: message`.
    public var description: String { "at byte \(offset): \(message)" }
}

/// A CAF file as the tolerant reader sees it: the chunk table, the audio description and where
/// the audio is. Reading costs O(chunks): audio bytes are never loaded.
public struct CAFFile: Sendable {
    /// The size of the file header (`caff`, version, flags).
    public static let headerSize: UInt64 = 8
    /// The most chunks read from one file (real files hold a handful): past it the rest of the
    /// file is not read, with a warning, so memory and time stay bounded.
    public static let maximumChunks = 1 << 16

    /// The file version from the header (1 for every CAF file so far).
    public var version: UInt16
    /// The file flags from the header (0).
    public var flags: UInt16
    /// Every chunk in file order.
    public var chunks: [ChunkHeader]
    /// The audio description from the first `desc` chunk.
    public var audioDescription: AudioDescription
    /// The edit count from the start of the `data` chunk.
    public var editCount: UInt32
    /// The absolute offset of the first audio byte (after the edit count).
    public var audioOffset: UInt64
    /// The number of audio bytes the reader uses (clamped to the file).
    public var audioBytes: UInt64
    /// Recoverable problems, in file order.
    public var warnings: [CAFWarning]
    /// The file length when it was read.
    public var fileLength: UInt64
    /// The fixed fields of the first `pakt` chunk, when there is one of at least 24 bytes.
    public var packetTableHeader: PacketTableHeader?

    /// The `data` chunk entry.
    public var dataChunk: ChunkHeader? { chunks.first { $0.type == .data } }

    /// Where the (first) `desc` chunk starts, or where it should: right after the file header.
    public var audioDescriptionOffset: UInt64 { chunks.first { $0.type == .desc }?.offset ?? CAFFile.headerSize }

    /// The number of whole frames of linear PCM audio, or `nil` for other formats.
    public var linearPCMFrames: UInt64? {
        guard let bytesPerFrame = audioDescription.bytesPerFrame else { return nil }
        return audioBytes / UInt64(bytesPerFrame)
    }

    /// The number of frames in whole constant-size packets: audio bytes / bytes per packet x frames
    /// per packet (linear PCM, `ulaw`/`alaw` at 1 byte per channel and frame, `ima4` at 64 frames in
    /// 34 bytes per channel...); `nil` when packets vary in size or duration.
    public var constantPacketFrames: UInt64? {
        if let linear = linearPCMFrames { return linear }
        guard audioDescription.bytesPerPacket > 0, audioDescription.framesPerPacket > 0 else { return nil }
        let packets = audioBytes / UInt64(audioDescription.bytesPerPacket)
        let (frames, overflow) = packets.multipliedReportingOverflow(by: UInt64(audioDescription.framesPerPacket))
        return overflow ? nil : frames
    }

    /// The number of valid frames: the `pakt` valid-frame count when there is a packet table,
    /// else the frames in the whole constant-size packets of the audio bytes (clamped to the
    /// file: linear PCM, G.711, and IMA4 without `pakt` as ffmpeg writes it); `nil` when unknown.
    public var validFrames: UInt64? {
        if let header = packetTableHeader, header.numberValidFrames >= 0 { return UInt64(header.numberValidFrames) }
        return constantPacketFrames
    }

    /// The `pakt` chunk entry, if any.
    public var packetTableChunk: ChunkHeader? { chunks.first { $0.type == .pakt } }

    /// Reads the header and chunk table of the CAF file in `source`, in steps: the file header,
    /// the chunk table, the `desc` chunk, the start of the `data` chunk, the `pakt` header.
    public init(reading source: some ByteSource) throws(CAFError) {
        let length = source.length
        fileLength = length
        (version, flags) = try Self.readHeader(source)
        var table = try Self.readChunkTable(source)
        chunks = table.chunks
        audioDescription = try Self.readDescription(source, chunks: table.chunks, warnings: &table.warnings)
        guard let dataChunk = table.chunks.first(where: { $0.type == .data }) else {
            throw CAFError(
                .missingData, at: table.end,
                table.chunks.count < Self.maximumChunks
                    ? "no 'data' chunk"
                    : "no 'data' chunk among the first \(Self.maximumChunks) chunks; the rest of the file is not read")
        }
        editCount = try Self.readEditCount(source, data: dataChunk)
        audioOffset = dataChunk.bodyOffset + 4
        audioBytes = dataChunk.size - 4
        packetTableHeader = try Self.readPacketTableHeader(source, chunks: table.chunks, warnings: &table.warnings)
        warnings = table.warnings
    }

    /// Step 1: the file header's type, version and flags.
    static func readHeader(_ source: some ByteSource) throws(CAFError) -> (version: UInt16, flags: UInt16) {
        let length = source.length
        var header: ByteCursor
        do { header = try source.cursor(at: 0, count: Int(Self.headerSize)) } catch {
            throw CAFError.from(error, reading: "the file header")
        }
        guard header.remaining >= 4 else {
            throw CAFError(.truncated, at: 0, "file is \(length) bytes long, too short for a CAF header")
        }
        let version: UInt16
        let flags: UInt16
        do {
            let type = try header.readFourCC()
            guard type == .caff else { throw CAFError(.notCAF(found: type), at: 0, "file type is '\(type)', not 'caff'") }
            version = try header.readUInt16(.big)
            flags = try header.readUInt16(.big)
        } catch let error as CAFError {
            throw error
        } catch let error as ByteError {
            throw CAFError.from(error, reading: "the file header")
        } catch {
            throw CAFError(.io, at: 0, "\(error)")
        }
        guard version == 1 else {
            throw CAFError(.unsupportedVersion(version), at: 4, "file version is \(version), expected 1")
        }
        return (version, flags)
    }

    /// Step 2: every chunk header in file order, sizes clamped to the file, with the warnings
    /// found on the way and the offset where the walk ended.
    static func readChunkTable(
        _ source: some ByteSource
    ) throws(CAFError) -> (chunks: [ChunkHeader], warnings: [CAFWarning], end: UInt64) {
        let length = source.length
        var warnings: [CAFWarning] = []
        var chunks: [ChunkHeader] = []
        var offset = Self.headerSize
        while offset < length {
            let left = length - offset
            // Memory follows the chunk count: a file of millions of empty chunks is not read whole.
            if chunks.count == Self.maximumChunks {
                warnings.append(
                    CAFWarning(at: offset, "more than \(Self.maximumChunks) chunks; the last \(left) bytes are not read"))
                break
            }
            if left < ChunkHeader.size {
                warnings.append(CAFWarning(at: offset, "\(left) stray bytes after the last chunk"))
                break
            }
            var cursor: ByteCursor
            do { cursor = try source.cursor(at: offset, count: Int(ChunkHeader.size)) } catch {
                throw CAFError.from(error, reading: "chunk header")
            }
            let type: FourCC
            let declared: Int64
            do {
                type = try cursor.readFourCC()
                declared = try cursor.readInt64(.big)
            } catch {
                throw CAFError.from(error, reading: "chunk header")
            }
            let available = left - ChunkHeader.size
            var size: UInt64
            if declared == -1 {
                size = available
                if type != .data {
                    warnings.append(
                        CAFWarning(
                            at: offset,
                            "chunk '\(type)' declares size -1, allowed only for a last 'data' chunk; read to the end of the file")
                    )
                }
            } else if declared < 0 {
                throw CAFError(
                    .malformedChunk(type), at: offset,
                    "chunk '\(type)' declares a negative size (\(declared))")
            } else if UInt64(declared) > available {
                warnings.append(
                    CAFWarning(
                        at: offset,
                        "chunk '\(type)' declares \(declared) bytes but only \(available) remain in the file; clamped"))
                size = available
            } else {
                size = UInt64(declared)
            }
            chunks.append(ChunkHeader(type: type, offset: offset, declaredSize: declared, size: size))
            offset += ChunkHeader.size + size
            if declared == -1 { break }
        }
        if chunks.count > 0, let last = chunks.last, last.type == .data, last.declaredSize >= 0 {
            let trailing = length - last.end
            if trailing == 4 {
                warnings.append(
                    CAFWarning(
                        at: last.end,
                        "4 bytes follow the last 'data' chunk: its size seems to leave out the 4-byte edit count"))
            }
        }
        return (chunks, warnings, offset)
    }

    /// Step 3: the audio description of the first `desc` chunk.
    static func readDescription(
        _ source: some ByteSource, chunks: [ChunkHeader], warnings: inout [CAFWarning]
    ) throws(CAFError) -> AudioDescription {
        guard let descChunk = chunks.first(where: { $0.type == .desc }) else {
            throw CAFError(.missingDescription, at: Self.headerSize, "no 'desc' chunk")
        }
        guard descChunk.size >= UInt64(AudioDescription.size) else {
            throw CAFError(
                .malformedChunk(.desc), at: descChunk.offset,
                "'desc' chunk is \(descChunk.size) bytes, expected \(AudioDescription.size)")
        }
        let description: AudioDescription
        do {
            var body = try source.cursor(at: descChunk.bodyOffset, count: AudioDescription.size)
            description = try AudioDescription(parsing: &body)
        } catch {
            throw CAFError.from(error, reading: "'desc' chunk")
        }
        if descChunk.size > UInt64(AudioDescription.size) {
            warnings.append(
                CAFWarning(
                    at: descChunk.offset,
                    "'desc' chunk is \(descChunk.size) bytes, longer than \(AudioDescription.size); extra bytes ignored"))
        }
        return description
    }

    /// Step 4: the edit count at the start of the `data` chunk.
    static func readEditCount(_ source: some ByteSource, data dataChunk: ChunkHeader) throws(CAFError) -> UInt32 {
        guard dataChunk.size >= 4 else {
            throw CAFError(
                .malformedChunk(.data), at: dataChunk.offset,
                "'data' chunk is \(dataChunk.size) bytes, too short for its 4-byte edit count")
        }
        do {
            var body = try source.cursor(at: dataChunk.bodyOffset, count: 4)
            return try body.readUInt32(.big)
        } catch {
            throw CAFError.from(error, reading: "'data' chunk")
        }
    }

    /// Step 5: the fixed fields of the first `pakt` chunk, when it is long enough to hold them.
    static func readPacketTableHeader(
        _ source: some ByteSource, chunks: [ChunkHeader], warnings: inout [CAFWarning]
    ) throws(CAFError) -> PacketTableHeader? {
        guard let pakt = chunks.first(where: { $0.type == .pakt }) else { return nil }
        guard pakt.size >= UInt64(PacketTableHeader.size) else {
            warnings.append(
                CAFWarning(
                    at: pakt.offset,
                    "'pakt' chunk is \(pakt.size) bytes, too short for its \(PacketTableHeader.size)-byte header; ignored"))
            return nil
        }
        do {
            var body = try source.cursor(at: pakt.bodyOffset, count: PacketTableHeader.size)
            return try PacketTableHeader(parsing: &body)
        } catch {
            throw CAFError.from(error, reading: "'pakt' chunk")
        }
    }
}

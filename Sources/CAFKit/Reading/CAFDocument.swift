import BinaryIO

/// A whole CAF file as values: header fields, every chunk in order and any bytes after the last
/// chunk. Writing it with ``CAFWriter`` gives back the same bytes.
public struct CAFContents: Equatable, Hashable, Sendable {
    /// The file version (1).
    public var version: UInt16
    /// The file flags (0).
    public var flags: UInt16
    /// The chunks in file order.
    public var chunks: [CAFChunk]
    /// Bytes after the last chunk (too few for a chunk header), kept for a rewrite.
    public var trailing: [UInt8]

    /// Creates contents.
    public init(version: UInt16 = 1, flags: UInt16 = 0, chunks: [CAFChunk], trailing: [UInt8] = []) {
        self.version = version
        self.flags = flags
        self.chunks = chunks
        self.trailing = trailing
    }

    /// The first `desc` value.
    public var audioDescription: AudioDescription? {
        for case .description(let value, _) in chunks { return value }
        return nil
    }
    /// The first `data` chunk.
    public var audioData: AudioDataChunk? {
        for case .audioData(let value) in chunks { return value }
        return nil
    }
    /// The first `pakt` chunk.
    public var packetTable: PacketTable? {
        for case .packetTable(let value) in chunks { return value }
        return nil
    }
    /// The first `chan` chunk.
    public var channelLayout: ChannelLayout? {
        for case .channelLayout(let value) in chunks { return value }
        return nil
    }
    /// The first `info` chunk.
    public var infoStrings: InfoStrings? {
        for case .info(let value) in chunks { return value }
        return nil
    }
    /// The markers of every `mark` chunk.
    public var markers: [Marker] {
        var result: [Marker] = []
        for case .markers(let value) in chunks { result += value.markers }
        return result
    }
    /// The regions of every `regn` chunk.
    public var regions: [Region] {
        var result: [Region] = []
        for case .regions(let value) in chunks { result += value.regions }
        return result
    }
    /// The first `peak` chunk.
    public var peak: PeakChunk? {
        for case .peak(let value) in chunks { return value }
        return nil
    }
    /// The first `kuki` chunk.
    public var magicCookie: MagicCookie? {
        for case .magicCookie(let value) in chunks { return value }
        return nil
    }
    /// The Apple Lossless configuration, when the format is `alac` and the cookie holds one.
    public var alacConfiguration: ALACSpecificConfig? {
        guard audioDescription?.formatID == .alac else { return nil }
        return magicCookie?.alac
    }
    /// The first `strg` chunk.
    public var strings: StringsChunk? {
        for case .strings(let value) in chunks { return value }
        return nil
    }
    /// The first `inst` chunk.
    public var instrument: Instrument? {
        for case .instrument(let value) in chunks { return value }
        return nil
    }
}

/// A CAF file read with every chunk body parsed: the chunk table (``CAFFile``), the typed
/// contents and every warning. The audio stays in the source unless asked for.
public struct CAFDocument: Sendable {
    /// The default largest chunk body that is loaded (16 MiB); larger ones become ``CAFChunk/notLoaded(_:)``.
    public static let defaultBodyLimit = 16 << 20
    /// The default largest total of loaded bodies (64 MiB); once reached, further bodies are not loaded.
    public static let defaultTotalLimit = 64 << 20

    /// The chunk table and header fields.
    public var file: CAFFile
    /// The typed chunks.
    public var contents: CAFContents
    /// The chunk table's warnings, then those of chunk bodies.
    public var warnings: [CAFWarning]

    /// Reads `source`. With `loadingAudio`, audio of at most `bodyLimit` bytes is held in memory
    /// (``AudioDataChunk/Audio/bytes(_:)``); otherwise it is referred to by offset. Memory stays
    /// below `totalLimit` bytes of bodies whatever the file size.
    public init(
        reading source: some ByteSource, loadingAudio: Bool = false,
        bodyLimit: Int = CAFDocument.defaultBodyLimit, totalLimit: Int = CAFDocument.defaultTotalLimit
    ) throws(CAFError) {
        let file = try CAFFile(reading: source)
        var warnings = file.warnings
        let chunks = try file.readChunks(
            from: source, loadingAudio: loadingAudio, bodyLimit: bodyLimit,
            totalLimit: totalLimit, warnings: &warnings)
        var trailing: [UInt8] = []
        let end = file.chunks.last?.end ?? CAFFile.headerSize
        if end < file.fileLength {
            let count = file.fileLength - end
            if count <= UInt64(max(bodyLimit, 0)) {
                do { trailing = try source.readExactly(at: end, count: Int(count)) } catch {
                    throw CAFError.from(error, reading: "bytes after the last chunk")
                }
            }
        }
        self.file = file
        self.contents = CAFContents(version: file.version, flags: file.flags, chunks: chunks, trailing: trailing)
        self.warnings = warnings
    }
}

extension CAFFile {
    /// Every chunk of the file as a typed value, in file order; bodies over `bodyLimit` bytes and
    /// the audio are not loaded. Malformed bodies are returned as ``CAFChunk/unknown(_:_:)``.
    public func parsedChunks(
        from source: some ByteSource, bodyLimit: Int = CAFDocument.defaultBodyLimit,
        totalLimit: Int = CAFDocument.defaultTotalLimit
    ) throws(CAFError) -> [CAFChunk] {
        var ignored: [CAFWarning] = []
        return try readChunks(from: source, loadingAudio: false, bodyLimit: bodyLimit, totalLimit: totalLimit, warnings: &ignored)
    }

    func readChunks(
        from source: some ByteSource, loadingAudio: Bool, bodyLimit: Int, totalLimit: Int,
        warnings: inout [CAFWarning]
    ) throws(CAFError) -> [CAFChunk] {
        let limit = UInt64(max(bodyLimit, 0))
        var budget = UInt64(max(totalLimit, 0))
        var result: [CAFChunk] = []
        result.reserveCapacity(chunks.count)
        for header in chunks {
            let sizeIsUnknown = header.declaredSize == -1
            if header.type == .data && header.size >= 4 && !(loadingAudio && header.size <= min(limit, budget)) {
                let editCount: UInt32
                do {
                    var cursor = try source.cursor(at: header.bodyOffset, count: 4)
                    editCount = try cursor.readUInt32(.big)
                } catch {
                    throw CAFError.from(error, reading: "'data' chunk")
                }
                let audio = AudioDataChunk.Audio.inSource(offset: header.bodyOffset + 4, count: header.size - 4)
                result.append(.audioData(AudioDataChunk(editCount: editCount, audio: audio, sizeIsUnknown: sizeIsUnknown)))
                continue
            }
            guard header.size <= limit, header.size <= budget else {
                let why =
                    header.size > limit
                    ? "over the \(limit)-byte limit" : "over what is left of the \(totalLimit)-byte total limit"
                warnings.append(
                    CAFWarning(at: header.offset, "chunk '\(header.type)' is \(header.size) bytes, \(why); not loaded"))
                result.append(.notLoaded(header))
                continue
            }
            budget -= header.size
            let body: [UInt8]
            do { body = try source.readExactly(at: header.bodyOffset, count: Int(header.size)) } catch {
                throw CAFError.from(error, reading: "chunk '\(header.type)'")
            }
            do {
                let chunk = try CAFChunk.parse(
                    type: header.type, body: body, at: header.bodyOffset,
                    description: audioDescription, sizeIsUnknown: sizeIsUnknown)
                if case .channelLayout(let layout) = chunk, layout.isAppleZeroedSlot {
                    warnings.append(
                        CAFWarning(
                            at: header.offset,
                            "'chan' chunk is \(header.size) bytes for 0 channel descriptions: a zeroed description slot follows, as Core Audio's AudioChannelLayout struct holds one; ignored"
                        ))
                }
                result.append(chunk)
            } catch {
                warnings.append(CAFWarning(at: header.offset, "\(error.message); kept as raw bytes"))
                result.append(.unknown(header.type, body))
            }
        }
        return result
    }
}

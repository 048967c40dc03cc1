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

    /// Whole frames present in the file, when the format has a fixed block size.
    public var frames: UInt64? {
        guard format.blockAlign > 0 else { return nil }
        return audioBytes / UInt64(format.blockAlign)
    }

    /// Reads the chunk table, `fmt ` and the `data` extent of a WAVE file.
    public init(reading source: some ByteSource) throws(WAVEError) {
        let length = source.length
        guard length > 0 else { throw WAVEError(at: 0, "empty file (0 bytes)") }
        let prefix: [UInt8]
        do { prefix = try source.read(at: 0, count: 12) } catch { throw WAVEError.from(error, reading: "RIFF header") }
        guard let container = Container.detect(prefix) else {
            throw WAVEError(at: 0, "not a RIFF/WAVE file (\(WAVEFile.describePrefix(prefix)))")
        }
        guard container.isWAVE else {
            throw WAVEError(at: 0, "not a RIFF/WAVE file: the content is \(container.displayName)")
        }
        self.container = container
        let order: ByteOrder = container == .rifx ? .big : .little
        byteOrder = order
        var warnings: [WAVEWarning] = []
        var chunks: [RIFFChunk] = []
        var ds64Data: UInt64?

        var riffSize = UInt64(prefix[4]) | UInt64(prefix[5]) << 8 | UInt64(prefix[6]) << 16 | UInt64(prefix[7]) << 24
        if order == .big {
            riffSize = UInt64(prefix[4]) << 24 | UInt64(prefix[5]) << 16 | UInt64(prefix[6]) << 8 | UInt64(prefix[7])
        }
        if container != .rf64, riffSize + 8 != length {
            warnings.append(WAVEWarning(at: 4, "RIFF size says the file is \(riffSize + 8) bytes, but it is \(length)"))
        }

        var offset: UInt64 = 12
        while offset + 8 <= length {
            var cursor: ByteCursor
            let type: FourCC
            var declared: UInt64
            do {
                cursor = try source.cursor(at: offset, count: 8)
                type = try cursor.readFourCC()
                declared = UInt64(try cursor.readUInt32(order))
            } catch {
                throw WAVEError.from(error, reading: "chunk header")
            }
            if !WAVEFile.isPlausibleID(type) {
                warnings.append(WAVEWarning(at: offset,
                    "\(length - offset) bytes at byte \(offset) are not a chunk (id '\(type)'); ignored"))
                break
            }
            if container == .rf64, declared == 0xFFFF_FFFF, type == FourCC("data"), let big = ds64Data {
                declared = big
            }
            let available = length - offset - 8
            var size = declared
            if declared > available {
                let what = declared == 0xFFFF_FFFF ? "0xFFFFFFFF (unknown length)" : "\(declared) bytes"
                warnings.append(WAVEWarning(at: offset,
                    "'\(type.trimmed)' chunk declares \(what) but only \(available) remain in the file; clamped"))
                size = available
            }
            let chunk = RIFFChunk(type: type, offset: offset, declaredSize: declared, size: size)
            chunks.append(chunk)
            if type == FourCC("ds64"), size >= 24 {
                do {
                    var body = try source.cursor(at: chunk.bodyOffset, count: 24)
                    _ = try body.readUInt64(.little)
                    ds64Data = try body.readUInt64(.little)
                } catch {
                    throw WAVEError.from(error, reading: "'ds64' chunk")
                }
            }
            var next = chunk.bodyOffset + size
            if size % 2 == 1 {
                // RIFF pads odd chunks to an even length; some writers forget the pad byte.
                if next + 1 <= length, WAVEFile.chunkStarts(in: source, at: next + 1) || next + 1 == length {
                    next += 1
                } else if WAVEFile.chunkStarts(in: source, at: next) {
                    warnings.append(WAVEWarning(at: chunk.offset,
                        "odd-sized '\(type.trimmed)' chunk has no pad byte; read the next chunk without it"))
                } else if next + 1 <= length {
                    next += 1
                }
            }
            offset = next
        }
        if offset < length, length - offset < 8, !chunks.isEmpty {
            warnings.append(WAVEWarning(at: offset, "\(length - offset) stray bytes after the last chunk"))
        }
        self.chunks = chunks

        guard let fmt = chunks.first(where: { $0.type == FourCC("fmt ") }) else {
            throw WAVEError(at: 12, "no 'fmt ' chunk")
        }
        guard fmt.size >= 16 else {
            throw WAVEError(at: fmt.offset, "'fmt ' chunk is \(fmt.size) bytes, expected at least 16")
        }
        do {
            var body = try source.cursor(at: fmt.bodyOffset, count: Int(min(fmt.size, 64)))
            format = try WAVEFormat(parsing: &body, order: order)
        } catch {
            throw WAVEError.from(error, reading: "'fmt ' chunk")
        }
        guard let data = chunks.first(where: { $0.type == FourCC("data") }) else {
            throw WAVEError(at: 12, "no 'data' chunk")
        }
        audioOffset = data.bodyOffset
        audioBytes = data.size
        declaredAudioBytes = data.declaredSize
        if format.channels == 0 { throw WAVEError(at: fmt.bodyOffset + 2, "'fmt ' chunk declares 0 channels") }
        if format.sampleRate == 0 { throw WAVEError(at: fmt.bodyOffset + 4, "'fmt ' chunk declares a sample rate of 0") }
        if format.isLinearPCM, format.bitsPerSample == 0 {
            throw WAVEError(at: fmt.bodyOffset + 14, "'fmt ' chunk declares 0 bits per sample")
        }
        if format.blockAlign == 0 { throw WAVEError(at: fmt.bodyOffset + 12, "'fmt ' chunk declares a block align of 0") }
        if format.blockAlign > 0, audioBytes % UInt64(format.blockAlign) != 0, format.isLinearPCM {
            warnings.append(WAVEWarning(at: data.offset,
                "'data' holds \(audioBytes) bytes, not a whole number of \(format.blockAlign)-byte frames; the partial frame is dropped"))
        }
        self.warnings = warnings
    }

    static func isPlausibleID(_ code: FourCC) -> Bool {
        code.bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    static func chunkStarts(in source: some ByteSource, at offset: UInt64) -> Bool {
        guard offset + 8 <= source.length, let bytes = try? source.read(at: offset, count: 4), bytes.count == 4 else {
            return false
        }
        return isPlausibleID(FourCC(bytes: bytes[0], bytes[1], bytes[2], bytes[3]))
    }

    static func describePrefix(_ prefix: [UInt8]) -> String {
        if prefix.isEmpty { return "empty file" }
        if prefix.count < 12 { return "only \(prefix.count) bytes" }
        let head = FourCC(bytes: prefix[0], prefix[1], prefix[2], prefix[3])
        return "starts with '\(head)'"
    }
}

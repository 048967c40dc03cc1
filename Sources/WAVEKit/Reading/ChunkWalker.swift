import BinaryIO

/// The chunk table of a RIFF-style (`RIFF`, `RIFX`, `RF64`) or IFF-style (`FORM`) file.
struct ChunkTable {
    var chunks: [RIFFChunk] = []
    var warnings: [WAVEWarning] = []
    var ds64: DataSize64?
}

/// Walks the chunks after a 12-byte container header. One read per chunk header, no body reads
/// (except `ds64`), so the cost is O(chunks). Sizes are checked against the file before use.
enum ChunkWalker {
    /// Largest metadata body a reader loads into memory.
    static let metadataCap = 1 << 20
    /// Most metadata bytes read from one file, all chunks together: a file with thousands of
    /// large `LIST` chunks costs this much memory at most, not their sum.
    static let metadataBudget = 8 << 20
    /// The most chunks read from one file (real files hold a handful): past it the rest of the
    /// file is not read, with a warning, so memory and time stay bounded.
    static let maximumChunks = 1 << 16

    /// The error text for a chunk that was not found among `chunks`: when the walk stopped at
    /// ``maximumChunks``, it says so (the chunk may lie in the part not read).
    static func missing(_ type: String, among chunks: [RIFFChunk]) -> String {
        chunks.count < maximumChunks
            ? "no '\(type)' chunk"
            : "no '\(type)' chunk among the first \(maximumChunks) chunks; the rest of the file is not read"
    }

    static func walk(_ source: some ByteSource, from start: UInt64, order: ByteOrder, rf64: Bool) throws(WAVEError) -> ChunkTable
    {
        let length = source.length
        var table = ChunkTable()
        var offset = start
        while offset + 8 <= length {
            if table.chunks.count == maximumChunks {
                table.warnings.append(
                    WAVEWarning(at: offset, "more than \(maximumChunks) chunks; the last \(length - offset) bytes are not read"))
                return table
            }
            let type: FourCC
            var declared: UInt64
            do {
                var cursor = try source.cursor(at: offset, count: 8)
                type = try cursor.readFourCC()
                declared = UInt64(try cursor.readUInt32(order))
            } catch {
                throw WAVEError.from(error, reading: "chunk header")
            }
            if !isPlausibleID(type) {
                table.warnings.append(
                    WAVEWarning(
                        at: offset,
                        "\(length - offset) bytes at byte \(offset) are not a chunk (id '\(type)'); ignored"))
                return table
            }
            if rf64, declared == 0xFFFF_FFFF, let ds64 = table.ds64, let big = ds64.size(of: type) {
                declared = big
            }
            let available = length - offset - 8
            var size = declared
            if declared > available {
                let what = declared == 0xFFFF_FFFF ? "0xFFFFFFFF (unknown length)" : "\(declared) bytes"
                table.warnings.append(
                    WAVEWarning(
                        at: offset,
                        "'\(type.trimmed)' chunk declares \(what) but only \(available) remain in the file; clamped"))
                size = available
            }
            // A 'data' chunk over 4 GiB in a plain RIFF file, as sox writes one: the 32-bit size
            // wrapped (it is the true size mod 2^32) and the chunk runs to the end of the file.
            if type == FourCC("data"), table.ds64 == nil, declared < available, available > 0xFFFF_FFFF,
                available % (1 << 32) == declared
            {
                table.warnings.append(
                    WAVEWarning(
                        at: offset,
                        "'data' chunk declares \(declared) bytes, but \(available) follow it to the end of the file: its 32-bit size wrapped (the true size mod 4 GiB, as sox writes WAV files over 4 GiB); read to the end of the file"
                    ))
                size = available
            }
            let chunk = RIFFChunk(type: type, offset: offset, declaredSize: declared, size: size)
            table.chunks.append(chunk)
            if rf64, type == FourCC("ds64"), table.ds64 == nil {
                do {
                    var body = try self.body(of: chunk, in: source)
                    table.ds64 = try DataSize64(parsing: &body)
                } catch {
                    table.warnings.append(
                        WAVEWarning(at: chunk.offset, "'ds64' chunk is too short (\(size) bytes); 64-bit sizes ignored"))
                }
            }
            let end = chunk.bodyOffset + size
            if size % 2 == 1 {
                let (next, warning) = afterOddChunk(chunk, end: end, source: source, order: order)
                if let warning { table.warnings.append(warning) }
                offset = next
            } else {
                offset = end
            }
        }
        if offset < length {
            table.warnings.append(WAVEWarning(at: offset, "\(length - offset) stray bytes after the last chunk"))
        }
        return table
    }

    /// Where the chunk after an odd-sized one starts: after the pad byte, or (when the writer
    /// left the pad out, which the bytes there make evident) right after the body.
    static func afterOddChunk(_ chunk: RIFFChunk, end: UInt64, source: some ByteSource, order: ByteOrder)
        -> (UInt64, WAVEWarning?)
    {
        let length = source.length
        if end == length {
            return (
                end,
                WAVEWarning(
                    at: chunk.offset,
                    "odd-sized '\(chunk.type.trimmed)' chunk ends the file without its pad byte")
            )
        }
        let padded = score(at: end + 1, source: source, order: order)
        let unpadded = score(at: end, source: source, order: order)
        var prefersUnpadded = unpadded > padded
        if !prefersUnpadded, unpadded == 2, padded == 2,
            let pad = try? source.read(at: end, count: 1), pad.first != 0
        {
            prefersUnpadded = true
        }
        if prefersUnpadded {
            return (
                end,
                WAVEWarning(
                    at: chunk.offset,
                    "odd-sized '\(chunk.type.trimmed)' chunk has no pad byte; read the next chunk without it")
            )
        }
        return (end + 1, nil)
    }

    /// 2: a chunk header whose size fits the file (or the exact end of the file); 1: a printable
    /// id with a size that does not fit; 0: not a chunk.
    static func score(at offset: UInt64, source: some ByteSource, order: ByteOrder) -> Int {
        let length = source.length
        if offset == length { return 2 }
        guard offset + 8 <= length, let bytes = try? source.read(at: offset, count: 8), bytes.count == 8 else { return 0 }
        var cursor = ByteCursor(bytes, baseOffset: offset)
        guard let id = try? cursor.readFourCC(), isPlausibleID(id),
            let size = try? cursor.readUInt32(order)
        else { return 0 }
        return UInt64(size) <= length - offset - 8 ? 2 : 1
    }

    static func isPlausibleID(_ code: FourCC) -> Bool {
        code.bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// A cursor over a chunk body, at most `cap` bytes.
    static func body(of chunk: RIFFChunk, in source: some ByteSource, cap: Int = metadataCap) throws(ByteError) -> ByteCursor {
        try source.cursor(at: chunk.bodyOffset, count: Int(min(chunk.size, UInt64(cap))))
    }

    /// Hands the body (its first ``metadataCap`` bytes) of every chunk whose type is in `types` to
    /// `parse`, in file order: the metadata pass of both readers. `parse` returns a warning about
    /// the chunk, if any. A chunk over the cap gets a warning that only its start is read; one
    /// whose body `parse` cannot read gets a warning and is ignored. Once `budget` bytes have been
    /// read, later metadata chunks are skipped, with one warning saying how many. Returns the
    /// warnings.
    static func readMetadata(
        _ chunks: [RIFFChunk], types: [FourCC], in source: some ByteSource, budget: Int = metadataBudget,
        _ parse: (RIFFChunk, inout ByteCursor) throws -> String?
    ) -> [WAVEWarning] {
        var warnings: [WAVEWarning] = []
        var left = UInt64(max(0, budget))
        var skipped: (first: UInt64, count: Int)? = nil
        for chunk in chunks where types.contains(chunk.type) {
            let name = chunk.type.trimmed
            let wanted = min(chunk.size, UInt64(metadataCap))
            guard wanted <= left else {
                skipped = (skipped?.first ?? chunk.offset, (skipped?.count ?? 0) + 1)
                continue
            }
            left -= wanted
            if chunk.size > UInt64(metadataCap) {
                warnings.append(
                    WAVEWarning(
                        at: chunk.offset, "'\(name)' chunk is \(chunk.size) bytes; only the first \(metadataCap) are read"))
            }
            do {
                var body = try self.body(of: chunk, in: source)
                if let warning = try parse(chunk, &body) { warnings.append(WAVEWarning(at: chunk.offset, warning)) }
            } catch {
                warnings.append(
                    WAVEWarning(at: chunk.offset, "'\(name)' chunk is too short (\(chunk.size) bytes) to parse; ignored"))
            }
        }
        if let skipped {
            warnings.append(
                WAVEWarning(
                    at: skipped.first,
                    "\(skipped.count) metadata chunk\(skipped.count == 1 ? "" : "s") from here on not read: "
                        + "the file's metadata passes the \(budget)-byte budget"))
        }
        return warnings
    }
}

/// Text stored in a chunk: up to the first NUL, as UTF-8 when valid, else as ISO 8859-1.
enum ChunkText {
    static func decode<C: Collection<UInt8>>(_ bytes: C, stopAtNUL: Bool = true) -> String {
        let used = stopAtNUL ? Array(bytes.prefix { $0 != 0 }) : Array(bytes)
        if let text = String(validating: used, as: UTF8.self) { return text }
        var text = ""
        text.unicodeScalars.append(contentsOf: used.map { Unicode.Scalar($0) })
        return text
    }
}

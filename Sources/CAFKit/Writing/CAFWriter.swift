import BinaryIO

/// Writes CAF files and chunks from values: the inverse of ``CAFDocument`` and ``CAFChunk/parse(type:body:at:description:sizeIsUnknown:)``.
public enum CAFWriter {
    /// The 8-byte file header.
    public static func header(version: UInt16 = 1, flags: UInt16 = 0) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(FourCC.caff)
        writer.write(version, .big)
        writer.write(flags, .big)
        return writer.bytes
    }

    /// The declared body size of `chunk` as written: -1 for a `data` chunk of unknown size.
    public static func declaredSize(of chunk: CAFChunk) -> Int64 {
        declaredSize(of: chunk, inMemory: chunk.bodyBytes.count)
    }

    /// The declared size, given the byte count of the body `writeBody` produces.
    private static func declaredSize(of chunk: CAFChunk, inMemory count: @autoclosure () -> Int) -> Int64 {
        switch chunk {
        case .audioData(let data):
            if data.sizeIsUnknown { return -1 }
            let (size, overflow) = data.audioByteCount.addingReportingOverflow(4)
            return overflow ? Int64.max : Int64(clamping: size)
        case .notLoaded(let header):
            return Int64(clamping: header.size)
        default:
            return Int64(count())
        }
    }

    /// A whole chunk (12-byte header and body) whose body is in memory.
    public static func chunkBytes(_ chunk: CAFChunk) -> [UInt8] {
        var body = ByteWriter()
        chunk.writeBody(to: &body)
        var writer = ByteWriter()
        writer.write(chunk.type)
        writer.write(declaredSize(of: chunk, inMemory: body.bytes.count), .big)
        writer.write(bytes: body.bytes)
        return writer.bytes
    }

    /// Writes `contents` to `sink` in order. Audio referred to by offset and chunks that were not
    /// loaded are copied from `source` in blocks of `blockSize` bytes, so memory stays bounded.
    public static func write(
        _ contents: CAFContents, copyingFrom source: (any ByteSource)? = nil, blockSize: Int = 1 << 20,
        to sink: (ArraySlice<UInt8>) throws -> Void
    ) throws {
        try sink(header(version: contents.version, flags: contents.flags)[...])
        for chunk in contents.chunks {
            try sink(chunkBytes(chunk)[...])
            let copy: (offset: UInt64, count: UInt64)?
            switch chunk {
            case .audioData(let data):
                if case .inSource(let offset, let count) = data.audio { copy = (offset, count) } else { copy = nil }
            case .notLoaded(let header):
                copy = (header.bodyOffset, header.size)
            default:
                copy = nil
            }
            guard let copy else { continue }
            guard let source else {
                throw CAFError(.io, at: copy.offset, "chunk '\(chunk.type)' refers to bytes of a source, but no source was given")
            }
            var offset = copy.offset
            let end = copy.offset + copy.count
            let step = UInt64(max(blockSize, 1))
            while offset < end {
                let count = Int(min(step, end - offset))
                try sink(try source.readExactly(at: offset, count: count)[...])
                offset += UInt64(count)
            }
        }
        try sink(contents.trailing[...])
    }

    /// The bytes of a whole file (see ``write(_:copyingFrom:blockSize:to:)``).
    public static func bytes(of contents: CAFContents, copyingFrom source: (any ByteSource)? = nil) throws -> [UInt8] {
        var result: [UInt8] = []
        try write(contents, copyingFrom: source) { result.append(contentsOf: $0) }
        return result
    }
}

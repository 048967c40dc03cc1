import BinaryIO

/// The `data` chunk: an edit count followed by the audio, which is either held in memory or
/// referred to by its place in the source it was read from (so reading never loads it).
public struct AudioDataChunk: Equatable, Hashable, Sendable {
    /// Where the audio bytes are.
    public enum Audio: Equatable, Hashable, Sendable {
        /// The audio bytes themselves.
        case bytes([UInt8])
        /// `count` bytes at absolute `offset` of the source the chunk was read from.
        case inSource(offset: UInt64, count: UInt64)
    }

    /// The edit count: bumped each time the audio is edited, so that dependent chunks can be checked.
    public var editCount: UInt32
    /// The audio bytes or where they are.
    public var audio: Audio
    /// Whether the chunk size is written as -1 ("to the end of the file"), valid only for a last `data` chunk.
    public var sizeIsUnknown: Bool

    /// Creates a `data` chunk.
    public init(editCount: UInt32 = 0, audio: Audio, sizeIsUnknown: Bool = false) {
        self.editCount = editCount
        self.audio = audio
        self.sizeIsUnknown = sizeIsUnknown
    }

    /// The number of audio bytes.
    public var audioByteCount: UInt64 {
        switch audio {
        case .bytes(let bytes): return UInt64(bytes.count)
        case .inSource(_, let count): return count
        }
    }

    /// Reads a whole `data` body held in memory: the edit count, then the audio.
    public init(parsing cursor: inout ByteCursor, sizeIsUnknown: Bool = false) throws(ByteError) {
        editCount = try cursor.readUInt32(.big)
        audio = .bytes(cursor.readRest())
        self.sizeIsUnknown = sizeIsUnknown
    }

    /// Appends the edit count and, when the audio is in memory, the audio bytes.
    public func write(to writer: inout ByteWriter) {
        writer.write(editCount, .big)
        if case .bytes(let bytes) = audio { writer.write(bytes: bytes) }
    }
}

import BinaryIO

/// One entry of a CAF file's chunk table: the type, where the chunk starts and its body size.
public struct ChunkHeader: Equatable, Hashable, Sendable {
    /// The size of the type and size fields that precede every chunk body.
    public static let size: UInt64 = 12

    /// The chunk type.
    public var type: FourCC
    /// The absolute offset of the chunk header (its type field).
    public var offset: UInt64
    /// The body size as declared; -1 is allowed for a last `data` chunk.
    public var declaredSize: Int64
    /// The body size the reader uses: the declared size, or what the file really holds when the
    /// declared size is -1 or runs past the end of the file.
    public var size: UInt64

    /// Creates an entry.
    public init(type: FourCC, offset: UInt64, declaredSize: Int64, size: UInt64) {
        self.type = type
        self.offset = offset
        self.declaredSize = declaredSize
        self.size = size
    }

    /// The absolute offset of the chunk body.
    public var bodyOffset: UInt64 { offset + Self.size }
    /// The absolute offset just past the chunk body.
    public var end: UInt64 { bodyOffset + size }
}

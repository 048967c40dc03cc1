import BinaryIO

/// One point of a `cue ` chunk.
public struct CuePoint: Equatable, Sendable {
    /// The id that `labl`, `note`, `ltxt` and `smpl` loops refer to.
    public var id: UInt32
    /// The play-order position, in samples.
    public var position: UInt32
    /// The chunk holding the point (`data` or `slnt`).
    public var chunkID: FourCC
    /// The offset of that chunk in a wave list (0 for `data`).
    public var chunkStart: UInt32
    /// The offset of the block holding the point.
    public var blockStart: UInt32
    /// The sample offset of the point within its block.
    public var sampleOffset: UInt32

    /// Creates a point.
    public init(id: UInt32, position: UInt32, chunkID: FourCC, chunkStart: UInt32, blockStart: UInt32, sampleOffset: UInt32) {
        self.id = id
        self.position = position
        self.chunkID = chunkID
        self.chunkStart = chunkStart
        self.blockStart = blockStart
        self.sampleOffset = sampleOffset
    }

    /// Parses a `cue ` body: a count and 24-byte points; points past the body are left out.
    /// Returns the points and the count as written.
    public static func parseList(_ cursor: inout ByteCursor, order: ByteOrder = .little) throws(ByteError)
        -> (points: [CuePoint], declaredCount: UInt32)
    {
        let count = try cursor.readUInt32(order)
        let present = min(UInt64(count), UInt64(cursor.remaining / 24))
        var points: [CuePoint] = []
        for _ in 0..<present {
            points.append(
                CuePoint(
                    id: try cursor.readUInt32(order), position: try cursor.readUInt32(order),
                    chunkID: try cursor.readFourCC(), chunkStart: try cursor.readUInt32(order),
                    blockStart: try cursor.readUInt32(order), sampleOffset: try cursor.readUInt32(order)))
        }
        return (points, count)
    }
}

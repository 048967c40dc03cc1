import BinaryIO

/// The `ds64` chunk of an RF64/BW64 file: 64-bit sizes for chunks whose 32-bit field is 0xFFFFFFFF.
public struct DataSize64: Equatable, Sendable {
    /// The size of the `RF64` form (file length minus 8).
    public var riffSize: UInt64
    /// The size of the `data` chunk.
    public var dataSize: UInt64
    /// The number of samples (frames) in the file, as written.
    public var sampleCount: UInt64
    /// 64-bit sizes for other chunks, in table order.
    public var table: [(type: FourCC, size: UInt64)]

    /// Parses the chunk body (always little-endian).
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        riffSize = try cursor.readUInt64(.little)
        dataSize = try cursor.readUInt64(.little)
        sampleCount = try cursor.readUInt64(.little)
        table = []
        guard cursor.remaining >= 4 else { return }
        let count = try cursor.readUInt32(.little)
        // Each entry is 12 bytes; never trust the count beyond what the body holds.
        let possible = min(UInt64(count), UInt64(cursor.remaining / 12))
        for _ in 0..<possible {
            let type = try cursor.readFourCC()
            table.append((type, try cursor.readUInt64(.little)))
        }
    }

    /// The 64-bit size for a chunk type: `dataSize` for `data`, else the table entry.
    public func size(of type: FourCC) -> UInt64? {
        if type == FourCC("data") { return dataSize }
        return table.first { $0.type == type }?.size
    }

    /// Whether all sizes and table entries are equal.
    public static func == (lhs: DataSize64, rhs: DataSize64) -> Bool {
        lhs.riffSize == rhs.riffSize && lhs.dataSize == rhs.dataSize && lhs.sampleCount == rhs.sampleCount
            && lhs.table.map(\.type) == rhs.table.map(\.type) && lhs.table.map(\.size) == rhs.table.map(\.size)
    }
}

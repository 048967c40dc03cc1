import BinaryIO

/// One entry of a `strg` chunk: a string ID and where its string starts in the string data.
public struct StringID: Equatable, Hashable, Sendable {
    /// The ID, matching a marker or region ID.
    public var stringID: UInt32
    /// The offset of the string's first byte within ``StringsChunk/stringData``.
    public var startByteOffset: Int64

    /// Creates an entry.
    public init(stringID: UInt32, startByteOffset: Int64) {
        self.stringID = stringID
        self.startByteOffset = startByteOffset
    }
}

/// The `strg` chunk: string IDs with offsets into a table of NUL-terminated UTF-8 strings.
public struct StringsChunk: Equatable, Hashable, Sendable {
    /// The IDs, in file order.
    public var ids: [StringID]
    /// The string table: every byte after the IDs.
    public var stringData: [UInt8]

    /// Creates a chunk from IDs and raw string data.
    public init(ids: [StringID], stringData: [UInt8]) {
        self.ids = ids
        self.stringData = stringData
    }

    /// Creates a chunk from ID/string pairs, laying the strings out one after the other.
    public init(strings: [(id: UInt32, text: String)]) {
        var ids: [StringID] = []
        var data: [UInt8] = []
        for (id, text) in strings {
            ids.append(StringID(stringID: id, startByteOffset: Int64(data.count)))
            data.append(contentsOf: text.utf8)
            data.append(0)
        }
        self.init(ids: ids, stringData: data)
    }

    /// Reads a `strg` body; every declared ID must be present.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        let count = try cursor.readUInt32(.big)
        ids = []
        for _ in 0..<count {
            ids.append(StringID(stringID: try cursor.readUInt32(.big), startByteOffset: try cursor.readInt64(.big)))
        }
        stringData = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(UInt32(truncatingIfNeeded: ids.count), .big)
        for id in ids {
            writer.write(id.stringID, .big)
            writer.write(id.startByteOffset, .big)
        }
        writer.write(bytes: stringData)
    }

    /// The string of the first entry with `id`, or `nil` when there is none or it is not
    /// a NUL-terminated UTF-8 string inside the table. One look-up; for many (a name per marker),
    /// ``lookup()`` once and ask it.
    public func string(for id: UInt32) -> String? { lookup().string(for: id) }

    /// A table for looking up many strings: each in time logarithmic in the chunk's size plus
    /// the string's length (a linear search of the IDs, or a scan for the NUL from the string's
    /// start, made naming every marker of a large file quadratic).
    public func lookup() -> Lookup { Lookup(self) }

    /// ``StringsChunk/string(for:)`` for many IDs.
    public struct Lookup: Sendable {
        private let data: [UInt8]
        /// The offset of the first entry of each ID.
        private let offsets: [UInt32: Int64]
        /// Where the NUL bytes of the table are, in order.
        private let nuls: [Int]

        init(_ chunk: StringsChunk) {
            data = chunk.stringData
            var offsets: [UInt32: Int64] = [:]
            for entry in chunk.ids where offsets[entry.stringID] == nil { offsets[entry.stringID] = entry.startByteOffset }
            self.offsets = offsets
            nuls = chunk.stringData.indices.filter { chunk.stringData[$0] == 0 }
        }

        /// The string of the first entry with `id`, as ``StringsChunk/string(for:)``.
        public func string(for id: UInt32) -> String? {
            guard let offset = offsets[id], offset >= 0, offset < Int64(data.count) else { return nil }
            let start = Int(offset)
            // The first NUL at or after `start`.
            var low = 0
            var high = nuls.count
            while low < high {
                let middle = low + (high - low) / 2
                if nuls[middle] < start { low = middle + 1 } else { high = middle }
            }
            guard low < nuls.count else { return nil }
            return String(validating: data[start..<nuls[low]], as: UTF8.self)
        }
    }
}

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
    /// a NUL-terminated UTF-8 string inside the table.
    public func string(for id: UInt32) -> String? {
        guard let entry = ids.first(where: { $0.stringID == id }), entry.startByteOffset >= 0,
            entry.startByteOffset < Int64(stringData.count)
        else { return nil }
        let start = Int(entry.startByteOffset)
        guard let end = stringData[start...].firstIndex(of: 0) else { return nil }
        return String(validating: stringData[start..<end], as: UTF8.self)
    }
}

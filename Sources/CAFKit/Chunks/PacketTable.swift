import BinaryIO

/// The fixed 24-byte start of a `pakt` chunk (Apple's `CAFPacketTableHeader`).
public struct PacketTableHeader: Equatable, Hashable, Sendable {
    /// The size of the header in bytes.
    public static let size = 24

    /// The number of packets in the `data` chunk (some writers put 0 when packets are constant).
    public var numberPackets: Int64
    /// The number of frames that are real audio: packets x frames per packet - priming - remainder.
    public var numberValidFrames: Int64
    /// Frames at the start of the first packet that are not audio (encoder delay).
    public var primingFrames: Int32
    /// Frames at the end of the last packet that are not audio.
    public var remainderFrames: Int32

    /// Creates a header from its fields.
    public init(numberPackets: Int64, numberValidFrames: Int64, primingFrames: Int32, remainderFrames: Int32) {
        self.numberPackets = numberPackets
        self.numberValidFrames = numberValidFrames
        self.primingFrames = primingFrames
        self.remainderFrames = remainderFrames
    }

    /// Reads the 24 header bytes (big-endian).
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        numberPackets = try cursor.readInt64(.big)
        numberValidFrames = try cursor.readInt64(.big)
        primingFrames = try cursor.readInt32(.big)
        remainderFrames = try cursor.readInt32(.big)
    }

    /// Appends the 24 header bytes.
    public func write(to writer: inout ByteWriter) {
        writer.write(numberPackets, .big)
        writer.write(numberValidFrames, .big)
        writer.write(primingFrames, .big)
        writer.write(remainderFrames, .big)
    }
}

/// The `pakt` chunk: the packet table header and, for formats whose packets vary in size or
/// duration, one entry per packet coded as variable-length integers.
public struct PacketTable: Equatable, Hashable, Sendable {
    /// One packet's description; a field is present only when the format does not fix it.
    public struct Entry: Equatable, Hashable, Sendable {
        /// The packet size in bytes, present when `bytesPerPacket` is 0.
        public var byteSize: Int64?
        /// The packet duration in frames, present when `framesPerPacket` is 0.
        public var frames: Int64?

        /// Creates an entry.
        public init(byteSize: Int64? = nil, frames: Int64? = nil) {
            self.byteSize = byteSize
            self.frames = frames
        }
    }

    /// The fixed header.
    public var header: PacketTableHeader
    /// The packet descriptions, in packet order (empty for constant packets).
    public var entries: [Entry]
    /// Bytes after the last entry (normally none), kept so that a rewrite is byte-identical.
    public var trailing: [UInt8]

    /// Creates a packet table.
    public init(header: PacketTableHeader, entries: [Entry] = [], trailing: [UInt8] = []) {
        self.header = header
        self.entries = entries
        self.trailing = trailing
    }

    /// Reads a `pakt` body; which entry fields exist depends on the audio description:
    /// a byte size when `bytesPerPacket` is 0, then frames when `framesPerPacket` is 0.
    ///
    /// Memory grows only with the bytes actually read, never with `numberPackets`.
    public init(parsing cursor: inout ByteCursor, bytesPerPacket: UInt32, framesPerPacket: UInt32) throws {
        let start = cursor.offset
        header = try PacketTableHeader(parsing: &cursor)
        entries = []
        if bytesPerPacket == 0 || framesPerPacket == 0 {
            guard header.numberPackets >= 0 else {
                throw CAFError(
                    .malformedChunk(.pakt), at: start,
                    "'pakt' declares \(header.numberPackets) packets, expected a count of 0 or more")
            }
            var left = header.numberPackets
            while left > 0 {
                var entry = Entry()
                if bytesPerPacket == 0 { entry.byteSize = try Self.readVarInt(&cursor) }
                if framesPerPacket == 0 { entry.frames = try Self.readVarInt(&cursor) }
                entries.append(entry)
                left -= 1
            }
        }
        trailing = cursor.readRest()
    }

    /// Appends the body: header, entries, trailing bytes. Negative entry values are written as 0.
    public func write(to writer: inout ByteWriter) {
        header.write(to: &writer)
        for entry in entries {
            if let size = entry.byteSize { Self.writeVarInt(size, to: &writer) }
            if let frames = entry.frames { Self.writeVarInt(frames, to: &writer) }
        }
        writer.write(bytes: trailing)
    }

    /// The sum of the entries' byte sizes, or `nil` when no entry has one (or it overflows).
    public var totalByteSize: UInt64? {
        var total: UInt64 = 0
        var any = false
        for entry in entries {
            guard let size = entry.byteSize else { continue }
            any = true
            let (sum, overflow) = total.addingReportingOverflow(UInt64(max(size, 0)))
            if overflow { return nil }
            total = sum
        }
        return any ? total : nil
    }

    /// Reads one variable-length integer: 7-bit groups, most significant first, high bit set on
    /// every byte but the last. Only the shortest form is accepted (no leading `0x80` byte).
    public static func readVarInt(_ cursor: inout ByteCursor) throws -> Int64 {
        let start = cursor.offset
        var value: UInt64 = 0
        var first = true
        while true {
            let byte = try cursor.readUInt8()
            // A leading empty group would not survive a rewrite; the shortest form is the only form.
            guard !(first && byte == 0x80) else {
                throw CAFError(.malformedChunk(.pakt), at: start, "'pakt' entry is not in its shortest form")
            }
            first = false
            guard value >> 56 == 0 else {
                throw CAFError(.malformedChunk(.pakt), at: start, "'pakt' entry does not fit in 63 bits")
            }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        guard value <= UInt64(Int64.max) else {
            throw CAFError(.malformedChunk(.pakt), at: start, "'pakt' entry does not fit in 63 bits")
        }
        return Int64(value)
    }

    /// Appends `value` as a variable-length integer in the fewest bytes (negative values as 0).
    public static func writeVarInt(_ value: Int64, to writer: inout ByteWriter) {
        var rest = UInt64(max(value, 0))
        var groups: [UInt8] = [UInt8(rest & 0x7F)]
        rest >>= 7
        while rest > 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        writer.write(bytes: groups.reversed())
    }
}

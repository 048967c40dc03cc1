import BinaryIO

/// One channel of a `chan` chunk: its label, flags and position.
public struct ChannelDescription: Equatable, Hashable, Sendable {
    /// The size of one description in bytes.
    public static let size = 20

    /// What the channel is (left, right, centre, ...), as a Core Audio channel label.
    public var label: UInt32
    /// Which coordinate system `coordinates` uses.
    public var flags: UInt32
    /// The channel position: three values whose meaning depends on `flags`.
    public var coordinates: [Float]

    /// Creates a description; `coordinates` is padded or cut to three values.
    public init(label: UInt32, flags: UInt32 = 0, coordinates: [Float] = [0, 0, 0]) {
        self.label = label
        self.flags = flags
        self.coordinates = Array((coordinates + [0, 0, 0]).prefix(3))
    }

    /// Reads 20 bytes.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        label = try cursor.readUInt32(.big)
        flags = try cursor.readUInt32(.big)
        coordinates = [try cursor.readFloat32(.big), try cursor.readFloat32(.big), try cursor.readFloat32(.big)]
    }

    /// Appends 20 bytes.
    public func write(to writer: inout ByteWriter) {
        writer.write(label, .big)
        writer.write(flags, .big)
        for index in 0..<3 { writer.write(index < coordinates.count ? coordinates[index] : 0, .big) }
    }
}

/// The `chan` chunk: which channel is which (Apple's `AudioChannelLayout`).
public struct ChannelLayout: Equatable, Hashable, Sendable {
    /// The size of the fixed fields before the descriptions.
    public static let headerSize = 12
    /// `kAudioChannelLayoutTag_UseChannelDescriptions`: the descriptions say it all.
    public static let useChannelDescriptions: UInt32 = 0
    /// `kAudioChannelLayoutTag_UseChannelBitmap`: the bitmap says it all.
    public static let useChannelBitmap: UInt32 = 1 << 16

    /// The layout tag; for predefined layouts the low 16 bits are the channel count.
    public var tag: UInt32
    /// The channel bitmap, used when `tag` is ``useChannelBitmap``.
    public var bitmap: UInt32
    /// The number of descriptions the chunk declares.
    public var declaredCount: UInt32
    /// The descriptions present (at most `declaredCount`).
    public var descriptions: [ChannelDescription]
    /// Bytes after the last description, kept for a byte-identical rewrite.
    public var trailing: [UInt8]

    /// Creates a layout whose declared count is the number of descriptions.
    public init(tag: UInt32, bitmap: UInt32 = 0, descriptions: [ChannelDescription] = [], trailing: [UInt8] = []) {
        self.tag = tag
        self.bitmap = bitmap
        self.declaredCount = UInt32(truncatingIfNeeded: descriptions.count)
        self.descriptions = descriptions
        self.trailing = trailing
    }

    /// Reads a `chan` body; descriptions that the body cannot hold are left out (the validator
    /// reports the mismatch), never allocated.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        tag = try cursor.readUInt32(.big)
        bitmap = try cursor.readUInt32(.big)
        declaredCount = try cursor.readUInt32(.big)
        descriptions = []
        let fitting = min(Int(declaredCount), cursor.remaining / ChannelDescription.size)
        for _ in 0..<fitting { descriptions.append(try ChannelDescription(parsing: &cursor)) }
        trailing = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(tag, .big)
        writer.write(bitmap, .big)
        writer.write(declaredCount, .big)
        for description in descriptions { description.write(to: &writer) }
        writer.write(bytes: trailing)
    }

    /// The number of channels the layout describes: the descriptions, the bits of the bitmap, or
    /// the low 16 bits of a predefined tag.
    public var channelCount: Int {
        switch tag {
        case Self.useChannelDescriptions: return Int(declaredCount)
        case Self.useChannelBitmap: return bitmap.nonzeroBitCount
        default: return Int(tag & 0xFFFF)
        }
    }

    /// The body size the declared description count calls for.
    public var expectedSize: UInt64 { UInt64(Self.headerSize) + UInt64(declaredCount) * UInt64(ChannelDescription.size) }

    /// Whether the body is Core Audio's `AudioChannelLayout` struct written as it sits in memory:
    /// a tag or bitmap, 0 descriptions, and the struct's one description slot left zeroed (32
    /// bytes). Apple's own tools write `chan` chunks like this; the slot carries nothing.
    public var isAppleZeroedSlot: Bool {
        declaredCount == 0 && tag != Self.useChannelDescriptions && trailing.count == ChannelDescription.size
            && trailing.allSatisfy { $0 == 0 }
    }
}

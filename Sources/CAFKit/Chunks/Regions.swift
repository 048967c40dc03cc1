import BinaryIO

/// One region: an ID, flags and the markers that bound it (Apple's `CAFRegion`).
public struct Region: Equatable, Hashable, Sendable {
    /// The region ID, which `strg` may name.
    public var regionID: UInt32
    /// Loop flags (`kCAFRegionFlag_LoopEnable` = 1, `PlayForward` = 2, `PlayBackward` = 4).
    public var flags: UInt32
    /// The markers of the region.
    public var markers: [Marker]

    /// Creates a region.
    public init(regionID: UInt32, flags: UInt32 = 0, markers: [Marker]) {
        self.regionID = regionID
        self.flags = flags
        self.markers = markers
    }

    /// Reads a region; its markers must all be present.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        regionID = try cursor.readUInt32(.big)
        flags = try cursor.readUInt32(.big)
        let count = try cursor.readUInt32(.big)
        let start = cursor.offset
        guard UInt64(count) * UInt64(Marker.size) <= UInt64(cursor.remaining) else {
            throw .truncated(offset: start, needed: UInt64(count) * UInt64(Marker.size), available: UInt64(cursor.remaining))
        }
        markers = []
        for _ in 0..<count { markers.append(try Marker(parsing: &cursor)) }
    }

    /// Appends the region.
    public func write(to writer: inout ByteWriter) {
        writer.write(regionID, .big)
        writer.write(flags, .big)
        writer.write(UInt32(truncatingIfNeeded: markers.count), .big)
        for marker in markers { marker.write(to: &writer) }
    }
}

/// The `regn` chunk: a SMPTE time type and a list of regions.
public struct RegionChunk: Equatable, Hashable, Sendable {
    /// The SMPTE time type of the markers' times.
    public var smpteTimeType: UInt32
    /// The regions.
    public var regions: [Region]
    /// Bytes after the last region, kept for a rewrite.
    public var trailing: [UInt8]

    /// Creates a chunk.
    public init(smpteTimeType: UInt32 = 0, regions: [Region], trailing: [UInt8] = []) {
        self.smpteTimeType = smpteTimeType
        self.regions = regions
        self.trailing = trailing
    }

    /// Reads a `regn` body; every declared region must be present.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        smpteTimeType = try cursor.readUInt32(.big)
        let count = try cursor.readUInt32(.big)
        regions = []
        for _ in 0..<count { regions.append(try Region(parsing: &cursor)) }
        trailing = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(smpteTimeType, .big)
        writer.write(UInt32(truncatingIfNeeded: regions.count), .big)
        for region in regions { region.write(to: &writer) }
        writer.write(bytes: trailing)
    }
}

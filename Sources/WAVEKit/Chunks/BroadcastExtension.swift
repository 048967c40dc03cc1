import BinaryIO

/// The `bext` chunk of a Broadcast Wave file (EBU Tech 3285).
public struct BroadcastExtension: Equatable, Sendable {
    /// Free description, up to 256 characters.
    public var description: String
    /// The originator (up to 32 characters).
    public var originator: String
    /// The originator's reference (up to 32 characters).
    public var originatorReference: String
    /// Origination date as written, `yyyy-mm-dd`.
    public var originationDate: String
    /// Origination time as written, `hh:mm:ss`.
    public var originationTime: String
    /// Samples since midnight of the first sample.
    public var timeReference: UInt64
    /// The BWF version.
    public var version: UInt16
    /// The SMPTE UMID (64 bytes; all zero when unused).
    public var umid: [UInt8]
    /// Integrated loudness in 1/100 LUFS (version 2 and later).
    public var loudnessValue: Int16?
    /// Loudness range in 1/100 LU (version 2 and later).
    public var loudnessRange: Int16?
    /// Maximum true peak level in 1/100 dBTP (version 2 and later).
    public var maxTruePeakLevel: Int16?
    /// Highest momentary loudness in 1/100 LUFS (version 2 and later).
    public var maxMomentaryLoudness: Int16?
    /// Highest short-term loudness in 1/100 LUFS (version 2 and later).
    public var maxShortTermLoudness: Int16?
    /// The coding history text that follows the fixed fields.
    public var codingHistory: String

    /// Parses the chunk body; `order` is `.big` only in RIFX files.
    public init(parsing cursor: inout ByteCursor, order: ByteOrder = .little) throws(ByteError) {
        description = ChunkText.decode(try cursor.readBytes(256))
        originator = ChunkText.decode(try cursor.readBytes(32))
        originatorReference = ChunkText.decode(try cursor.readBytes(32))
        originationDate = ChunkText.decode(try cursor.readBytes(10))
        originationTime = ChunkText.decode(try cursor.readBytes(8))
        let low = try cursor.readUInt32(order)
        let high = try cursor.readUInt32(order)
        timeReference = UInt64(high) << 32 | UInt64(low)
        version = try cursor.readUInt16(order)
        umid = try cursor.readBytes(64)
        let loudness = [
            try cursor.readInt16(order), try cursor.readInt16(order), try cursor.readInt16(order),
            try cursor.readInt16(order), try cursor.readInt16(order),
        ]
        if version >= 2 {
            loudnessValue = loudness[0]
            loudnessRange = loudness[1]
            maxTruePeakLevel = loudness[2]
            maxMomentaryLoudness = loudness[3]
            maxShortTermLoudness = loudness[4]
        }
        try cursor.skip(180)
        codingHistory = ChunkText.decode(cursor.readRest())
    }
}

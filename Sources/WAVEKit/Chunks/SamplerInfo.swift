import BinaryIO

/// One loop of a `smpl` chunk.
public struct SampleLoop: Equatable, Sendable {
    /// The cue point id of the loop.
    public var cuePointID: UInt32
    /// 0 forward, 1 alternating, 2 backward; other values are vendor-specific.
    public var type: UInt32
    /// The first sample of the loop.
    public var start: UInt32
    /// The last sample of the loop.
    public var end: UInt32
    /// Fine tuning of the loop end, as a fraction of a sample (0x80000000 is one half).
    public var fraction: UInt32
    /// How many times the loop plays; 0 means forever.
    public var playCount: UInt32

    /// Creates a loop.
    public init(cuePointID: UInt32, type: UInt32, start: UInt32, end: UInt32, fraction: UInt32, playCount: UInt32) {
        self.cuePointID = cuePointID
        self.type = type
        self.start = start
        self.end = end
        self.fraction = fraction
        self.playCount = playCount
    }
}

/// The `smpl` chunk: how a sampler should play the sound.
public struct SamplerInfo: Equatable, Sendable {
    /// The MMA manufacturer code (0 when none).
    public var manufacturer: UInt32
    /// The manufacturer's product code.
    public var product: UInt32
    /// The duration of one sample in nanoseconds.
    public var samplePeriod: UInt32
    /// The MIDI note that plays the sound at its recorded pitch.
    public var midiUnityNote: UInt32
    /// Fraction of a semitone above the unity note (0x80000000 is 50 cents).
    public var midiPitchFraction: UInt32
    /// SMPTE format: 0, 24, 25, 29 or 30 frames per second.
    public var smpteFormat: UInt32
    /// SMPTE offset as hours, minutes, seconds and frames packed in four bytes.
    public var smpteOffset: UInt32
    /// The loop count as written.
    public var declaredLoopCount: UInt32
    /// The size of the sampler-specific data after the loops.
    public var samplerDataSize: UInt32
    /// The loops present in the chunk.
    public var loops: [SampleLoop]

    /// Parses the chunk body; `order` is `.big` only in RIFX files.
    public init(parsing cursor: inout ByteCursor, order: ByteOrder = .little) throws(ByteError) {
        manufacturer = try cursor.readUInt32(order)
        product = try cursor.readUInt32(order)
        samplePeriod = try cursor.readUInt32(order)
        midiUnityNote = try cursor.readUInt32(order)
        midiPitchFraction = try cursor.readUInt32(order)
        smpteFormat = try cursor.readUInt32(order)
        smpteOffset = try cursor.readUInt32(order)
        declaredLoopCount = try cursor.readUInt32(order)
        samplerDataSize = try cursor.readUInt32(order)
        loops = []
        let present = min(UInt64(declaredLoopCount), UInt64(cursor.remaining / 24))
        for _ in 0..<present {
            loops.append(
                SampleLoop(
                    cuePointID: try cursor.readUInt32(order), type: try cursor.readUInt32(order),
                    start: try cursor.readUInt32(order), end: try cursor.readUInt32(order),
                    fraction: try cursor.readUInt32(order), playCount: try cursor.readUInt32(order)))
        }
    }
}

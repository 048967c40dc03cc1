import BinaryIO

/// The `inst` chunk: how a sampler should play the audio (Apple's `CAFInstrumentChunk`, 28 bytes).
public struct Instrument: Equatable, Hashable, Sendable {
    /// The size of the fields in bytes.
    public static let size = 28

    /// The MIDI note of the recorded pitch, with a fractional part for fine tuning.
    public var baseNote: Float
    /// The lowest MIDI note to play the sample for.
    public var midiLowNote: UInt8
    /// The highest MIDI note to play the sample for.
    public var midiHighNote: UInt8
    /// The lowest MIDI velocity to play the sample for.
    public var midiLowVelocity: UInt8
    /// The highest MIDI velocity to play the sample for.
    public var midiHighVelocity: UInt8
    /// The gain in decibels.
    public var decibelGain: Float
    /// The region ID of the start (attack) region.
    public var startRegionID: UInt32
    /// The region ID of the sustain loop.
    public var sustainRegionID: UInt32
    /// The region ID of the release region.
    public var releaseRegionID: UInt32
    /// An instrument ID.
    public var instrumentID: UInt32
    /// Bytes after the fields, kept for a rewrite.
    public var trailing: [UInt8]

    /// Creates an instrument chunk.
    public init(
        baseNote: Float, midiLowNote: UInt8, midiHighNote: UInt8, midiLowVelocity: UInt8, midiHighVelocity: UInt8,
        decibelGain: Float, startRegionID: UInt32, sustainRegionID: UInt32, releaseRegionID: UInt32,
        instrumentID: UInt32, trailing: [UInt8] = []
    ) {
        self.baseNote = baseNote
        self.midiLowNote = midiLowNote
        self.midiHighNote = midiHighNote
        self.midiLowVelocity = midiLowVelocity
        self.midiHighVelocity = midiHighVelocity
        self.decibelGain = decibelGain
        self.startRegionID = startRegionID
        self.sustainRegionID = sustainRegionID
        self.releaseRegionID = releaseRegionID
        self.instrumentID = instrumentID
        self.trailing = trailing
    }

    /// Reads an `inst` body.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        baseNote = try cursor.readFloat32(.big)
        midiLowNote = try cursor.readUInt8()
        midiHighNote = try cursor.readUInt8()
        midiLowVelocity = try cursor.readUInt8()
        midiHighVelocity = try cursor.readUInt8()
        decibelGain = try cursor.readFloat32(.big)
        startRegionID = try cursor.readUInt32(.big)
        sustainRegionID = try cursor.readUInt32(.big)
        releaseRegionID = try cursor.readUInt32(.big)
        instrumentID = try cursor.readUInt32(.big)
        trailing = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(baseNote, .big)
        for value in [midiLowNote, midiHighNote, midiLowVelocity, midiHighVelocity] { writer.write(value) }
        writer.write(decibelGain, .big)
        writer.write(startRegionID, .big)
        writer.write(sustainRegionID, .big)
        writer.write(releaseRegionID, .big)
        writer.write(instrumentID, .big)
        writer.write(bytes: trailing)
    }
}

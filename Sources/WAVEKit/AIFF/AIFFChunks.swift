import BinaryIO

/// Converts an 80-bit IEEE 754 extended-precision number (as used for the AIFF sample rate) to
/// a `Double`; integers and other values with at most 53 significant bits convert exactly.
public func doubleFromExtended80(_ bytes: [UInt8]) -> Double {
    guard bytes.count >= 10 else { return 0 }
    let signAndExponent = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    var mantissa: UInt64 = 0
    for byte in bytes[2..<10] { mantissa = mantissa << 8 | UInt64(byte) }
    let sign: FloatingPointSign = signAndExponent & 0x8000 != 0 ? .minus : .plus
    let exponent = Int(signAndExponent & 0x7FFF)
    if exponent == 0x7FFF {
        return mantissa << 1 == 0 ? (sign == .minus ? -.infinity : .infinity) : .nan
    }
    if mantissa == 0 { return sign == .minus ? -0.0 : 0.0 }
    // value = mantissa * 2^(exponent - 16383 - 63); Double(mantissa) rounds only below bit 53.
    let unbiased = (exponent == 0 ? 1 : exponent) - 16383 - 63
    return Double(sign: sign, exponent: unbiased, significand: Double(mantissa))
}

/// Reads a Pascal string (count byte, then text) padded to an even total length.
func readPascalString(_ cursor: inout ByteCursor) throws(ByteError) -> String {
    let count = Int(try cursor.readUInt8())
    let text = ChunkText.decode(try cursor.readBytes(count), stopAtNUL: false)
    if count % 2 == 0, cursor.remaining > 0 { try cursor.skip(1) }
    return text
}

/// The `COMM` chunk of an AIFF or AIFF-C file.
public struct AIFFCommon: Equatable, Sendable {
    /// Channels.
    public var channels: Int16
    /// Sample frames in the `SSND` chunk; authoritative for the frame count.
    public var sampleFrames: UInt32
    /// Bits per sample as written.
    public var sampleSize: Int16
    /// The sample rate, converted from 80-bit extended precision.
    public var sampleRate: Double
    /// The compression type (`NONE` in plain AIFF).
    public var compressionType: FourCC
    /// The compression name (AIFF-C), for example "not compressed".
    public var compressionName: String?

    /// Parses the chunk body; `aifc` reads the compression type and name.
    public init(parsing cursor: inout ByteCursor, aifc: Bool) throws(ByteError) {
        channels = try cursor.readInt16(.big)
        sampleFrames = try cursor.readUInt32(.big)
        sampleSize = try cursor.readInt16(.big)
        sampleRate = doubleFromExtended80(try cursor.readBytes(10))
        compressionType = FourCC("NONE")
        if aifc, cursor.remaining >= 4 {
            compressionType = try cursor.readFourCC()
            if cursor.remaining >= 1 { compressionName = try readPascalString(&cursor) }
        }
    }
}

/// One marker of a `MARK` chunk.
public struct AIFFMarker: Equatable, Sendable {
    /// The id that `INST` loops and `COMT` comments refer to.
    public var id: Int16
    /// The position in sample frames.
    public var position: UInt32
    /// The name.
    public var name: String

    /// Creates a marker.
    public init(id: Int16, position: UInt32, name: String) {
        self.id = id
        self.position = position
        self.name = name
    }

    /// Parses a `MARK` body; markers cut short by the end of the body are left out.
    /// Returns the markers and the count as written.
    public static func parseList(_ cursor: inout ByteCursor) throws(ByteError) -> (markers: [AIFFMarker], declaredCount: UInt16) {
        let count = try cursor.readUInt16(.big)
        var markers: [AIFFMarker] = []
        for _ in 0..<count {
            guard cursor.remaining >= 7 else { break }
            let id = try cursor.readInt16(.big)
            let position = try cursor.readUInt32(.big)
            guard let name = try? readPascalString(&cursor) else { break }
            markers.append(AIFFMarker(id: id, position: position, name: name))
        }
        return (markers, count)
    }
}

/// A loop of an `INST` chunk.
public struct AIFFLoop: Equatable, Sendable {
    /// 0 no loop, 1 forward, 2 forward and backward.
    public var playMode: Int16
    /// The marker id of the loop start.
    public var beginMarker: Int16
    /// The marker id of the loop end.
    public var endMarker: Int16

    /// Creates a loop.
    public init(playMode: Int16, beginMarker: Int16, endMarker: Int16) {
        self.playMode = playMode
        self.beginMarker = beginMarker
        self.endMarker = endMarker
    }
}

/// The `INST` chunk: how a sampler should play the sound.
public struct AIFFInstrument: Equatable, Sendable {
    /// The MIDI note at the recorded pitch.
    public var baseNote: Int8
    /// Detune in cents (-50...50).
    public var detune: Int8
    /// The lowest MIDI note to play the sound for.
    public var lowNote: Int8
    /// The highest MIDI note.
    public var highNote: Int8
    /// The lowest velocity.
    public var lowVelocity: Int8
    /// The highest velocity.
    public var highVelocity: Int8
    /// Gain in decibels.
    public var gain: Int16
    /// The sustain loop.
    public var sustainLoop: AIFFLoop
    /// The release loop.
    public var releaseLoop: AIFFLoop

    /// Parses the 20-byte chunk body.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        baseNote = Int8(bitPattern: try cursor.readUInt8())
        detune = Int8(bitPattern: try cursor.readUInt8())
        lowNote = Int8(bitPattern: try cursor.readUInt8())
        highNote = Int8(bitPattern: try cursor.readUInt8())
        lowVelocity = Int8(bitPattern: try cursor.readUInt8())
        highVelocity = Int8(bitPattern: try cursor.readUInt8())
        gain = try cursor.readInt16(.big)
        sustainLoop = AIFFLoop(
            playMode: try cursor.readInt16(.big), beginMarker: try cursor.readInt16(.big),
            endMarker: try cursor.readInt16(.big))
        releaseLoop = AIFFLoop(
            playMode: try cursor.readInt16(.big), beginMarker: try cursor.readInt16(.big),
            endMarker: try cursor.readInt16(.big))
    }
}

/// One comment of a `COMT` chunk.
public struct AIFFComment: Equatable, Sendable {
    /// Seconds since 1904-01-01.
    public var timeStamp: UInt32
    /// The marker the comment refers to (0 when none).
    public var marker: Int16
    /// The text.
    public var text: String

    /// Creates a comment.
    public init(timeStamp: UInt32, marker: Int16, text: String) {
        self.timeStamp = timeStamp
        self.marker = marker
        self.text = text
    }

    /// Parses a `COMT` body; comments cut short by the end of the body are left out.
    public static func parseList(_ cursor: inout ByteCursor) throws(ByteError) -> [AIFFComment] {
        let count = try cursor.readUInt16(.big)
        var comments: [AIFFComment] = []
        for _ in 0..<count {
            guard cursor.remaining >= 8 else { break }
            let time = try cursor.readUInt32(.big)
            let marker = try cursor.readInt16(.big)
            let length = Int(try cursor.readUInt16(.big))
            guard length <= cursor.remaining else { break }
            let text = ChunkText.decode(try cursor.readBytes(length), stopAtNUL: false)
            if length % 2 == 1, cursor.remaining > 0 { try cursor.skip(1) }
            comments.append(AIFFComment(timeStamp: time, marker: marker, text: text))
        }
        return comments
    }
}

/// A text chunk of an AIFF file: `NAME`, `AUTH`, `(c) ` or `ANNO`.
public struct AIFFText: Equatable, Sendable {
    /// The chunk type.
    public var type: FourCC
    /// The text.
    public var text: String

    /// Creates a text entry.
    public init(type: FourCC, text: String) {
        self.type = type
        self.text = text
    }
}

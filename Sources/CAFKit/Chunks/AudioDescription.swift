import BinaryIO

/// The `desc` chunk: the format of the audio data (Apple's `CAFAudioDescription`).
public struct AudioDescription: Equatable, Hashable, Sendable {
    /// `kCAFLinearPCMFormatFlagIsFloat`.
    public static let flagIsFloat: UInt32 = 1 << 0
    /// `kCAFLinearPCMFormatFlagIsLittleEndian`.
    public static let flagIsLittleEndian: UInt32 = 1 << 1
    /// The size of the chunk body in bytes.
    public static let size = 32

    /// Frames per second.
    public var sampleRate: Double
    /// The format, such as `lpcm`, `ima4` or `aac `.
    public var formatID: FourCC
    /// Format-specific flags; for `lpcm` the float and little-endian bits.
    public var formatFlags: UInt32
    /// Bytes in one packet; 0 when packets vary in size.
    public var bytesPerPacket: UInt32
    /// Frames in one packet; 0 when packets vary in duration.
    public var framesPerPacket: UInt32
    /// Channels in one frame.
    public var channelsPerFrame: UInt32
    /// Bits per sample of one channel; 0 for compressed formats.
    public var bitsPerChannel: UInt32

    /// Creates a description from its fields.
    public init(
        sampleRate: Double, formatID: FourCC, formatFlags: UInt32, bytesPerPacket: UInt32,
        framesPerPacket: UInt32, channelsPerFrame: UInt32, bitsPerChannel: UInt32
    ) {
        self.sampleRate = sampleRate
        self.formatID = formatID
        self.formatFlags = formatFlags
        self.bytesPerPacket = bytesPerPacket
        self.framesPerPacket = framesPerPacket
        self.channelsPerFrame = channelsPerFrame
        self.bitsPerChannel = bitsPerChannel
    }

    /// A linear PCM description with packed samples.
    public static func linearPCM(
        sampleRate: Double, channels: UInt32, bits: UInt32, isFloat: Bool,
        byteOrder: ByteOrder
    ) -> AudioDescription {
        var flags: UInt32 = isFloat ? flagIsFloat : 0
        if byteOrder == .little { flags |= flagIsLittleEndian }
        return AudioDescription(
            sampleRate: sampleRate, formatID: .lpcm, formatFlags: flags,
            bytesPerPacket: channels * ((bits + 7) / 8), framesPerPacket: 1,
            channelsPerFrame: channels, bitsPerChannel: bits)
    }

    /// Reads the 32-byte body (all fields big-endian).
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        sampleRate = try cursor.readFloat64(.big)
        formatID = try cursor.readFourCC()
        formatFlags = try cursor.readUInt32(.big)
        bytesPerPacket = try cursor.readUInt32(.big)
        framesPerPacket = try cursor.readUInt32(.big)
        channelsPerFrame = try cursor.readUInt32(.big)
        bitsPerChannel = try cursor.readUInt32(.big)
    }

    /// Appends the 32-byte body.
    public func write(to writer: inout ByteWriter) {
        writer.write(sampleRate, .big)
        writer.write(formatID)
        writer.write(formatFlags, .big)
        writer.write(bytesPerPacket, .big)
        writer.write(framesPerPacket, .big)
        writer.write(channelsPerFrame, .big)
        writer.write(bitsPerChannel, .big)
    }

    /// Whether this is linear PCM.
    public var isLinearPCM: Bool { formatID == .lpcm }
    /// Whether the samples are IEEE floats (linear PCM only).
    public var isFloat: Bool { isLinearPCM && formatFlags & Self.flagIsFloat != 0 }
    /// The byte order of the samples, or `nil` when the format is not linear PCM.
    ///
    /// For other formats the flags mean something else (for AAC they hold the object type).
    public var byteOrder: ByteOrder? {
        guard isLinearPCM else { return nil }
        return formatFlags & Self.flagIsLittleEndian != 0 ? .little : .big
    }

    /// Bytes per frame for linear PCM; `nil` for other formats or when undefined.
    public var bytesPerFrame: UInt32? {
        guard isLinearPCM, framesPerPacket == 1, bytesPerPacket > 0 else { return nil }
        return bytesPerPacket
    }

    /// The format in words, byte order included: "16-bit signed integer, little-endian".
    public var formatName: String {
        switch formatID {
        case .lpcm:
            let kind = isFloat ? "floating point" : "signed integer"
            let order = bitsPerChannel <= 8 && !isFloat ? "" : ", \(byteOrder == .little ? "little" : "big")-endian"
            return "\(bitsPerChannel)-bit \(kind)\(order)"
        case .ima4: return "IMA 4:1 ADPCM"
        case .alac: return "Apple Lossless"
        case .aac: return "AAC"
        case FourCC("aacl"): return "AAC-LD"
        case .ulaw: return "µ-law"
        case .alaw: return "A-law"
        case FourCC("opus"): return "Opus"
        default: return "'\(formatID)'"
        }
    }
}

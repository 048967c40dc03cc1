import BinaryIO

/// The 28-byte `kuki` of an Opus CAF as Apple's encoder writes it: seven big-endian 32-bit
/// integers. Read from an iOS voice recording (docs/opus.md): libopus's application constant,
/// the coded rate, the frames per packet, the bit rate (`OPUS_AUTO`, -1000, when the encoder
/// chose it), the channel count, and two values that were 0 in every file seen.
public struct OpusCookie: Equatable, Sendable {
    /// The cookie's size in bytes.
    public static let size = 28
    /// libopus's `OPUS_AUTO`.
    public static let automaticBitRate: Int32 = -1000

    /// libopus's application (2048 VOIP, 2049 AUDIO, 2051 RESTRICTED_LOWDELAY).
    public var application: Int32
    /// The coded sample rate.
    public var sampleRate: Int32
    /// Frames per packet at the coded rate.
    public var framesPerPacket: Int32
    /// The bit rate asked for, or ``automaticBitRate``.
    public var bitRate: Int32
    /// Channels.
    public var channels: Int32
    /// The sixth and seventh values (0 in Apple's files).
    public var reserved: (Int32, Int32)

    /// A cookie; the two last values 0.
    public init(application: Int32, sampleRate: Int32, framesPerPacket: Int32, bitRate: Int32, channels: Int32) {
        self.application = application
        self.sampleRate = sampleRate
        self.framesPerPacket = framesPerPacket
        self.bitRate = bitRate
        self.channels = channels
        reserved = (0, 0)
    }

    /// Parses the 28 bytes; throws a sentence when there are not 28.
    public init(parsing bytes: [UInt8]) throws(OpusFormatError) {
        guard bytes.count == Self.size else {
            throw OpusFormatError("its 'kuki' has \(bytes.count) bytes, not the \(Self.size) of Apple's Opus cookie")
        }
        var values: [Int32] = []
        for index in 0..<7 {
            let at = index * 4
            let word = UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
            values.append(Int32(bitPattern: word))
        }
        application = values[0]
        sampleRate = values[1]
        framesPerPacket = values[2]
        bitRate = values[3]
        channels = values[4]
        reserved = (values[5], values[6])
    }

    /// The 28 bytes.
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        for value in [application, sampleRate, framesPerPacket, bitRate, channels, reserved.0, reserved.1] {
            writer.write(UInt32(bitPattern: value), .big)
        }
        return writer.bytes
    }

    /// The application's libopus name (`voip`, `audio`, `restricted-lowdelay`), else the number.
    public var applicationName: String {
        switch application {
        case 2048: return "voip"
        case 2049: return "audio"
        case 2051: return "restricted-lowdelay"
        default: return "\(application)"
        }
    }

    public static func == (lhs: OpusCookie, rhs: OpusCookie) -> Bool { lhs.bytes == rhs.bytes }
}

/// What is wrong with an Opus CAF's `kuki` or packets: one sentence.
public struct OpusFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension CAFWriter {
    /// The chunks of an Opus CAF around its packet sizes, laid out as Apple's encoder lays them out
    /// (docs/opus.md, ``packetLayout(_:chunks:packetTable:tableBytes:audioBytes:)``): `desc`
    /// (`opus`, flags 0, 0 bytes per packet, `framesPerPacket`, 0 bits), `kuki` (``OpusCookie``),
    /// `chan` (`channelLayout`, else the mono or stereo tag), `extra`
    /// (an `info` chunk and other metadata, where Apple writes its `info`), `pakt`, `free` up to
    /// audio at the next multiple of 4096, `data`.
    public static func opusLayout(
        sampleRate: Double, channels: Int, framesPerPacket: Int, cookie: OpusCookie,
        packetTable: PacketTableHeader, tableBytes: Int, audioBytes: UInt64, channelLayout: ChannelLayout? = nil,
        extra: [CAFChunk] = []
    ) -> (before: [UInt8], after: [UInt8]) {
        let description = AudioDescription(
            sampleRate: sampleRate, formatID: .opus, formatFlags: 0, bytesPerPacket: 0,
            framesPerPacket: UInt32(clamping: framesPerPacket), channelsPerFrame: UInt32(clamping: channels), bitsPerChannel: 0)
        // kAudioChannelLayoutTag_Mono (100 << 16 | 1) and _Stereo (101 << 16 | 2).
        let tag: UInt32 = channels == 1 ? 100 << 16 | 1 : 101 << 16 | 2
        let chunks: [CAFChunk] = [
            .magicCookie(MagicCookie(bytes: cookie.bytes)), .channelLayout(channelLayout ?? ChannelLayout(tag: tag)),
        ]
        return packetLayout(
            description, chunks: chunks + extra, packetTable: packetTable, tableBytes: tableBytes, audioBytes: audioBytes)
    }
}

import BinaryIO

/// The `kuki` chunk: codec-specific configuration ("magic cookie"), kept as raw bytes.
public struct MagicCookie: Equatable, Hashable, Sendable {
    /// The cookie bytes exactly as stored.
    public var bytes: [UInt8]

    /// Wraps cookie bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The Apple Lossless configuration in the cookie, found bare or inside `frma`/`alac` atoms;
    /// `nil` when the bytes do not hold one.
    public var alac: ALACSpecificConfig? {
        var cursor = ByteCursor(bytes)
        // Wrapped form: ['frma' atom] ['alac' atom: size, 'alac', version+flags, config] ...
        if bytes.count >= 12, FourCC(bytes: bytes[4], bytes[5], bytes[6], bytes[7]) == FourCC("frma") {
            guard (try? cursor.skip(12)) != nil else { return nil }
        }
        if cursor.remaining >= 12 + ALACSpecificConfig.size {
            let at = cursor.index
            if FourCC(bytes: bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]) == .alac {
                guard (try? cursor.skip(12)) != nil else { return nil }
            }
        }
        return try? ALACSpecificConfig(parsing: &cursor)
    }
}

/// The Apple Lossless decoder configuration (24 bytes, big-endian).
public struct ALACSpecificConfig: Equatable, Hashable, Sendable {
    /// The size of the configuration in bytes.
    public static let size = 24

    /// Frames per packet (normally 4096).
    public var frameLength: UInt32
    /// The oldest decoder version that can read the stream (0).
    public var compatibleVersion: UInt8
    /// Bits per decoded sample: 16, 20, 24 or 32.
    public var bitDepth: UInt8
    /// Rice coder tuning: history multiplier.
    public var pb: UInt8
    /// Rice coder tuning: initial history.
    public var mb: UInt8
    /// Rice coder tuning: parameter limit.
    public var kb: UInt8
    /// Channels in the stream.
    public var numChannels: UInt8
    /// Largest run of identical samples (255).
    public var maxRun: UInt16
    /// Largest packet in bytes, 0 when unknown.
    public var maxFrameBytes: UInt32
    /// Average bit rate, 0 when unknown.
    public var avgBitRate: UInt32
    /// Frames per second.
    public var sampleRate: UInt32

    /// Creates a configuration from its fields.
    public init(
        frameLength: UInt32, compatibleVersion: UInt8, bitDepth: UInt8, pb: UInt8, mb: UInt8, kb: UInt8,
        numChannels: UInt8, maxRun: UInt16, maxFrameBytes: UInt32, avgBitRate: UInt32, sampleRate: UInt32
    ) {
        self.frameLength = frameLength
        self.compatibleVersion = compatibleVersion
        self.bitDepth = bitDepth
        self.pb = pb
        self.mb = mb
        self.kb = kb
        self.numChannels = numChannels
        self.maxRun = maxRun
        self.maxFrameBytes = maxFrameBytes
        self.avgBitRate = avgBitRate
        self.sampleRate = sampleRate
    }

    /// Reads the 24 bytes.
    public init(parsing cursor: inout ByteCursor) throws(ByteError) {
        frameLength = try cursor.readUInt32(.big)
        compatibleVersion = try cursor.readUInt8()
        bitDepth = try cursor.readUInt8()
        pb = try cursor.readUInt8()
        mb = try cursor.readUInt8()
        kb = try cursor.readUInt8()
        numChannels = try cursor.readUInt8()
        maxRun = try cursor.readUInt16(.big)
        maxFrameBytes = try cursor.readUInt32(.big)
        avgBitRate = try cursor.readUInt32(.big)
        sampleRate = try cursor.readUInt32(.big)
    }

    /// Appends the 24 bytes.
    public func write(to writer: inout ByteWriter) {
        writer.write(frameLength, .big)
        writer.write(compatibleVersion)
        writer.write(bitDepth)
        writer.write(pb)
        writer.write(mb)
        writer.write(kb)
        writer.write(numChannels)
        writer.write(maxRun, .big)
        writer.write(maxFrameBytes, .big)
        writer.write(avgBitRate, .big)
        writer.write(sampleRate, .big)
    }
}

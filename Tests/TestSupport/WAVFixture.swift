import BinaryIO

/// Builds RIFF/WAVE files in memory from known sample values, independently of libsndfile,
/// so tests know exactly what the source holds.
public struct WAVFixture: Sendable {
    /// The sample encoding of the fixture.
    public enum Encoding: Sendable, Equatable, CustomStringConvertible {
        /// Unsigned 8-bit (WAV's only 8-bit form); values are given signed (-128...127) and stored +128.
        case unsigned8
        /// Signed 8-bit: not valid in WAV; used only to build deliberately odd files.
        case signed8
        case int16, int24, int32, float32, float64

        /// Bits per sample.
        public var bits: Int {
            switch self {
            case .unsigned8, .signed8: return 8
            case .int16: return 16
            case .int24: return 24
            case .int32, .float32: return 32
            case .float64: return 64
            }
        }

        /// Whether samples are floats.
        public var isFloat: Bool { self == .float32 || self == .float64 }

        public var description: String {
            switch self {
            case .unsigned8: return "u8"
            case .signed8: return "s8"
            case .int16: return "i16"
            case .int24: return "i24"
            case .int32: return "i32"
            case .float32: return "f32"
            case .float64: return "f64"
            }
        }
    }

    /// The encoding.
    public var encoding: Encoding
    /// Channels.
    public var channels: Int
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved integer sample values (for integer encodings), in the encoding's range.
    public var integers: [Int32]
    /// Interleaved float sample values (for float encodings).
    public var floats: [Double]
    /// Write WAVE_FORMAT_EXTENSIBLE instead of the plain header.
    public var extensible: Bool
    /// The EXTENSIBLE channel mask; `nil` writes the usual one for the channel count.
    public var channelMask: UInt32? = nil

    /// Creates a fixture; pass `integers` or `floats` matching `encoding`.
    public init(
        encoding: Encoding, channels: Int, sampleRate: Int = 44100, integers: [Int32] = [],
        floats: [Double] = [], extensible: Bool = false
    ) {
        self.encoding = encoding
        self.channels = channels
        self.sampleRate = sampleRate
        self.integers = integers
        self.floats = floats
        self.extensible = extensible
    }

    /// A fixture of `frames` frames of deterministic test signal that includes both full-scale
    /// extremes, -1 LSB and zero, so scaling mistakes show.
    public static func signal(
        _ encoding: Encoding, channels: Int, frames: Int, sampleRate: Int = 44100,
        extensible: Bool = false, seed: UInt64 = 1
    ) -> WAVFixture {
        var generator = SplitMix64(seed: seed &+ UInt64(channels) &* 31 &+ UInt64(encoding.bits))
        let count = frames * channels
        if encoding.isFloat {
            let fixed: [Double] = [1.0, -1.0, 0.0, -1.0 / 32768.0, 0.5, -0.5, 0.999_969_482_421_875]
            let values = (0..<count).map { index -> Double in
                if index < fixed.count { return fixed[index] }
                let unit = Double(generator.next() >> 11) / Double(1 << 53)
                let value = unit * 2 - 1
                return encoding == .float32 ? Double(Float(value)) : value
            }
            return WAVFixture(
                encoding: encoding, channels: channels, sampleRate: sampleRate, floats: values,
                extensible: extensible)
        }
        let bits = encoding.bits
        let maximum = Int64(1) << (bits - 1) - 1
        let minimum = -(Int64(1) << (bits - 1))
        let fixed: [Int64] = [maximum, minimum, 0, -1, 1, maximum - 1, minimum + 1]
        let values = (0..<count).map { index -> Int32 in
            if index < fixed.count { return Int32(fixed[index]) }
            let span = UInt64(maximum - minimum + 1)
            return Int32(minimum + Int64(generator.next() % span))
        }
        return WAVFixture(
            encoding: encoding, channels: channels, sampleRate: sampleRate, integers: values,
            extensible: extensible)
    }

    /// Frames in the fixture.
    public var frames: Int { (encoding.isFloat ? floats.count : integers.count) / max(channels, 1) }

    /// The sample bytes as they appear in the `data` chunk (little-endian).
    public var sampleBytes: [UInt8] { sampleBytes(order: .little) }

    /// The sample bytes in the given byte order (`.big` as in a RIFX file).
    public func sampleBytes(order: ByteOrder) -> [UInt8] {
        var writer = ByteWriter()
        switch encoding {
        case .unsigned8:
            for value in integers { writer.write(UInt8(truncatingIfNeeded: value + 128)) }
        case .signed8:
            for value in integers { writer.write(UInt8(bitPattern: Int8(truncatingIfNeeded: value))) }
        case .int16:
            for value in integers { writer.write(Int16(truncatingIfNeeded: value), order) }
        case .int24:
            for value in integers {
                let raw = UInt32(bitPattern: value)
                let little = [UInt8(raw & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw >> 16 & 0xFF)]
                writer.write(bytes: order == .little ? little : little.reversed())
            }
        case .int32:
            for value in integers { writer.write(value, order) }
        case .float32:
            for value in floats { writer.write(Float(value), order) }
        case .float64:
            for value in floats { writer.write(value, order) }
        }
        return writer.bytes
    }

    /// The complete file.
    public var bytes: [UInt8] { bytes(order: .little) }

    /// The complete file as RIFF (`.little`) or RIFX (`.big`: sizes, `fmt ` fields and samples big-endian).
    public func bytes(order: ByteOrder) -> [UInt8] {
        let samples = sampleBytes(order: order)
        var fmt = ByteWriter()
        let blockAlign = channels * encoding.bits / 8
        let tag: UInt16 = extensible ? 0xFFFE : (encoding.isFloat ? 3 : 1)
        fmt.write(tag, order)
        fmt.write(UInt16(channels), order)
        fmt.write(UInt32(sampleRate), order)
        fmt.write(UInt32(sampleRate * blockAlign), order)
        fmt.write(UInt16(blockAlign), order)
        fmt.write(UInt16(encoding.bits), order)
        if extensible {
            fmt.write(UInt16(22), order)
            fmt.write(UInt16(encoding.bits), order)
            fmt.write(channelMask ?? UInt32(channels == 2 ? 3 : (channels == 1 ? 4 : (1 << channels) - 1)), order)
            // The sub-format GUID: a 32-bit and two 16-bit fields in the file's byte order, 8 bytes.
            let sub: UInt32 = encoding.isFloat ? 3 : 1
            fmt.write(sub, order)
            fmt.write(UInt16(0x0000), order)
            fmt.write(UInt16(0x0010), order)
            fmt.write(bytes: [0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        } else if encoding.isFloat {
            fmt.write(UInt16(0), order)
        }
        return WAVFixture.riff(chunks: [("fmt ", fmt.bytes), ("data", samples)], order: order)
    }

    /// Assembles a RIFF/WAVE file (RIFX when `order` is `.big`) from chunks, adding pad bytes
    /// after odd-sized bodies.
    public static func riff(chunks: [(String, [UInt8])], order: ByteOrder = .little) -> [UInt8] {
        var body = ByteWriter()
        body.write(bytes: Array("WAVE".utf8))
        for (id, content) in chunks {
            body.write(bytes: Array(id.utf8))
            body.write(UInt32(content.count), order)
            body.write(bytes: content)
            if content.count % 2 == 1 { body.write(UInt8(0)) }
        }
        var file = ByteWriter()
        file.write(bytes: Array((order == .little ? "RIFF" : "RIFX").utf8))
        file.write(UInt32(body.bytes.count), order)
        file.write(bytes: body.bytes)
        return file.bytes
    }
}

/// A small deterministic pseudo-random generator for fixtures.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// Seeds the generator.
    public init(seed: UInt64) { state = seed }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import BinaryIO

/// The layout of linear PCM samples: what one sample is and how a frame is packed.
public struct PCMLayout: Equatable, Hashable, Sendable {
    /// Bits per sample: 8, 16, 24 or 32 for integers, 32 or 64 for floats.
    public var bits: Int
    /// Whether samples are IEEE floats.
    public var isFloat: Bool
    /// The byte order of multi-byte samples.
    public var byteOrder: ByteOrder
    /// Channels per frame.
    public var channels: Int
    /// Whether 8-bit samples are unsigned (WAV) rather than signed (CAF, AIFF).
    public var isUnsigned8Bit: Bool

    /// Creates a layout.
    public init(bits: Int, isFloat: Bool, byteOrder: ByteOrder, channels: Int, isUnsigned8Bit: Bool = false) {
        self.bits = bits
        self.isFloat = isFloat
        self.byteOrder = byteOrder
        self.channels = channels
        self.isUnsigned8Bit = isUnsigned8Bit
    }

    /// The layout of a CAF linear PCM description, or `nil` when it is not packed linear PCM
    /// that this decoder knows.
    public init?(_ description: AudioDescription) {
        guard description.isLinearPCM, let order = description.byteOrder, description.channelsPerFrame > 0 else { return nil }
        let bits = Int(description.bitsPerChannel)
        let channels = Int(description.channelsPerFrame)
        let valid = description.isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits)
        guard valid, Int(description.bytesPerPacket) == channels * (bits / 8), description.framesPerPacket == 1 else {
            return nil
        }
        self.init(bits: bits, isFloat: description.isFloat, byteOrder: order, channels: channels)
    }

    /// Bytes per sample.
    public var bytesPerSample: Int { bits / 8 }
    /// Bytes per frame.
    public var bytesPerFrame: Int { bytesPerSample * channels }

    /// Decodes integer samples into their signed values (`Int32`, not scaled or shifted);
    /// unsigned 8-bit samples are centred (0x80 becomes 0). A partial last sample is dropped.
    public func decodeIntegers(_ bytes: ArraySlice<UInt8>) -> [Int32] {
        precondition(!isFloat, "decodeIntegers needs an integer layout")
        let width = bytesPerSample
        guard width > 0 else { return [] }
        let count = bytes.count / width
        let little = byteOrder == .little
        return bytes.withUnsafeBytes { raw in
            [Int32](unsafeUninitializedCapacity: count) { out, initialized in
                // One loop per width and order, so that each compiles to straight-line loads.
                switch width {
                case 1 where isUnsigned8Bit:
                    for index in 0..<count { out[index] = Int32(raw[index]) - 128 }
                case 1:
                    for index in 0..<count { out[index] = Int32(Int8(bitPattern: raw[index])) }
                case 2 where bits == 16:
                    for index in 0..<count {
                        let word = raw.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self)
                        out[index] = Int32(Int16(bitPattern: little ? UInt16(littleEndian: word) : UInt16(bigEndian: word)))
                    }
                case 3 where bits == 24:
                    for index in 0..<count {
                        let at = index * 3
                        let (low, high) = little ? (raw[at], raw[at + 2]) : (raw[at + 2], raw[at])
                        let word = UInt32(low) << 8 | UInt32(raw[at + 1]) << 16 | UInt32(high) << 24
                        out[index] = Int32(bitPattern: word) >> 8
                    }
                case 4 where bits == 32:
                    for index in 0..<count {
                        let word = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                        out[index] = Int32(bitPattern: little ? UInt32(littleEndian: word) : UInt32(bigEndian: word))
                    }
                default:
                    for index in 0..<count { out[index] = genericInteger(raw, at: index * width, width: width) }
                }
                initialized = count
            }
        }
    }

    /// Any width up to 4 bytes holding `bits` significant bits, sign-extended.
    private func genericInteger(_ raw: UnsafeRawBufferPointer, at offset: Int, width: Int) -> Int32 {
        var word: UInt32 = 0
        for position in 0..<min(width, 4) {
            let shift = byteOrder == .big ? (width - 1 - position) * 8 : position * 8
            word |= UInt32(raw[offset + position]) << UInt32(shift)
        }
        let unused = UInt32(max(0, 32 - bits))
        return Int32(bitPattern: word << unused) >> Int32(unused)
    }

    /// Decodes float samples (32- or 64-bit) into `Double`s, exactly. A partial last sample is dropped.
    public func decodeFloats(_ bytes: ArraySlice<UInt8>) -> [Double] {
        precondition(isFloat, "decodeFloats needs a float layout")
        let width = bytesPerSample
        guard width == 4 || width == 8 else { return [] }
        let count = bytes.count / width
        let little = byteOrder == .little
        return bytes.withUnsafeBytes { raw in
            [Double](unsafeUninitializedCapacity: count) { out, initialized in
                if width == 4 {
                    for index in 0..<count {
                        let word = raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                        out[index] = Double(Float(bitPattern: little ? UInt32(littleEndian: word) : UInt32(bigEndian: word)))
                    }
                } else {
                    for index in 0..<count {
                        let word = raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                        out[index] = Double(bitPattern: little ? UInt64(littleEndian: word) : UInt64(bigEndian: word))
                    }
                }
                initialized = count
            }
        }
    }
}

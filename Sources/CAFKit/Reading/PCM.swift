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
        let count = bytes.count / width
        var result = [Int32](repeating: 0, count: count)
        var index = bytes.startIndex
        for sample in 0..<count {
            var raw: UInt32 = 0
            for position in 0..<width {
                let byte = UInt32(bytes[index + position])
                let shift = byteOrder == .big ? (width - 1 - position) * 8 : position * 8
                raw |= byte << UInt32(shift)
            }
            index += width
            if width == 1 && isUnsigned8Bit {
                result[sample] = Int32(raw) - 128
            } else {
                let unused = UInt32(32 - bits)
                result[sample] = Int32(bitPattern: raw << unused) >> Int32(unused)
            }
        }
        return result
    }

    /// Decodes float samples (32- or 64-bit) into `Double`s, exactly.
    public func decodeFloats(_ bytes: ArraySlice<UInt8>) -> [Double] {
        precondition(isFloat, "decodeFloats needs a float layout")
        var cursor = ByteCursor(Array(bytes))
        var result: [Double] = []
        result.reserveCapacity(bytes.count / bytesPerSample)
        while cursor.remaining >= bytesPerSample {
            // The loop condition guarantees the bytes, so these reads cannot fail.
            if bits == 32, let value = try? cursor.readFloat32(byteOrder) {
                result.append(Double(value))
            } else if let value = try? cursor.readFloat64(byteOrder) {
                result.append(value)
            }
        }
        return result
    }
}

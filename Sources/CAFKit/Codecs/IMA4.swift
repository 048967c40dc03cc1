/// Apple IMA 4:1 ADPCM (`ima4`), the packet format QuickTime and Core Audio use.
///
/// One packet holds 64 frames. For each channel in turn it holds 34 bytes: a big-endian 16-bit
/// preamble (the predictor's top 9 bits, then a 7-bit step index 0-88) and 32 bytes of 64 4-bit
/// codes, low nibble first. Channels are interleaved per packet, never per sample. The step and
/// index tables are those of the IMA ADPCM recommended practice (1992).
public enum IMA4 {
    /// Frames in one packet.
    public static let framesPerPacket = 64
    /// Bytes of one channel in one packet: the 2-byte preamble and 32 bytes of codes.
    public static let bytesPerChannelPacket = 34
    /// The largest step index.
    public static let maxStepIndex: Int32 = 88

    /// Bytes in one packet of `channels` channels.
    public static func bytesPerPacket(channels: Int) -> Int { bytesPerChannelPacket * channels }

    /// Packets needed for `frames` frames (the last one padded).
    public static func packets(forFrames frames: UInt64) -> UInt64 {
        frames / UInt64(framesPerPacket) + (frames % UInt64(framesPerPacket) == 0 ? 0 : 1)
    }

    /// The step sizes, indexed by step index 0-88.
    public static let stepTable: [Int32] = [
        7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97,
        107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796,
        876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428,
        4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350,
        22385, 24623, 27086, 29794, 32767,
    ]

    /// How a code's magnitude (its low 3 bits) moves the step index.
    public static let indexAdjustment: [Int32] = [-1, -1, -1, -1, 2, 4, 6, 8]

    /// The difference a code of magnitude `magnitude` (0-7) adds to or subtracts from the predictor
    /// at `step`: step/8 + step (bit 2) + step/2 (bit 1) + step/4 (bit 0), each term shifted
    /// separately as decoders do.
    @inline(__always)
    public static func difference(step: Int32, magnitude: Int32) -> Int32 {
        var diff = step >> 3
        if magnitude & 4 != 0 { diff += step }
        if magnitude & 2 != 0 { diff += step >> 1 }
        if magnitude & 1 != 0 { diff += step >> 2 }
        return diff
    }

    /// One channel's decoder state: a 16-bit predictor and a step index 0-88.
    public struct ChannelState: Equatable, Hashable, Sendable {
        /// The last decoded sample.
        public var predictor: Int32
        /// The index into ``IMA4/stepTable``.
        public var stepIndex: Int32

        /// Creates a state.
        public init(predictor: Int32 = 0, stepIndex: Int32 = 0) {
            self.predictor = predictor
            self.stepIndex = stepIndex
        }

        /// Decodes one 4-bit code and returns the new sample (the predictor and the step index
        /// are clamped to their ranges).
        @inline(__always)
        public mutating func expand(_ code: UInt8) -> Int16 {
            let step = IMA4.stepTable[Int(stepIndex)]
            let magnitude = Int32(code & 7)
            let diff = IMA4.difference(step: step, magnitude: magnitude)
            let next = code & 8 != 0 ? predictor - diff : predictor + diff
            predictor = min(max(next, -32768), 32767)
            stepIndex = min(max(stepIndex + IMA4.indexAdjustment[Int(magnitude)], 0), IMA4.maxStepIndex)
            return Int16(truncatingIfNeeded: predictor)
        }
    }

    /// The two preamble bytes for a packet that starts from `predictor` (its low 7 bits are
    /// dropped) and `stepIndex` (clamped to 0-88).
    public static func preamble(predictor: Int32, stepIndex: Int32) -> (UInt8, UInt8) {
        let clampedPredictor = min(max(predictor, -32768), 32767)
        let word =
            UInt16(truncatingIfNeeded: clampedPredictor) & 0xFF80
            | UInt16(truncatingIfNeeded: min(max(stepIndex, 0), maxStepIndex))
        return (UInt8(word >> 8), UInt8(word & 0xFF))
    }

    /// The predictor (a multiple of 128) and the raw step index (0-127) stored in a preamble.
    public static func parsePreamble(_ high: UInt8, _ low: UInt8) -> (predictor: Int32, stepIndex: Int32) {
        let word = Int16(bitPattern: UInt16(high) << 8 | UInt16(low))
        return (Int32(word) & ~0x7F, Int32(low & 0x7F))
    }
}

/// Decodes IMA4 packets into 16-bit samples, keeping each channel's state from one packet to the
/// next.
///
/// How a packet's preamble is applied follows ffmpeg's `adpcm_ima_qt` decoder, so that the output
/// is bit-exact with it: when the preamble's step index equals the channel's current one and its
/// predictor is within 127 of the current predictor, the current (full-precision) predictor is
/// kept; otherwise the channel starts from the preamble. A step index above 88 is clamped to 88
/// (ffmpeg rejects such a packet; libsndfile clamps). ``PreambleRule/reload`` always starts from
/// the preamble, as libsndfile does. cafconv's encoder writes streams that decode the same under
/// both rules.
public struct IMA4Decoder: Sendable {
    /// How a packet's preamble sets the channel state.
    public enum PreambleRule: Sendable, Equatable {
        /// ffmpeg's rule: keep the current predictor when the preamble is a rounding of it.
        case continueWhenClose
        /// libsndfile's rule: always start from the preamble.
        case reload
    }

    /// Channels per frame.
    public let channels: Int
    /// The preamble rule.
    public let rule: PreambleRule
    /// Each channel's state after the last packet decoded.
    public private(set) var states: [IMA4.ChannelState]

    /// A decoder for `channels` channels (at least 1), starting from predictor 0 and step index 0.
    public init(channels: Int, rule: PreambleRule = .continueWhenClose) {
        precondition(channels > 0, "IMA4Decoder needs at least one channel")
        self.channels = channels
        self.rule = rule
        states = Array(repeating: IMA4.ChannelState(), count: channels)
    }

    /// Bytes in one packet.
    public var bytesPerPacket: Int { IMA4.bytesPerPacket(channels: channels) }

    /// Decodes the whole packets at the start of `bytes` and appends their frames, interleaved,
    /// to `output`. Bytes after the last whole packet are ignored. Returns the packets decoded.
    @discardableResult
    public mutating func decode(_ bytes: ArraySlice<UInt8>, appendingTo output: inout [Int16]) -> Int {
        let packetSize = bytesPerPacket
        let packets = bytes.count / packetSize
        guard packets > 0 else { return 0 }
        let channels = self.channels
        let base = output.count
        let added = packets * IMA4.framesPerPacket * channels
        output.append(contentsOf: repeatElement(0, count: added))
        let rule = self.rule
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { all in
                states.withUnsafeMutableBufferPointer { states in
                    for packet in 0..<packets {
                        let packetStart = packet * packetSize
                        let frameBase = base + packet * IMA4.framesPerPacket * channels
                        for channel in 0..<channels {
                            let start = packetStart + channel * IMA4.bytesPerChannelPacket
                            let (predictor, rawIndex) = IMA4.parsePreamble(input[start], input[start + 1])
                            var state = states[channel]
                            let keep =
                                rule == .continueWhenClose && state.stepIndex == rawIndex
                                && abs(predictor - state.predictor) <= 0x7F
                            if !keep {
                                state = IMA4.ChannelState(predictor: predictor, stepIndex: min(rawIndex, IMA4.maxStepIndex))
                            }
                            var position = frameBase + channel
                            for byteIndex in 0..<32 {
                                let byte = input[start + 2 + byteIndex]
                                all[position] = state.expand(byte & 0x0F)
                                position += channels
                                all[position] = state.expand(byte >> 4)
                                position += channels
                            }
                            states[channel] = state
                        }
                    }
                }
            }
        }
        return packets
    }

    /// Forgets the channel states (predictor 0, step index 0), as at the start of a stream.
    public mutating func reset() {
        states = Array(repeating: IMA4.ChannelState(), count: channels)
    }
}

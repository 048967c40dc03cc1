import BinaryIO

/// The IMA4 audio of a CAF file, decoded block by block with the packet table's trim applied:
/// the priming frames are dropped, exactly the valid frames are delivered, the remainder (the
/// padding of the last packet) is never delivered. Memory is bounded by the block size.
public struct IMA4Stream: Sendable {
    /// Channels per frame.
    public let channels: Int
    /// Frames per second.
    public let sampleRate: Double
    /// Whole packets in the `data` chunk.
    public let packets: UInt64
    /// Frames to drop at the start (from `pakt`, else 0).
    public let primingFrames: UInt64
    /// Frames delivered: the `pakt` valid-frame count, else every frame of every whole packet.
    public let validFrames: UInt64
    /// Padding frames at the end of the last packet, as `pakt` declares them (0 without `pakt`).
    public let remainderFrames: UInt64
    /// Audio bytes after the last whole packet (ignored; 0 in a well-formed file).
    public let strayBytes: UInt64
    /// Where the audio starts in the file.
    public let audioOffset: UInt64

    /// Bytes in one packet.
    public var bytesPerPacket: Int { IMA4.bytesPerPacket(channels: channels) }
    /// The most packet bytes read at once (a block holds at least one packet).
    public static let maxBlockBytes = 1 << 20

    /// Checks that `file` holds IMA4 audio whose description and packet table can be decoded.
    ///
    /// Throws when the format is not `ima4`, when `desc` does not have 64 frames and 34 bytes per
    /// channel per packet, when `pakt` declares negative counts, or when the packets in the file
    /// hold fewer frames than the priming and valid frames `pakt` declares (a truncated file).
    public init(_ file: CAFFile) throws(CAFError) {
        let description = file.audioDescription
        let descOffset = file.audioDescriptionOffset
        guard description.formatID == .ima4 else {
            throw CAFError(.malformedChunk(.desc), at: descOffset, "the audio is '\(description.formatID)', not 'ima4'")
        }
        guard description.channelsPerFrame > 0, description.channelsPerFrame <= 1024 else {
            throw CAFError(
                .malformedChunk(.desc), at: descOffset,
                "IMA4 'desc' declares \(description.channelsPerFrame) channels, expected 1 to 1024")
        }
        let channels = Int(description.channelsPerFrame)
        guard description.framesPerPacket == UInt32(IMA4.framesPerPacket),
            description.bytesPerPacket == UInt32(IMA4.bytesPerPacket(channels: channels))
        else {
            throw CAFError(
                .malformedChunk(.desc), at: descOffset,
                "IMA4 'desc' declares \(description.bytesPerPacket) bytes and \(description.framesPerPacket) frames per packet, expected \(IMA4.bytesPerPacket(channels: channels)) and 64 for \(channels) channels"
            )
        }
        guard description.sampleRate.isFinite, description.sampleRate > 0 else {
            throw CAFError(.malformedChunk(.desc), at: descOffset, "'desc' declares sample rate \(description.sampleRate)")
        }
        self.channels = channels
        sampleRate = description.sampleRate
        let packetSize = UInt64(IMA4.bytesPerPacket(channels: channels))
        packets = file.audioBytes / packetSize
        strayBytes = file.audioBytes % packetSize
        audioOffset = file.audioOffset
        let available = packets * UInt64(IMA4.framesPerPacket)
        if let header = file.packetTableHeader {
            let offset = file.packetTableChunk?.offset ?? 0
            guard header.numberValidFrames >= 0, header.primingFrames >= 0, header.remainderFrames >= 0 else {
                throw CAFError(
                    .malformedChunk(.pakt), at: offset,
                    "'pakt' declares \(header.numberValidFrames) valid, \(header.primingFrames) priming and \(header.remainderFrames) remainder frames; none may be negative"
                )
            }
            primingFrames = UInt64(header.primingFrames)
            validFrames = UInt64(header.numberValidFrames)
            remainderFrames = UInt64(header.remainderFrames)
            let (needed, overflow) = primingFrames.addingReportingOverflow(validFrames)
            guard !overflow, needed <= available else {
                throw CAFError(
                    .truncated, at: file.audioOffset + file.audioBytes,
                    "'pakt' declares \(header.primingFrames) priming and \(header.numberValidFrames) valid frames, but the 'data' chunk holds \(packets) whole packets (\(available) frames)"
                )
            }
        } else {
            primingFrames = 0
            validFrames = available
            remainderFrames = 0
        }
    }

    /// Decodes the audio from `source` (the file `self` was made from) and calls `body` with
    /// consecutive blocks of interleaved 16-bit frames, at most `packetsPerBlock` packets' worth
    /// each (and at most ``maxBlockBytes`` of packets), priming and remainder frames left out. The blocks together hold exactly
    /// ``validFrames`` frames.
    public func decode(
        from source: some ByteSource, packetsPerBlock: Int = 1024, rule: IMA4Decoder.PreambleRule = .continueWhenClose,
        _ body: (ArraySlice<Int16>) throws -> Void
    ) throws {
        var decoder = IMA4Decoder(channels: channels, rule: rule)
        let packetSize = UInt64(bytesPerPacket)
        // At most `packetsPerBlock` packets and at most about 1 MiB of them, whatever the channels.
        let perBlock = UInt64(max(1, min(packetsPerBlock, Self.maxBlockBytes / bytesPerPacket)))
        let frameSize = UInt64(IMA4.framesPerPacket)
        let lastNeededFrame = primingFrames + validFrames
        let neededPackets = IMA4.packets(forFrames: lastNeededFrame)
        var packet: UInt64 = 0
        var samples: [Int16] = []
        samples.reserveCapacity(Int(perBlock * frameSize) * channels)
        while packet < neededPackets {
            let count = min(perBlock, neededPackets - packet)
            let offset = audioOffset + packet * packetSize
            let bytes: [UInt8]
            do { bytes = try source.readExactly(at: offset, count: Int(count * packetSize)) } catch {
                throw CAFError.from(error, reading: "IMA4 packets")
            }
            samples.removeAll(keepingCapacity: true)
            decoder.decode(bytes[...], appendingTo: &samples)
            // Frames [first, first + count*64) were decoded; keep those in [priming, priming + valid).
            let first = packet * frameSize
            let from = max(first, primingFrames) - first
            let to = min(first + count * frameSize, lastNeededFrame) - first
            if to > from {
                try body(samples[Int(from) * channels..<Int(to) * channels])
            }
            packet += count
        }
    }

    /// Decodes every valid frame into one array of interleaved samples (for short files and
    /// tests; ``decode(from:packetsPerBlock:rule:_:)`` keeps memory bounded).
    public func decodeAll(from source: some ByteSource, rule: IMA4Decoder.PreambleRule = .continueWhenClose) throws
        -> [Int16]
    {
        var all: [Int16] = []
        try decode(from: source, rule: rule) { all.append(contentsOf: $0) }
        return all
    }
}

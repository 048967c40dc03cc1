import BinaryIO

/// Why an IMA4 file could not be written.
public struct IMA4WriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One sentence: what was expected and what was found.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

extension CAFWriter {
    /// Where the audio of an IMA4 file starts, as afconvert writes it: byte 4096.
    public static let ima4AudioAlignment: UInt64 = 4096

    /// The chunks before the audio of an IMA4 CAF file laid out as Apple's afconvert lays it out:
    /// `desc` (`ima4`, flags 0, 34 bytes per channel per packet, 64 frames per packet, 0 bits per
    /// channel), then `chan` and `info` when given, then the `metadata` chunks (``CAFMetadata/chunks``),
    /// then `pakt` (0 packets, as Apple writes it for
    /// this constant-size format; `frames` valid frames; 0 priming frames; the padding of the last
    /// packet as remainder), a `free` chunk of zeros that puts the first audio byte at 4096 (or at
    /// the next multiple of 4096 when the other chunks do not fit), and the `data` chunk header with
    /// edit count 1. The `data` size is exact: 4 + packets x bytes per packet.
    public static func ima4Header(
        sampleRate: Double, channels: Int, frames: UInt64, channelLayout: ChannelLayout? = nil,
        info: InfoStrings? = nil, metadata: [CAFChunk] = []
    ) -> [UInt8] {
        let packets = IMA4.packets(forFrames: frames)
        let remainder = packets * UInt64(IMA4.framesPerPacket) - frames
        let description = AudioDescription(
            sampleRate: sampleRate, formatID: .ima4, formatFlags: 0,
            bytesPerPacket: UInt32(IMA4.bytesPerPacket(channels: channels)),
            framesPerPacket: UInt32(IMA4.framesPerPacket), channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
        var chunks: [CAFChunk] = [.description(description)]
        if let channelLayout { chunks.append(.channelLayout(channelLayout)) }
        if let info { chunks.append(.info(info)) }
        chunks += metadata
        chunks.append(
            .packetTable(
                PacketTable(
                    header: PacketTableHeader(
                        numberPackets: 0, numberValidFrames: Int64(frames), primingFrames: 0,
                        remainderFrames: Int32(remainder)))))
        var bytes = header()
        for chunk in chunks { bytes += chunkBytes(chunk) }
        // free header (12) + data header (12) + edit count (4) must fit before the audio.
        let fixed = UInt64(bytes.count) + 12 + 12 + 4
        let audioStart = (fixed + ima4AudioAlignment - 1) / ima4AudioAlignment * ima4AudioAlignment
        bytes += chunkBytes(.free(FreeChunk(bytes: [UInt8](repeating: 0, count: Int(audioStart - fixed)))))
        let audioBytes = packets * UInt64(IMA4.bytesPerPacket(channels: channels))
        var writer = ByteWriter()
        writer.write(FourCC.data)
        writer.write(Int64(audioBytes + 4), .big)
        writer.write(UInt32(1), .big)
        bytes += writer.bytes
        return bytes
    }

    /// Writes a whole IMA4 CAF file to `sink`, streaming: the header of ``ima4Header(sampleRate:channels:frames:channelLayout:info:metadata:)``,
    /// then the packets encoded from the interleaved 16-bit blocks `nextBlock` returns (an empty
    /// block ends the input). Exactly `frames` frames must come; memory is bounded by the block
    /// size. Returns the padding frames of the last packet.
    @discardableResult
    public static func writeIMA4(
        sampleRate: Double, channels: Int, frames: UInt64, channelLayout: ChannelLayout? = nil,
        info: InfoStrings? = nil, options: IMA4Encoder.Options = .standard,
        nextBlock: () throws -> ArraySlice<Int16>, to sink: (ArraySlice<UInt8>) throws -> Void
    ) throws -> Int {
        guard channels > 0, channels <= 1024 else {
            throw IMA4WriteError("IMA4 needs 1 to 1024 channels, got \(channels)")
        }
        guard sampleRate.isFinite, sampleRate > 0 else {
            throw IMA4WriteError("IMA4 needs a positive sample rate, got \(sampleRate)")
        }
        guard frames <= UInt64(Int64.max / 2) else { throw IMA4WriteError("\(frames) frames is too many") }
        try sink(
            ima4Header(sampleRate: sampleRate, channels: channels, frames: frames, channelLayout: channelLayout, info: info)[...])
        var encoder = IMA4Encoder(channels: channels, options: options)
        var packets: [UInt8] = []
        while true {
            let block = try nextBlock()
            if block.isEmpty { break }
            guard block.count % channels == 0 else {
                throw IMA4WriteError("a block of \(block.count) samples is not a whole number of \(channels)-channel frames")
            }
            guard encoder.framesIn + UInt64(block.count / channels) <= frames else {
                throw IMA4WriteError("the input has more than the \(frames) frames announced")
            }
            encoder.encode(block, appendingTo: &packets)
            if !packets.isEmpty {
                try sink(packets[...])
                packets.removeAll(keepingCapacity: true)
            }
        }
        guard encoder.framesIn == frames else {
            throw IMA4WriteError("the input ended after \(encoder.framesIn) of the \(frames) frames announced")
        }
        let padding = encoder.finish(appendingTo: &packets)
        if !packets.isEmpty { try sink(packets[...]) }
        return padding
    }

    /// The bytes of a whole IMA4 CAF file holding the interleaved 16-bit `samples`.
    public static func ima4Bytes(
        sampleRate: Double, channels: Int, samples: [Int16], channelLayout: ChannelLayout? = nil,
        info: InfoStrings? = nil, options: IMA4Encoder.Options = .standard
    ) throws -> [UInt8] {
        var result: [UInt8] = []
        var given = false
        try writeIMA4(
            sampleRate: sampleRate, channels: channels, frames: UInt64(samples.count / max(channels, 1)),
            channelLayout: channelLayout, info: info, options: options,
            nextBlock: {
                defer { given = true }
                return given ? [] : samples[...]
            },
            to: { result.append(contentsOf: $0) })
        return result
    }
}

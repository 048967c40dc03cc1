import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SystemLayer

/// The Encoder and Container stages of `-d aac`: libavcodec's AAC-LC encoder (loaded at the first
/// AAC job, see `LibAVCodec`) fed the source's samples as floats, its packets laid out by CAFKit
/// as Apple's afconvert lays out an AAC CAF (`desc`, `kuki`, `pakt`, `free`, `data` at a
/// multiple of 4096). The `pakt` table's size is known only at the end, so the packets and their
/// sizes go to two unnamed spool files in the output folder as they come (memory stays bounded
/// by the block size, ``SpooledPackets``) and the CAF is assembled in the temporary output once
/// the encoder is done.
package enum AACStage {
    /// The sample rates an AAC file can have (the MPEG-4 sampling frequency table).
    package static let sampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]

    /// The most channels cafconv encodes (AAC's default layouts stop at 7.1).
    package static let maximumChannels = 8

    /// `-b` when not given: 64 kb/s per channel (128 kb/s stereo), as much as the rate allows.
    package static func defaultBitRate(channels: Int, sampleRate: Int) -> Int {
        min(64_000 * channels, maximumBitRate(channels: channels, sampleRate: sampleRate))
    }

    /// AAC's ceiling: 6144 bits per channel per 1024-frame packet.
    package static func maximumBitRate(channels: Int, sampleRate: Int) -> Int { 6144 * channels * sampleRate / 1024 }

    /// The lowest total bit rate cafconv accepts: 8 kb/s per channel.
    package static func minimumBitRate(channels: Int) -> Int { 8000 * channels }

    /// The bit rate for a source, or a sentence saying why it cannot be encoded as asked.
    package static func bitRate(asked: Int?, channels: Int, sampleRate: Int) throws(ConversionError) -> Int {
        guard sampleRates.contains(sampleRate) else {
            let nearest = sampleRates.min { abs($0 - sampleRate) < abs($1 - sampleRate) } ?? 44100
            throw ConversionError.encoding(.aacSampleRate(hz: Double(sampleRate), rates: sampleRates, nearest: nearest))
        }
        guard (1...maximumChannels).contains(channels) else {
            throw ConversionError.encoding(.aacChannels(channels, maximum: maximumChannels))
        }
        let highest = maximumBitRate(channels: channels, sampleRate: sampleRate)
        let lowest = minimumBitRate(channels: channels)
        guard let asked else { return defaultBitRate(channels: channels, sampleRate: sampleRate) }
        guard asked >= lowest, asked <= highest else {
            throw ConversionError.encoding(
                .aacBitRate(asked: asked, sampleRate: sampleRate, channels: channels, lowest: lowest, highest: highest))
        }
        return asked
    }

    /// What `write` made.
    package struct Written {
        package var frames: Int64
        package var packets: Int64
        package var priming: Int
        package var remainder: Int
        package var bitRate: Int
        package var audioBytes: UInt64
    }

    /// Encodes `audio` into the temporary output `output` (a descriptor of an empty file in
    /// `folder`): the whole AAC CAF. `nil` when `isCancelled` said stop.
    package static func write(
        _ audio: any FrameSource, bitRate: Int, to output: Int32, folder: FileSystem.Folder, blockSamples: Int,
        isCancelled: () -> Bool
    ) throws(ConversionError) -> Written? {
        let encoder: AACEncoder
        do {
            encoder = try AACEncoder(sampleRate: audio.sampleRate, channels: audio.channels, bitRate: bitRate)
        } catch {
            throw ConversionError.encoding(.encoder(reason: error.message))
        }
        let spooled = try SpooledPackets(in: folder)
        guard let frames = try spooled.encode(audio, with: encoder, blockSamples: blockSamples, isCancelled: isCancelled)
        else { return nil }
        let framesPerPacket = encoder.framesPerPacket
        var priming = encoder.priming
        var remainder = spooled.count * Int64(framesPerPacket) - Int64(priming) - frames
        if spooled.count == 0 {
            priming = 0
            remainder = 0
        }
        guard remainder >= 0, remainder < Int64(framesPerPacket) + Int64(priming) else {
            throw ConversionError.proof(
                .lossyPackets(
                    encoder: "libavcodec's AAC encoder", packets: spooled.count, framesPerPacket: framesPerPacket,
                    frames: frames, priming: priming))
        }
        let written = Written(
            frames: frames, packets: spooled.count, priming: priming, remainder: Int(remainder), bitRate: bitRate,
            audioBytes: spooled.packets.length)
        let done = try assemble(
            written, spooled: spooled, encoder: encoder, channels: audio.channels, sampleRate: audio.sampleRate,
            to: output, isCancelled: isCancelled)
        return done ? written : nil
    }

    /// Lays out the CAF in `output`: the header, `desc`, `kuki` and `pakt` header, the size table
    /// copied from its spool, `free` to the next page, `data`, the packets copied from theirs.
    /// `false` when cancelled.
    package static func assemble(
        _ written: Written, spooled: SpooledPackets, encoder: AACEncoder, channels: Int, sampleRate: Int, to output: Int32,
        isCancelled: () -> Bool
    ) throws(ConversionError) -> Bool {
        let header = PacketTableHeader(
            numberPackets: written.packets, numberValidFrames: written.frames, primingFrames: Int32(written.priming),
            remainderFrames: Int32(written.remainder))
        return try assemble(
            spooled, config: encoder.audioSpecificConfig, framesPerPacket: encoder.framesPerPacket, header: header,
            channels: channels, sampleRate: sampleRate, to: output, isCancelled: isCancelled)
    }

    /// Lays out the AAC CAF of the packets in `spooled` (whose AudioSpecificConfig is `config`)
    /// with the `pakt` header `header`, as afconvert does; the `kuki`'s bit rates are the
    /// packets' own. `false` when cancelled.
    package static func assemble(
        _ spooled: SpooledPackets, config: [UInt8], framesPerPacket: Int, header: PacketTableHeader, channels: Int,
        sampleRate: Int, extra: [CAFChunk] = [], to output: Int32, isCancelled: () -> Bool
    ) throws(ConversionError) -> Bool {
        let seconds = Double(max(header.numberPackets, 1) * Int64(framesPerPacket)) / Double(sampleRate)
        let cookie = MPEG4ESDescriptor(
            bufferSize: UInt32(768 * channels),
            maxBitRate: UInt32(clamping: spooled.largest * 8 * sampleRate / framesPerPacket),
            averageBitRate: header.numberPackets == 0
                ? 0 : UInt32(clamping: Int((Double(spooled.packets.length) * 8 / seconds).rounded())),
            audioSpecificConfig: config)
        let layout = CAFWriter.aacLayout(
            sampleRate: Double(sampleRate), channels: channels, framesPerPacket: framesPerPacket, cookie: cookie,
            packetTable: header, tableBytes: Int(spooled.table.length), audioBytes: spooled.packets.length, extra: extra)
        return try spooled.write(layout, to: output, isCancelled: isCancelled)
    }
}

extension AACStage {
    /// The SNR an AAC output must reach to pass the proof, in dB, by bit rate per channel: 4 dB
    /// from 96 kb/s, 1.5 dB from 64 kb/s, 0.25 dB from 32 kb/s, none below. A perceptual coder
    /// does not minimise the waveform error, so these are floors for the worst audio (full-scale
    /// white noise measured 3.1 dB at 64 kb/s per channel, 18.7 dB at 128), not quality targets;
    /// an output decoded wrong or misaligned gives about -3 dB or less (see docs/aac.md).
    package static func snrFloor(bitRate: Int, channels: Int) -> Double {
        let perChannel = bitRate / max(1, channels)
        if perChannel >= 96_000 { return 4 }
        if perChannel >= 64_000 { return 1.5 }
        if perChannel >= 32_000 { return 0.25 }
        return -.infinity
    }

    /// The proof of an AAC output (``LossyProof``): libavcodec's decoder of the file read back
    /// (``AACFileDecoder``), the floor `snrFloor` for the bit rate. `nil` when `isCancelled` said stop.
    package static func prove(
        _ path: String, source: any FrameSource, written: Written, blockSamples: Int, levelTap: LevelTap? = nil,
        isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof? {
        let expected = LossyProof.Expectation(
            formatID: .aac, frames: written.frames, priming: written.priming, bitRate: written.bitRate,
            snrFloor: snrFloor(bitRate: written.bitRate, channels: source.channels), rule: "aac-lc",
            nearSilentRule: "aac-lc-near-silent")
        return try LossyProof.prove(
            path, source: source, expecting: expected, blockSamples: blockSamples, levelTap: levelTap,
            isCancelled: isCancelled
        ) { file, bytes throws(ProofFailure) in
            do throws(AACFormatError) { return try AACFileDecoder(file: file, source: bytes) } catch {
                throw .lossyUndecodable(codec: "AAC", reason: error.message)
            }
        }
    }

    /// libavcodec codes 6, 7 and 8 channels as 5.1, 6.1 and 7.1, whose 4th channel (in WAVE's
    /// order) is the LFE: low-passed at about 120 Hz. A source whose own layout (a channel mask,
    /// a CAF `chan`) puts another speaker there would lose that channel's content, and the SNR
    /// over all channels would hardly show it: refused, saying why. Sources without a layout are
    /// taken in WAVE's default order, where the 4th channel is the LFE.
    package static func checkLayout(of source: SourceStage, channels: Int) throws(ConversionError) {
        guard (6...8).contains(channels), channels == source.info.channels else { return }
        let (layout, assumed) = source.speakerLayout()
        guard !assumed, layout.speakers.count > 3, layout.speakers[3] != .lowFrequency else { return }
        throw ConversionError.encoding(
            .aacLFE(channels: channels, fourth: layout.speakers[3].map(\.description) ?? "unpositioned", layout: "\(layout)"))
    }
}

extension AACEncoder: FloatPacketEncoder {
    package static func failure(_ message: String) -> AACCodecError { AACCodecError(message) }
    package static func message(_ failure: AACCodecError) -> String { failure.message }
}

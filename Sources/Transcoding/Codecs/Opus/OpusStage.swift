import BinaryIO
import CAFKit
import ConversionModel
import Opus
import OutputFiles
import SystemLayer

/// The Encoder, Container and Proof stages of `-d opus`: libopus's encoder (loaded at the first
/// Opus job) fed the transformed samples as floats in 20 ms frames, its packets laid out by CAFKit
/// as Apple lays out an Opus CAF (`desc`, `kuki`, `chan`, `pakt`, `free`, `data` at 4096; see
/// docs/opus.md). Like AAC, the packets and their sizes go to two spool files as they come and
/// the CAF is assembled once the encoder is done, so memory stays bounded by the block size.
package enum OpusStage {
    /// What the encoder is asked for.
    package struct Settings: Equatable, Sendable {
        package var sampleRate: Int
        package var channels: Int
        package var application: OpusApplication
        /// Bits per second, all channels.
        package var bitRate: Int
        /// `-s 0`: hard CBR; else constrained VBR.
        package var constantBitRate: Bool
    }

    /// The rate an output is coded at: `asked` (`-d opus@RATE` or `-r`) when given, else the
    /// source's own when Opus has it, else 48000.
    package static func codedRate(asked: Int?, source: Int) -> Int {
        if let asked { return asked }
        return LibOpus.sampleRates.contains(source) ? source : 48_000
    }

    /// The application: voice (`OPUS_APPLICATION_VOIP`) at 24000 Hz and below, the rates of
    /// speech (Apple's recorder codes voice at 24 kHz in VoIP mode), audio at 48000 Hz.
    package static func application(sampleRate: Int) -> OpusApplication { sampleRate <= 24_000 ? .voip : .audio }

    /// `-b` when not given: 32 kb/s per channel at 24000 Hz and below (voice), 48 kb/s per
    /// channel at 48000 Hz (96 kb/s stereo).
    package static func defaultBitRate(channels: Int, sampleRate: Int) -> Int {
        (sampleRate <= 24_000 ? 32_000 : 48_000) * channels
    }

    /// The bit rates cafconv accepts: 6 to 256 kb/s per channel (libopus's useful range).
    package static func bitRateRange(channels: Int) -> ClosedRange<Int> { (6_000 * channels)...(256_000 * channels) }

    /// The settings for `channels` at `sampleRate`, or why they cannot be encoded.
    package static func settings(
        asked bitRate: Int?, channels: Int, sampleRate: Int, constantBitRate: Bool
    ) throws(ConversionError) -> Settings {
        guard channels == 1 || channels == 2 else { throw ConversionError.encoding(.opusChannels(channels)) }
        let range = bitRateRange(channels: channels)
        let rate = bitRate ?? defaultBitRate(channels: channels, sampleRate: sampleRate)
        guard range.contains(rate) else {
            throw ConversionError.encoding(
                .opusBitRate(asked: rate, channels: channels, lowest: range.lowerBound, highest: range.upperBound))
        }
        return Settings(
            sampleRate: sampleRate, channels: channels, application: application(sampleRate: sampleRate), bitRate: rate,
            constantBitRate: constantBitRate)
    }

    /// What `write` made.
    package struct Written {
        package var settings: Settings
        package var frames: Int64
        package var packets: Int64
        package var priming: Int
        package var remainder: Int
        package var audioBytes: UInt64
    }

    /// Encodes `audio` into the temporary output `output` (a descriptor of an empty file in
    /// `folder`): the whole Opus CAF. `nil` when `isCancelled` said stop.
    package static func write(
        _ audio: any FrameSource, settings: Settings, to output: Int32, folder: FileSystem.Folder, blockSamples: Int,
        isCancelled: () -> Bool
    ) throws(ConversionError) -> Written? {
        let encoder: OpusEncoder
        do {
            encoder = try OpusEncoder(
                sampleRate: settings.sampleRate, channels: settings.channels, application: settings.application,
                bitRate: settings.bitRate, constantBitRate: settings.constantBitRate)
        } catch {
            throw ConversionError.encoding(.encoder(reason: error.message))
        }
        let spooled = try SpooledPackets(in: folder)
        guard let frames = try spooled.encode(audio, with: encoder, blockSamples: blockSamples, isCancelled: isCancelled)
        else { return nil }
        let framesPerPacket = encoder.framesPerPacket
        let priming = spooled.count == 0 ? 0 : encoder.lookahead
        let remainder = spooled.count * Int64(framesPerPacket) - Int64(priming) - frames
        guard remainder >= 0, remainder < Int64(framesPerPacket) else {
            throw ConversionError.proof(
                .lossyPackets(
                    encoder: "libopus's encoder", packets: spooled.count, framesPerPacket: framesPerPacket, frames: frames,
                    priming: priming))
        }
        let written = Written(
            settings: settings, frames: frames, packets: spooled.count, priming: priming, remainder: Int(remainder),
            audioBytes: spooled.packets.length)
        let cookie = OpusCookie(
            application: settings.application.rawValue, sampleRate: Int32(settings.sampleRate),
            framesPerPacket: Int32(framesPerPacket),
            bitRate: settings.constantBitRate ? Int32(clamping: settings.bitRate) : OpusCookie.automaticBitRate,
            channels: Int32(settings.channels))
        let header = PacketTableHeader(
            numberPackets: written.packets, numberValidFrames: frames, primingFrames: Int32(priming),
            remainderFrames: Int32(remainder))
        let layout = CAFWriter.opusLayout(
            sampleRate: Double(settings.sampleRate), channels: settings.channels, framesPerPacket: framesPerPacket,
            cookie: cookie, packetTable: header, tableBytes: Int(spooled.table.length), audioBytes: spooled.packets.length)
        return try spooled.write(layout, to: output, isCancelled: isCancelled) ? written : nil
    }
}

extension OpusStage {
    /// The SNR an Opus output must reach to pass the proof, in dB, by bit rate per channel and
    /// application. Opus is perceptual and its voice mode high-passes below about 50 Hz, so these
    /// are floors for the hardest audio, not quality targets (measured in docs/opus.md): 3 dB
    /// from 64 kb/s per channel, 1 dB from 32 kb/s, none below. A wrong or misaligned decode
    /// gives about -3 dB or less.
    package static func snrFloor(bitRate: Int, channels: Int) -> Double {
        let perChannel = bitRate / max(1, channels)
        if perChannel >= 64_000 { return 3 }
        if perChannel >= 32_000 { return 1 }
        return -.infinity
    }

    /// The proof of an Opus output (``LossyProof``): libopus's reference decoder of the file read
    /// back (``OpusFileDecoder``), the floor `snrFloor` for the bit rate. `nil` when cancelled.
    package static func prove(
        _ path: String, source: any FrameSource, written: Written, blockSamples: Int, levelTap: LevelTap? = nil,
        isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof? {
        let bitRate = written.settings.bitRate
        let expected = LossyProof.Expectation(
            formatID: .opus, frames: written.frames, priming: written.priming, bitRate: bitRate,
            snrFloor: snrFloor(bitRate: bitRate, channels: source.channels),
            rule: "opus-\(written.settings.application.name)", nearSilentRule: "opus-near-silent")
        return try LossyProof.prove(
            path, source: source, expecting: expected, blockSamples: blockSamples, levelTap: levelTap,
            isCancelled: isCancelled
        ) { file, bytes throws(ProofFailure) in
            do throws(OpusFormatError) { return try OpusFileDecoder(file: file, source: bytes) } catch {
                throw .lossyUndecodable(codec: "Opus", reason: error.message)
            }
        }
    }
}

extension OpusEncoder: FloatPacketEncoder {
    package static func failure(_ message: String) -> OpusError { OpusError(message) }
    package static func message(_ failure: OpusError) -> String { failure.message }
}

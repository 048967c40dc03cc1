import BinaryIO
import CAFKit
import ConversionModel
import Opus
import OutputFiles
import SndFile
import SystemLayer

/// Opus (`-d opus`, `-d opus@RATE`, bit rate `-b`, `-s 0` for CBR): libopus's encoder fed floats
/// at one of Opus's rates (the soxr stage resamples others), its packets laid out by CAFKit as
/// Apple lays out an Opus CAF (``OpusStage``, docs/opus.md). Lossy: the proof decodes the file
/// with libopus's reference decoder through CAFKit's packets and requires the source's exact
/// length, the cross-correlation peak at lag 0 and an SNR above the floor for the bit rate.
///
/// An Ogg Opus source asked for `-d opus` with no rate, channel, bit-rate or strategy change has
/// its packets moved, not encoded again (``OggOpusRemux``): the proof reads the packets back with
/// CAFKit and requires them byte-identical to the source's, with its exact frame accounting.
package struct OpusOutputCodec: OutputCodec {
    package var spelling: DataFormat.Spelling { DataFormat.Spelling("opus", takesBitRate: true, byteOrderless: "Opus") }
    package var formatIDs: [FourCC] { [.opus] }

    /// The encoder's version decides the bytes as much as the bit rate and strategy do.
    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        "opus;b=\(options.bitRate.map(String.init) ?? "default");s=\(options.bitRateStrategy.map(String.init) ?? "vbr");enc=\(LibOpus.version)"
    }

    /// Whether the job moves an Ogg Opus source's packets rather than encoding: the source is
    /// Ogg Opus, nothing asks for a change the packets cannot carry, and `--reencode` is not given.
    package static func moves(_ source: SourceStage, options: ConversionOptions) -> Bool {
        source.encoding == .opus && source.info.major == .ogg && (options.sampleRate == nil || options.sampleRate == 48_000)
            && (options.channels == nil || options.channels == source.info.channels) && options.bitRate == nil
            && options.bitRateStrategy == nil && (1...2).contains(source.info.channels) && !options.reencode
            && options.loudnessTarget == nil
    }

    /// `-d 0` on an Ogg Opus source moves its packets (as `-d opus` does).
    package func movesPackets(of source: SourceStage, options: ConversionOptions) -> Bool {
        Self.moves(source, options: options)
    }

    package func plan(_ source: SourceStage, options: ConversionOptions, result: inout FileResult) throws -> OutputPlan {
        let floats = TargetFormat(encoding: .float32, byteOrder: .little)
        if Self.moves(source, options: options) {
            result.formatOut = "opus"
            result.channels = source.info.channels
            result.sampleRate = 48_000
            return OutputPlan(target: floats, transform: nil, channels: source.info.channels, sampleRate: 48_000, exactRate: 48_000)
        }
        let own = source.exactRate == Double(source.info.sampleRate) ? source.info.sampleRate : 0
        let rate = OpusStage.codedRate(asked: options.sampleRate, source: own)
        guard LibOpus.sampleRates.contains(rate) else {
            throw ConversionError.encoding(.opusSampleRate(rate))
        }
        var resampled = options
        resampled.sampleRate = rate
        let transform = try TransformPlan.make(source: source, target: floats, options: resampled, warnings: &result.warnings)
        let channels = transform?.outputChannels ?? source.info.channels
        result.channels = channels
        result.sampleRate = rate
        let settings = try OpusStage.settings(
            asked: options.bitRate, channels: channels, sampleRate: rate, constantBitRate: options.bitRateStrategy == 0)
        do { try LibOpus.load() } catch { throw ConversionError.encoding(.encoder(reason: error.message)) }
        result.formatOut = "opus"
        return OutputPlan(
            target: floats, transform: transform, channels: channels, sampleRate: rate, exactRate: Double(rate),
            bitRate: settings.bitRate)
    }

    /// What the Encoder or the move made.
    package enum Written {
        case encoded(OpusStage.Written, fileBytes: UInt64)
        case moved(OggOpusRemux.Remuxed, fileBytes: UInt64)
    }

    package func write(_ plan: OutputPlan, from source: SourceStage, into output: OutputTarget, result: inout FileResult) throws
        -> Written?
    {
        let descriptor = try output.temporary.descriptor()
        defer { close(descriptor) }
        if plan.bitRate == nil {
            guard
                let moved = try OggOpusRemux.remux(
                    source.input, to: descriptor, folder: output.temporary.folder, isCancelled: output.isCancelled)
            else { return nil }
            if moved.outputGain != 0 { result.warnings.append(.metadata(.opusOutputGain(moved.outputGain))) }
            return .moved(moved, fileBytes: try FileSystem.length(of: descriptor))
        }
        let audio: any FrameSource
        do {
            let pumped = try source.pumpAudio()
            audio = try plan.transform.map { plan throws in try TransformedAudio(source: pumped, plan: plan) } ?? pumped
        } catch {
            throw ConversionError.encoding(.sourceUnreadable(reason: "\(error)"))
        }
        let settings = try OpusStage.settings(
            asked: plan.bitRate, channels: plan.channels, sampleRate: plan.sampleRate,
            constantBitRate: output.options.bitRateStrategy == 0)
        guard
            let written = try OpusStage.write(
                audio, settings: settings, to: descriptor, folder: output.temporary.folder,
                blockSamples: output.options.blockSamples, isCancelled: output.isCancelled)
        else { return nil }
        result.warnAboutFrames(written.frames, headerFrames: plan.headerFrames(of: source), empty: .noOpusPacket)
        return .encoded(written, fileBytes: try FileSystem.length(of: descriptor))
    }

    package func prove(_ written: Written, plan: OutputPlan, source: SourceStage, output: OutputTarget) throws -> Proof? {
        switch written {
        case .moved(let moved, _):
            return try OggOpusRemux.prove(output.temporary.path, source: source.input, moved: moved, isCancelled: output.isCancelled)
        case .encoded(let encoded, _):
            let reference = try plan.proofReference(source)
            guard
                var proof = try OpusStage.prove(
                    output.temporary.path, source: reference, written: encoded, blockSamples: output.options.blockSamples,
                    levelTap: output.levelTap, isCancelled: output.isCancelled)
            else { return nil }
            if let transform = plan.transform { proof.rule = [transform.rule, proof.rule].compactMap { $0 }.joined(separator: "; ") }
            return proof
        }
    }

    package func record(
        _ written: Written, proof: Proof, plan: OutputPlan, source: SourceStage, into result: inout FileResult,
        output: OutputTarget
    ) throws {
        result.proof = proof
        switch written {
        case .encoded(let encoded, let bytes):
            result.bytes = bytes
            result.frames = encoded.frames
            result.samples = .opusEncoded
        case .moved(let moved, let bytes):
            result.bytes = bytes
            result.frames = moved.validFrames
            result.samples = .opusMoved
        }
        if output.isCancelled() { throw ConversionError.interrupted }
    }
}

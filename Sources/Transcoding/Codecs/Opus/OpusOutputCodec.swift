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
/// An Ogg Opus or Opus CAF source asked for `-d opus` (or `-d 0`) with no rate, channel, bit-rate
/// or strategy change has its packets moved, not encoded again (``OpusRemux``): the proof reads
/// the packets back with CAFKit and requires them byte-identical to the source's, with its exact
/// frame accounting. An Opus CAF in ffmpeg's layout, whose length cannot be trusted, is encoded.
package struct OpusOutputCodec: OutputCodec {
    package var spelling: DataFormat.Spelling { DataFormat.Spelling("opus", takesBitRate: true, byteOrderless: "Opus") }
    package var formatIDs: [FourCC] { [.opus] }

    /// The encoder's version decides the bytes as much as the bit rate and strategy do.
    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        "opus;b=\(options.bitRate.map(String.init) ?? "default");s=\(options.bitRateStrategy.map(String.init) ?? "vbr");enc=\(LibOpus.version)"
    }

    /// `-d 0` on an Opus source moves its packets (as `-d opus` does; ``OpusRemux/moves(_:options:)``).
    package func movesPackets(of source: SourceStage, options: ConversionOptions) -> Bool {
        OpusRemux.moves(source, options: options)
    }

    package func plan(_ source: SourceStage, options: ConversionOptions, result: inout FileResult) throws -> OutputPlan {
        let floats = TargetFormat(encoding: .float32, byteOrder: .little)
        if OpusRemux.moves(source, options: options) {
            let rate = source.info.sampleRate
            result.formatOut = "opus"
            result.channels = source.info.channels
            result.sampleRate = rate
            return OutputPlan(
                target: floats, transform: nil, channels: source.info.channels, sampleRate: rate, exactRate: Double(rate))
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
    package typealias Written = PacketOutput<OpusStage.Written, OpusRemux.Remuxed>

    package func write(_ plan: OutputPlan, from source: SourceStage, into output: OutputTarget, result: inout FileResult) throws
        -> Written?
    {
        let descriptor = try output.temporary.descriptor()
        defer { close(descriptor) }
        if plan.bitRate == nil, case .opus(let opus)? = source.codec {
            let carried = OpusRemux.carried(opus, channels: plan.channels, stripMetadata: output.options.stripMetadata)
            result.warnings += carried.warnings.map(ConversionWarning.metadata)
            guard
                let moved = try OpusRemux.remux(
                    opus, layout: carried.layout, extra: carried.metadata, to: descriptor, folder: output.temporary.folder,
                    isCancelled: output.isCancelled)
            else { return nil }
            if moved.outputGain != 0 { result.warnings.append(.metadata(.opusOutputGain(moved.outputGain))) }
            return .moved(moved, fileBytes: try FileSystem.length(of: descriptor))
        }
        let audio = try plan.encoderInput(source)
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
        try written.prove(plan: plan, source: source) { moved in
            guard case .opus(let opus)? = source.codec else { return nil }
            return try OpusRemux.prove(output.temporary.path, source: opus, moved: moved, isCancelled: output.isCancelled)
        } encoded: { encoded, reference in
            try OpusStage.prove(
                output.temporary.path, source: reference, written: encoded, blockSamples: output.options.blockSamples,
                levelTap: output.levelTap, isCancelled: output.isCancelled)
        }
    }

    package func record(
        _ written: Written, proof: Proof, plan: OutputPlan, source: SourceStage, into result: inout FileResult,
        output: OutputTarget
    ) throws {
        try written.record(
            proof: proof, into: &result, frames: \.frames, validFrames: \.validFrames, encodedAs: .opusEncoded,
            movedAs: .opusMoved, isCancelled: output.isCancelled)
    }
}

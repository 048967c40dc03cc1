import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SystemLayer

/// AAC-LC (`-d aac`, bit rate `-b`): libavcodec's encoder (loaded at the first AAC job) fed
/// floats, its packets laid out by CAFKit as afconvert lays out an AAC CAF (`desc`, `kuki`, `pakt`
/// with the encoder's priming and remainder frames, 1024 frames per packet; ``AACStage``). Lossy:
/// the proof decodes the file with libavcodec and requires the source's exact length, the
/// cross-correlation peak at lag 0 and an SNR above the floor for the bit rate.
package struct AACOutputCodec: OutputCodec {
    package var spelling: DataFormat.Spelling { DataFormat.Spelling("aac", takesBitRate: true, byteOrderless: "AAC") }
    package var formatIDs: [FourCC] { [.aac] }


    /// The encoder's identity and version decide the bytes as much as the bit rate does
    /// (libavcodec is loaded here only for AAC options).
    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        "aac;b=\(options.bitRate.map(String.init) ?? "default");enc=\(LibAVCodec.encoderIdentity)"
    }

    /// AAC reports have always named a problem with the output folder before the encoder's limits.
    package var opensOutputFirst: Bool { true }

    /// The transform stage (rate, channels, dither) hands the encoder floats; the rate must be one
    /// AAC has, the bit rate within its limits for the channels, and libavcodec loadable.
    package func plan(_ source: SourceStage, options: ConversionOptions, result: inout FileResult) throws -> OutputPlan {
        let floats = TargetFormat(encoding: .float32, byteOrder: .little)
        let transform = try TransformPlan.make(source: source, target: floats, options: options, warnings: &result.warnings)
        let channels = transform?.outputChannels ?? source.info.channels
        let sampleRate = transform?.outputRate ?? source.info.sampleRate
        result.channels = channels
        result.sampleRate = sampleRate
        if transform?.rate == nil, source.exactRate != Double(sampleRate) {
            // 22050.5 Hz is not 22050 Hz: AAC's rates are whole; resampling makes it one.
            let rates = AACStage.sampleRates
            let nearest = rates.min { abs($0 - sampleRate) < abs($1 - sampleRate) } ?? 44100
            throw ConversionError.encoding(.aacSampleRate(hz: source.exactRate, rates: rates, nearest: nearest))
        }
        let bitRate = try AACStage.bitRate(asked: options.bitRate, channels: channels, sampleRate: sampleRate)
        try AACStage.checkLayout(of: source, channels: channels)
        do { try LibAVCodec.load() } catch { throw ConversionError.encoding(.encoder(reason: error.message)) }
        result.formatOut = "aac"
        return OutputPlan(
            target: floats, transform: transform, channels: channels, sampleRate: sampleRate,
            exactRate: Double(sampleRate), bitRate: bitRate)
    }

    package func write(_ plan: OutputPlan, from source: SourceStage, into output: OutputTarget, result: inout FileResult) throws
        -> (written: AACStage.Written, fileBytes: UInt64)?
    {
        let audio: any FrameSource
        do {
            let pumped = try source.pumpAudio()
            audio = try plan.transform.map { plan throws in try TransformedAudio(source: pumped, plan: plan) } ?? pumped
        } catch {
            throw ConversionError.encoding(.sourceUnreadable(reason: "\(error)"))
        }
        let descriptor = try output.temporary.descriptor()
        defer { close(descriptor) }
        guard
            let written = try AACStage.write(
                audio, bitRate: plan.bitRate ?? 0, to: descriptor, folder: output.temporary.folder,
                blockSamples: output.options.blockSamples, isCancelled: output.isCancelled)
        else { return nil }
        result.warnAboutFrames(
            written.frames, headerFrames: plan.headerFrames(of: source), empty: .noAACPacket)
        if !output.options.stripMetadata, !MetadataMapping.read(source.input).0.isEmpty {
            // AAC outputs carry no metadata chunks (where a position falls with the encoder's
            // priming is not settled); a silent loss would surprise, so it is said.
            result.warnings.append(.metadata(.notWrittenToAAC))
        }
        return (written, try FileSystem.length(of: descriptor))
    }

    /// The independent decoding of the source, through the same transform plan, is the reference.
    package func prove(
        _ written: (written: AACStage.Written, fileBytes: UInt64), plan: OutputPlan, source: SourceStage,
        output: OutputTarget
    ) throws -> Proof? {
        let reference = try plan.proofReference(source)
        guard
            var proof = try AACStage.prove(
                output.temporary.path, source: reference, written: written.written,
                blockSamples: output.options.blockSamples, levelTap: output.levelTap, isCancelled: output.isCancelled)
        else { return nil }
        if let transform = plan.transform { proof.rule = [transform.rule, proof.rule].compactMap { $0 }.joined(separator: "; ") }
        return proof
    }

    package func record(
        _ written: (written: AACStage.Written, fileBytes: UInt64), proof: Proof, plan: OutputPlan, source: SourceStage,
        into result: inout FileResult, output: OutputTarget
    ) throws {
        result.proof = proof
        result.bytes = written.fileBytes
        result.frames = written.written.frames
        result.samples = .aacEncoded
        if output.isCancelled() { throw ConversionError.interrupted }
    }
}

extension DataFormat.Kind {
    /// `-d aac`: AAC-LC.
    package static let aac = AACOutputCodec().spelling.kind()
}

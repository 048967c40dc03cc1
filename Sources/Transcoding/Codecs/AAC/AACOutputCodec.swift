import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer

/// AAC-LC (`-d aac`, bit rate `-b`): libavcodec's encoder (loaded at the first AAC job) fed
/// floats, its packets laid out by CAFKit as afconvert lays out an AAC CAF (`desc`, `kuki`, `pakt`
/// with the encoder's priming and remainder frames, 1024 frames per packet; ``AACStage``). Lossy:
/// the proof decodes the file with libavcodec and requires the source's exact length, the
/// cross-correlation peak at lag 0 and an SNR above the floor for the bit rate.
///
/// An MP4/M4A or ADTS AAC source asked for `-d aac` (or with no `-d`, as afconvert keeps the
/// source's format) with no rate, channel, bit-rate or loudness change has its packets moved, not
/// encoded again (``M4ARemux``): the proof reads them back with CAFKit and requires them
/// byte-identical to the source's, with its exact frame accounting.
package struct AACOutputCodec: OutputCodec {
    package var spelling: DataFormat.Spelling { DataFormat.Spelling("aac", takesBitRate: true, byteOrderless: "AAC") }
    package var formatIDs: [FourCC] { [.aac] }

    /// Without `-d`, an MP4 or ADTS AAC source stays AAC (``OutputPlan/target(_:options:)``).
    package func keeps(_ encoding: Encoding) -> Bool { encoding == .aacPackets }

    /// The encoder's identity and version decide the bytes as much as the bit rate does
    /// (libavcodec is loaded here only for AAC options).
    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        "aac;b=\(options.bitRate.map(String.init) ?? "default");enc=\(LibAVCodec.encoderIdentity)"
    }

    /// AAC reports have always named a problem with the output folder before the encoder's limits.
    package var opensOutputFirst: Bool { true }

    /// `-d 0` on an MP4 or ADTS AAC source moves its packets (as `-d aac` does).
    package func movesPackets(of source: SourceStage, options: ConversionOptions) -> Bool {
        M4ARemux.moves(source, options: options)
    }

    /// The transform stage (rate, channels, dither) hands the encoder floats; the rate must be one
    /// AAC has, the bit rate within its limits for the channels, and libavcodec loadable.
    package func plan(_ source: SourceStage, options: ConversionOptions, result: inout FileResult) throws -> OutputPlan {
        let floats = TargetFormat(encoding: .float32, byteOrder: .little)
        if M4ARemux.moves(source, options: options) {
            result.formatOut = "aac"
            result.channels = source.info.channels
            result.sampleRate = source.info.sampleRate
            return OutputPlan(
                target: floats, transform: nil, channels: source.info.channels, sampleRate: source.info.sampleRate,
                exactRate: Double(source.info.sampleRate))
        }
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

    /// What the encoder or the move made.
    package typealias Written = PacketOutput<AACStage.Written, M4ASource.Stream>

    package func write(_ plan: OutputPlan, from source: SourceStage, into output: OutputTarget, result: inout FileResult) throws
        -> Written?
    {
        if plan.bitRate == nil, case .m4a(let m4a)? = source.codec {
            let descriptor = try output.temporary.descriptor()
            defer { close(descriptor) }
            guard
                let moved = try M4ARemux.remux(
                    m4a, to: descriptor, folder: output.temporary.folder,
                    info: output.options.stripMetadata ? [] : M4ARemux.infoChunk(m4a.stream.tags), isCancelled: output.isCancelled)
            else { return nil }
            result.warnAboutFrames(moved.validFrames, headerFrames: nil, empty: .noAACPacket)
            return .moved(moved, fileBytes: try FileSystem.length(of: descriptor))
        }
        let audio = try plan.encoderInput(source)
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
        return .encoded(written, fileBytes: try FileSystem.length(of: descriptor))
    }

    /// The independent decoding of the source, through the same transform plan, is the reference;
    /// moved packets are compared with the source's, byte for byte.
    package func prove(_ written: Written, plan: OutputPlan, source: SourceStage, output: OutputTarget) throws -> Proof? {
        try written.prove(plan: plan, source: source) { moved in
            guard case .m4a(let m4a)? = source.codec else { return nil }
            return try M4ARemux.prove(output.temporary.path, source: m4a, moved: moved, isCancelled: output.isCancelled)
        } encoded: { encoded, reference in
            try AACStage.prove(
                output.temporary.path, source: reference, written: encoded, blockSamples: output.options.blockSamples,
                levelTap: output.levelTap, isCancelled: output.isCancelled)
        }
    }

    package func record(
        _ written: Written, proof: Proof, plan: OutputPlan, source: SourceStage, into result: inout FileResult,
        output: OutputTarget
    ) throws {
        try written.record(
            proof: proof, into: &result, frames: \.frames, validFrames: \.validFrames, encodedAs: .aacEncoded,
            movedAs: .aacMoved, isCancelled: output.isCancelled)
    }
}

extension DataFormat.Kind {
    /// `-d aac`: AAC-LC.
    package static let aac = AACOutputCodec().spelling.kind()
}

extension Encoding {
    /// The stand-in encoding of an output that keeps an MP4 or ADTS source's AAC packets (no
    /// libsndfile subtype names AAC).
    package static let aacPackets = Encoding.other(0x7AAC_0000)
}

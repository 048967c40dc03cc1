import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// One output encoding (`-d`): what it is called, which CAF files it makes and how one job's
/// samples become such a file and are proven to hold the source's audio. Every encoding cafconv
/// writes is one value conforming to this protocol, listed once in ``OutputCodecs/all``;
/// `Converter` runs every job through the same stages, asking the job's codec at each one:
///
/// 1. **Source**: `SourceStage.open` (not the codec's business).
/// 2. **Transforms**: ``plan(_:options:result:)`` resolves the output format and the transform
///    plan (rate, channels, dither) that stands between the source and the encoder.
/// 3. **Encoder** and 4. **Container**: ``write(_:from:into:result:)`` encodes the samples and
///    lays them out as a CAF (`desc`, `kuki`, `pakt`, frames per packet are the codec's own),
///    then checks the layout with CAFKit.
/// 5. **Proof**: ``prove(_:plan:source:output:)`` decodes the output and compares it with the
///    source's independent decoding under the codec's rule (exact, exact after a named rule, an
///    SNR floor, or a lossy measure of lag and length).
/// 6. **Commit**: ``record(_:proof:plan:source:into:output:)`` fills the report, and `Converter.run`
///    renames the temporary file into place.
///
/// `verify --against` decodes a file the same way through the codec's own measure (see each
/// codec's file).
package protocol OutputCodec: Sendable {
    /// What the Encoder and Container stages hand to the proof and the report: the frames
    /// written and whatever the proof needs to know about the file.
    associatedtype Written

    /// How `-d` names this codec (and the spellings `--help` lists for it); the `-d` parser and
    /// `validate` learn the codec's name, bit depths, `-b` and byte order from it.
    var spelling: DataFormat.Spelling { get }

    /// The CAF format IDs of the files it writes.
    var formatIDs: [FourCC] { get }

    /// Whether, without `-d`, this codec writes a source whose samples are `encoding` in their own
    /// format (``TargetFormat/kept(_:)`` decided that they stay `encoding`).
    func keeps(_ encoding: Encoding) -> Bool

    /// Whether `-d 0` (``ConversionOptions/keepsSourceCodec``) makes this codec write `source` in
    /// its own codec, its packets moved rather than decoded (an Ogg Opus stream into Opus CAF).
    func movesPackets(of source: SourceStage, options: ConversionOptions) -> Bool

    /// The encoding a target of the `-d` kind `asked` has for a source of `source`'s encoding:
    /// libsndfile's name for it, or a stand-in for codecs libsndfile does not write (the codec's
    /// plan and writer decide those files).
    func encoding(for asked: DataFormat.Kind, source: Encoding) -> Encoding

    /// What `verify -d` expects of a file this codec wrote for the `-d` kind `asked`: its format
    /// ID (and linear PCM its sample size and kind); the byte order is the caller's.
    func verifyExpectations(_ expected: inout CAFExpectations, asked: DataFormat.Kind)

    /// What the data format adds to an output's fingerprint: everything besides the samples that
    /// decides the bytes it writes (an encoder's revision or identity, a bit rate, a floor that
    /// decides which files are written at all).
    func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String

    /// Whether the temporary output is opened before ``plan(_:options:result:)`` rather than after:
    /// what a report says when both the output folder and the plan fail depends on it.
    var opensOutputFirst: Bool { get }

    /// The Transforms stage: the output's format, rate and channels, and the transform plan.
    /// Fills the report's format, channels and rate as far as they are known.
    func plan(_ source: SourceStage, options: ConversionOptions, result: inout FileResult) throws -> OutputPlan

    /// The Encoder and Container stages: the whole CAF written into `output`'s temporary file and
    /// its layout checked; `nil` when cancelled.
    func write(_ plan: OutputPlan, from source: SourceStage, into output: OutputTarget, result: inout FileResult) throws
        -> Written?

    /// The Proof stage: the written file decoded and compared with the source; `nil` when cancelled.
    func prove(_ written: Written, plan: OutputPlan, source: SourceStage, output: OutputTarget) throws -> Proof?

    /// What the report says about the written output (frames, bytes, how the samples travelled),
    /// and the warnings that come after the proof.
    func record(
        _ written: Written, proof: Proof, plan: OutputPlan, source: SourceStage, into result: inout FileResult,
        output: OutputTarget
    ) throws
}

extension OutputCodec {
    package var opensOutputFirst: Bool { false }

    package func keeps(_ encoding: Encoding) -> Bool { false }

    package func movesPackets(of source: SourceStage, options: ConversionOptions) -> Bool { false }

    package func encoding(for asked: DataFormat.Kind, source: Encoding) -> Encoding { .pcm16 }

    /// Whether this codec writes `target`; `asked` is the `-d` kind (`nil` without `-d`, when the
    /// target is the source's own format).
    package func writes(_ target: TargetFormat, asked: DataFormat.Kind?) -> Bool {
        guard let asked else { return keeps(target.encoding) }
        return asked.codec == spelling.name
    }

    package func verifyExpectations(_ expected: inout CAFExpectations, asked: DataFormat.Kind) {
        expected.formatID = formatIDs.first
    }
}

/// What a job's output will be, as the Transforms stage decided it.
package struct OutputPlan {
    /// The output's encoding and byte order.
    package var target: TargetFormat
    /// The transform stage between the source and the encoder (`nil`: the samples go as they are).
    package var transform: TransformPlan?
    /// The output's channels.
    package var channels: Int
    /// The output's rate in whole Hz.
    package var sampleRate: Int
    /// What the output's `desc` says: the asked rate after a resampling, else the source's rate
    /// exactly as its container stores it (libsndfile's is an integer).
    package var exactRate: Double
    /// For codecs that encode at a bit rate (AAC): the total bits per second.
    package var bitRate: Int? = nil

    /// The plan for an output of `target`: the transforms the options ask for, written into
    /// `result` (the format out before the plan is made, the channels and rate after).
    package static func make(
        _ source: SourceStage, target: TargetFormat, options: ConversionOptions, result: inout FileResult
    ) throws -> OutputPlan {
        result.formatOut = target.description
        let transform = try TransformPlan.make(source: source, target: target, options: options, warnings: &result.warnings)
        let channels = transform?.outputChannels ?? source.info.channels
        let sampleRate = transform?.outputRate ?? source.info.sampleRate
        result.channels = channels
        result.sampleRate = sampleRate
        return OutputPlan(
            target: target, transform: transform, channels: channels, sampleRate: sampleRate,
            exactRate: transform?.rate == nil ? source.exactRate : Double(sampleRate))
    }

    /// The target `-d` (or the source's own format) resolves to.
    package static func target(_ source: SourceStage, options: ConversionOptions) -> TargetFormat {
        // An MP4 or ADTS AAC source without `-d` stays AAC, as afconvert keeps a source's format.
        if options.dataFormat == nil, case .m4a? = source.codec { return TargetFormat(encoding: .aacPackets, byteOrder: .little) }
        return TargetFormat.resolve(
            source: source.encodingToKeep, sourceOrder: source.byteOrder, dataFormat: options.dataFormat, endian: options.endian)
    }

    /// The source's frames through the plan's transforms, as a lossy encoder takes them.
    package func encoderInput(_ source: SourceStage) throws(ConversionError) -> any FrameSource {
        do {
            let pumped = try source.pumpAudio()
            return try transform.map { plan throws in try TransformedAudio(source: pumped, plan: plan) } ?? pumped
        } catch {
            throw ConversionError.encoding(.sourceUnreadable(reason: "\(error)"))
        }
    }

    /// The source's independent decoding (`proofAudio`) through the same transforms: what a
    /// lossy codec's decoded output is measured against.
    package func proofReference(_ source: SourceStage) throws -> any FrameSource {
        do {
            let independent = try source.proofAudio()
            return try transform.map { plan throws in try TransformedAudio(source: independent, plan: plan) } ?? independent
        } catch let error as ConversionError {
            throw error
        } catch {
            throw ConversionError.proof(.decoding(reason: "\(error)"))
        }
    }

    /// The source's frames the header promised when they are the output's too (no resampling).
    package func headerFrames(of source: SourceStage) -> Int64? { transform?.rate == nil ? source.headerFrames : nil }
}

/// Where a job's output is written and under which options.
package struct OutputTarget {
    /// The temporary file in the output folder, renamed into place at commit.
    package let temporary: FileSystem.TemporaryFile
    /// The job's options.
    package let options: ConversionOptions
    /// Asked between blocks: whether to stop.
    package let isCancelled: () -> Bool
    /// `convert --report`: the meters the proof's decoding of the output feeds; `nil` otherwise.
    package var levelTap: LevelTap? = nil
    /// `--loudness`: the meter the proof feeds the output's decoding to.
    package var loudnessTap: OutputLoudnessTap? = nil
}

extension FileResult {
    /// The warnings every codec gives about the frames it wrote: a source shorter than its header
    /// said (`headerFrames`, when the output's frames are the source's) and no audio at all.
    package mutating func warnAboutFrames(_ frames: Int64, headerFrames: Int64?, empty: SourceWarning) {
        if let headerFrames, frames < headerFrames { warnings.append(.source(.shortRead(declared: headerFrames, read: frames))) }
        if frames == 0 { warnings.append(.source(empty)) }
    }
}

extension TargetFormat {
    /// The output format for a source of `encoding` whose samples are in `sourceOrder`: the
    /// encoding the codec `-d` names says (``OutputCodec/encoding(for:source:)``), or without `-d`
    /// the source's own where CAF holds it (``kept(_:)``); the byte order `-d` or `--endian` asks.
    package static func resolve(
        source encoding: Encoding, sourceOrder: ByteOrder, dataFormat: DataFormat?, endian: EndianChoice?
    ) -> TargetFormat {
        let order = byteOrder(dataFormat: dataFormat, endian: endian, sourceOrder: sourceOrder)
        guard let kind = dataFormat?.kind else { return TargetFormat(encoding: kept(encoding), byteOrder: order) }
        return TargetFormat(encoding: OutputCodecs.codec(asked: kind).encoding(for: kind, source: encoding), byteOrder: order)
    }
}

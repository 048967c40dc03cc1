import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SystemLayer
import SndFile

/// Apple IMA4 (`-d ima4`): 64 frames in 34 bytes per channel, encoded by CAFKit's `IMA4Encoder`
/// and laid out by CAFKit's writer with a `pakt` (``IMA4Stage``; libsndfile has no IMA4 in CAF
/// and only reads the source). Lossy: the proof (``IMA4Proof``) decodes the file with CAFKit and
/// requires the source's exact length and an SNR above the floor (`--min-snr`).
package struct IMA4Codec: OutputCodec {
    package var spelling: DataFormat.Spelling { DataFormat.Spelling("ima4") }
    package var formatIDs: [FourCC] { [.ima4] }

    /// libsndfile's `imaADPCM` stands for it in a target (`TargetFormat.isIMA4`).
    package func encoding(for asked: DataFormat.Kind, source: Encoding) -> Encoding { .imaADPCM }

    /// The encoder's revision and search decide the bytes; the floor decides which files are
    /// written at all.
    package func fingerprint(_ format: DataFormat, options: ConversionOptions) -> String {
        let search = options.ima4Search
        return
            "ima4(enc=\(IMA4Stage.encoderRevision),width=\(search.searchWidth),range=\(search.codeRange),floor=\(options.ima4MinimumSNR))"
    }

    package func plan(_ source: SourceStage, options: ConversionOptions, result: inout FileResult) throws -> OutputPlan {
        try OutputPlan.make(source, target: OutputPlan.target(source, options: options), options: options, result: &result)
    }

    /// The source's samples (through the transform stage when there is one) encoded block by
    /// block into the temporary file, whose header first announces the frames the source
    /// promises; the metadata is placed in that header, so it is mapped before the audio.
    package func write(_ plan: OutputPlan, from source: SourceStage, into output: OutputTarget, result: inout FileResult) throws
        -> (frames: Int64, document: CAFDocument)?
    {
        let options = output.options
        let pumped: SourceAudio
        do { pumped = try source.pumpAudio() } catch let error as SndFileError {
            throw ConversionError.libsndfile(code: error.code, message: error.message, doing: "reading failed")
        }
        let audio: any FrameSource
        var announced = pumped.limit ?? source.headerFrames ?? 0
        if let transform = plan.transform {
            do throws(SourceError) { audio = try TransformedAudio(source: pumped, plan: transform) } catch {
                throw ConversionError.encoding(.transform(reason: error.message))
            }
            announced = transform.rate?.frames(announced) ?? announced
        } else {
            audio = pumped
        }
        let metadata = source.metadata(
            outputRate: plan.exactRate, outputFrames: UInt64(max(0, announced)), options: options,
            warnings: &result.warnings)
        let descriptor = try output.temporary.descriptor()
        defer { close(descriptor) }
        guard
            let frames = try IMA4Stage.write(
                from: audio, announcedFrames: UInt64(max(0, announced)), to: descriptor,
                search: options.ima4Search, metadata: metadata, blockSamples: options.blockSamples,
                sampleRate: plan.exactRate, isCancelled: output.isCancelled)
        else { return nil }
        let document = try IMA4Stage.checkLayout(
            output.temporary.path, channels: audio.channels, sampleRate: plan.exactRate, frames: frames)
        return (frames, document)
    }

    /// The independent decoding of the source, through the same transform plan, is what the
    /// decoded file is measured against.
    package func prove(
        _ written: (frames: Int64, document: CAFDocument), plan: OutputPlan, source: SourceStage, output: OutputTarget
    ) throws -> Proof? {
        if output.isCancelled() { return nil }
        let reference: any FrameSource
        if let transform = plan.transform {
            do { reference = try TransformedAudio(source: try source.proofAudio(), plan: transform) } catch {
                throw ConversionError.proof(.decoding(reason: "\(error)"))
            }
        } else {
            reference = try source.proofAudio()
        }
        return try IMA4Stage.prove(
            output.temporary.path, document: written.document, against: reference, options: output.options,
            levelTap: output.levelTap, isCancelled: output.isCancelled)
    }

    package func record(
        _ written: (frames: Int64, document: CAFDocument), proof: Proof, plan: OutputPlan, source: SourceStage,
        into result: inout FileResult, output: OutputTarget
    ) throws {
        try? source.reader?.close()
        try result.finishIMA4(
            (written.frames, written.document, proof), headerFrames: plan.headerFrames(of: source),
            isCancelled: output.isCancelled)
        if let transform = plan.transform, var proof = result.proof {
            proof.rule = [transform.rule, proof.rule].compactMap { $0 }.joined(separator: "; ")
            result.proof = proof
        }
    }
}

extension DataFormat.Kind {
    /// `-d ima4`: Apple IMA ADPCM.
    package static let ima4 = IMA4Codec().spelling.kind()
}

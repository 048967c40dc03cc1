import BinaryIO
import CAFKit
import SndFile

/// Stage 3 of a conversion, the **Container**: how the CAF is laid out. Today libsndfile's CAF
/// writer makes the header and chunks on the temporary file's descriptor (the direct payload then
/// appends to its empty `data` chunk); `finish` trims libsndfile's stray pad byte and checks the
/// layout with CAFKit against what the target says it must be. CAFKit's writer (for `pakt`,
/// `kuki`, markers and info, which libsndfile cannot write) is the second container to come.
enum ContainerStage {
    /// libsndfile's CAF writer for `target` on `descriptor` (the temporary file at `path`), with
    /// the source's rate, channels and channel map, or those the transform `plan` makes; no peak
    /// chunk, no normalisation.
    static func libsndfileWriter(
        descriptor: Int32, path: String, source: SourceStage, target: TargetFormat, plan: TransformPlan? = nil
    ) throws(ConversionError) -> SoundFile {
        let outInfo = SoundInfo(
            sampleRate: plan?.outputRate ?? source.info.sampleRate, channels: plan?.outputChannels ?? source.info.channels,
            major: .caf,
            encoding: target.encoding,
            endianness: target.byteOrder == .little ? .little : .big)
        do {
            let writer = try SoundFile.create(descriptor: descriptor, path: path, info: outInfo)
            try writer.setAddPeakChunk(false)
            try writer.setNormalisation(false)
            if let plan {
                if let map = plan.channelMap { try? writer.setChannelMap(map) }
            } else if let map = try source.reader.channelMap() {
                try? writer.setChannelMap(map)
            }
            return writer
        } catch {
            throw ConversionError(.unsupported, "libsndfile cannot write \(target) CAF: \(error.message)")
        }
    }

    /// Trims libsndfile's stray pad byte, checks the file with CAFKit, and returns its size.
    static func finish(
        _ path: String, target: TargetFormat, channels: Int, sampleRate: Int,
        frames: UInt64
    ) throws(ConversionError) -> CAFDocument {
        var document = try readBack(path)
        // libsndfile pads an odd-length last 'data' chunk with one byte; CAF has no pad bytes.
        if let data = document.file.dataChunk, data == document.file.chunks.last,
            document.file.fileLength == data.end + 1
        {
            try FileSystem.truncate(path, to: data.end)
            document = try readBack(path)
        }
        let problems = CAFValidator.validate(
            document,
            expecting: expectations(
                for: target, channels: channels,
                sampleRate: sampleRate, frames: frames))
        if let first = problems.first {
            throw ConversionError(.proof, "the written CAF failed verification: \(first)")
        }
        return document
    }

    static func readBack(_ path: String) throws(ConversionError) -> CAFDocument {
        do {
            return try CAFDocument(reading: try FileByteSource(path: path))
        } catch {
            throw ConversionError(.proof, "the written CAF cannot be read back: \(error)")
        }
    }

    /// What the written file must say, derived from the target (not from libsndfile).
    static func expectations(for target: TargetFormat, channels: Int, sampleRate: Int, frames: UInt64) -> CAFExpectations {
        var expected = CAFExpectations(channels: UInt32(channels), sampleRate: Double(sampleRate))
        switch target.encoding {
        case .pcmS8, .pcm16, .pcm24, .pcm32, .float32, .float64:
            expected.formatID = .lpcm
            expected.bitsPerChannel = UInt32(target.encoding.bits ?? 0)
            expected.isFloat = target.encoding.isFloat
            expected.byteOrder = target.byteOrder
            expected.validFrames = frames
        case .ulaw:
            expected.formatID = .ulaw
            expected.validFrames = frames
        case .alaw:
            expected.formatID = .alaw
            expected.validFrames = frames
        case .alac16, .alac20, .alac24, .alac32:
            expected.formatID = .alac
            expected.validFrames = frames
        default: break
        }
        return expected
    }
}

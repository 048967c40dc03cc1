import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer

/// Stage 3 of a conversion, the **Container**, for the codecs libsndfile's CAF writer lays out
/// (`LibsndfileWriterCodec`; IMA4 and AAC lay out their files with CAFKit's writer): libsndfile
/// makes the header and chunks on the temporary file's descriptor (the direct payload then appends
/// to its empty `data` chunk); `finish` trims libsndfile's stray pad byte and checks the layout
/// with CAFKit against what the codec says it must be. The source's loops, markers and text, which
/// libsndfile cannot write, are placed before `data` by CAFKit's `CAFWriter.placeBeforeData`.
package enum ContainerStage {
    /// libsndfile's CAF writer for `target` on `descriptor` (the temporary file at `path`), with
    /// the source's rate, channels and channel map, or those the transform `plan` makes; no peak
    /// chunk, no normalisation.
    package static func libsndfileWriter(
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
            } else if let map = try source.reader?.channelMap() {
                try? writer.setChannelMap(map)
            }
            return writer
        } catch {
            throw ConversionError.encoding(.libsndfileCannotWrite(target: "\(target)", reason: error.message))
        }
    }

    /// Trims libsndfile's stray pad byte, places the `metadata` chunks before the audio
    /// (``placeMetadata(_:in:document:blockSize:)``), checks the file with CAFKit, and returns it.
    ///
    /// `speakers`: where the output's channels play (the source's, when no mix changed them):
    /// written as a `chan` of channel descriptions when libsndfile wrote none (its CAF writer
    /// knows only some layouts' tags: a 7.1 or a 6.0 WAV's channel mask was lost).
    package static func finish(
        _ path: String, target: TargetFormat, channels: Int, sampleRate: Double,
        frames: UInt64, metadata: [CAFChunk] = [], speakers: SpeakerLayout? = nil, blockSize: Int = 1 << 20
    ) throws(ConversionError) -> CAFDocument {
        var document = try readBack(path)
        var metadata = metadata
        if let speakers, speakers.speakers.count == channels, channels > 2, let layout = speakers.channelLayout,
            !document.file.chunks.contains(where: { $0.type == .chan })
        {
            metadata.insert(.channelLayout(layout), at: 0)
        }
        // libsndfile's rate is an integer (SF_INFO.samplerate); CAF's is a Double.
        if try setRate(sampleRate, in: path, document: document) { document = try readBack(path) }
        if try emptyPacketTable(in: path, document: document) { document = try readBack(path) }
        // libsndfile pads an odd-length last 'data' chunk with one byte; CAF has no pad bytes.
        if let data = document.file.dataChunk, data == document.file.chunks.last,
            document.file.fileLength == data.end + 1
        {
            try FileSystem.truncate(path, to: data.end)
            document = try readBack(path)
        }
        if !metadata.isEmpty {
            try placeMetadata(metadata, in: path, document: document, blockSize: blockSize)
            document = try readBack(path)
        }
        let problems = CAFValidator.validate(
            document,
            expecting: expectations(
                for: target, channels: channels,
                sampleRate: sampleRate, frames: frames))
        if let first = problems.first {
            // libsndfile's ALAC writer does not report writes that failed: a file system with no
            // room left is the cause, not the layout it left behind.
            if let free = FileSystem.availableBytes(at: path), free < diskFullMargin {
                throw ConversionError.io(
                    errno: ENOSPC,
                    doing: "writing failed (\(free) bytes free; libsndfile's writer did not report it, the file it left fails \(first.rule.rawValue))",
                    path: nil)
            }
            throw ConversionError.proof(.invalid(finding: "\(first)"))
        }
        return document
    }

    /// Writes `rate` into the `desc` of the CAF at `path` when it says another (libsndfile
    /// writes the integer part of a rate such as 22254.545 Hz or 22050.5 Hz, since its
    /// `SF_INFO.samplerate` is an `Int`); returns whether it wrote.
    package static func setRate(_ rate: Double, in path: String, document: CAFDocument) throws(ConversionError) -> Bool {
        guard rate.isFinite, rate > 0, document.file.audioDescription.sampleRate.bitPattern != rate.bitPattern,
            let desc = document.file.chunks.first(where: { $0.type == .desc }), desc.size >= 8
        else { return false }
        let fd = try FileSystem.openForUpdate(path)
        defer { FileSystem.closeFile(fd) }
        var writer = ByteWriter()
        writer.write(rate, .big)
        try FileSystem.writeAll(fd, writer.bytes, at: desc.bodyOffset)
        return true
    }

    /// Free bytes below which a written file that fails verification is blamed on a full disk.
    package static let diskFullMargin: UInt64 = 1 << 20

    /// libsndfile 1.2 closes an ALAC CAF of no frames with a `pakt` of 0 packets and 4096
    /// remainder frames (-4096 valid frames by the spec's sum); the remainder is set to 0, the
    /// only count 0 packets allow. Returns whether it wrote.
    package static func emptyPacketTable(in path: String, document: CAFDocument) throws(ConversionError) -> Bool {
        guard let table = document.file.packetTableHeader, table.numberPackets == 0, table.numberValidFrames == 0,
            table.primingFrames == 0, table.remainderFrames != 0,
            let pakt = document.file.packetTableChunk, pakt.size >= UInt64(PacketTableHeader.size)
        else { return false }
        let fd = try FileSystem.openForUpdate(path)
        defer { FileSystem.closeFile(fd) }
        try FileSystem.writeAll(fd, [0, 0, 0, 0], at: pakt.bodyOffset + 20)
        return true
    }

    /// The loops, markers and text of the source as CAF chunks for an output of `outputFrames`
    /// frames at `outputRate` (docs/metadata.md): what cannot be carried, and
    /// every position dropped because it falls past the end of the output, lands in `warnings`.
    /// The rates are the source's and the output's; they differ once the rate can change.
    package static func metadata(
        of input: some ByteSource, sourceRate: Double, outputRate: Double, outputFrames: UInt64,
        warnings: inout [ConversionWarning]
    ) -> [CAFChunk] {
        let (mapped, notes) = MetadataMapping.read(input)
        let (scaled, drops) = mapped.rescaled(sourceRate: sourceRate, outputRate: outputRate, outputFrames: outputFrames)
        warnings += notes.map(ConversionWarning.metadata) + drops.map { .metadata(.notRescaled($0)) }
        return scaled.chunks
    }

    /// The largest header (bytes before the `data` chunk) the metadata placement rewrites.
    package static let maxHeaderBytes: UInt64 = 64 << 20

    /// Rewrites the start of the written CAF at `path` so that `metadata` sits between the chunks
    /// the writer put before the audio (`desc`, `chan`, `pakt`, `kuki`...) and `data`, in the space
    /// of the writer's `free` chunk. When the chunks do not fit there, the `data` chunk moves
    /// towards the end by whole pages (``CAFWriter/metadataPageSize``), copied from the end
    /// backwards in blocks of `blockSize` bytes so that memory stays bounded.
    package static func placeMetadata(
        _ metadata: [CAFChunk], in path: String, document: CAFDocument, blockSize: Int
    ) throws(ConversionError) {
        guard let data = document.file.dataChunk else {
            throw ConversionError.proof(.noDataChunk)
        }
        guard data.offset <= maxHeaderBytes else {
            throw ConversionError.encoding(.headerTooLong(bytes: data.offset))
        }
        let fd = try FileSystem.openForUpdate(path)
        defer { FileSystem.closeFile(fd) }
        // The file header and every chunk before 'data' but the writer's padding and the chunks
        // `metadata` replaces (a header writer's own 'info'), byte for byte.
        let replaced = Set(metadata.map(\.type)).union([.free])
        var leading = try FileSystem.readExactly(fd, count: Int(CAFFile.headerSize), at: 0)
        for chunk in document.file.chunks where chunk.offset < data.offset && !replaced.contains(chunk.type) {
            let end = min(chunk.end, data.offset)
            leading += try FileSystem.readExactly(fd, count: Int(end - chunk.offset), at: chunk.offset)
        }
        let header = CAFWriter.placeBeforeData(leading: leading, metadata: metadata, dataChunkOffset: data.offset)
        let newOffset = UInt64(header.count)
        if newOffset > data.offset {
            let shift = newOffset - data.offset
            let length = try FileSystem.length(of: fd)
            let step = UInt64(max(blockSize, 4096))
            var end = length
            // From the end backwards: no byte is overwritten before it has been copied.
            while end > data.offset {
                let start = max(data.offset, end >= step ? end - step : 0)
                let block = try FileSystem.readExactly(fd, count: Int(end - start), at: start)
                try FileSystem.writeAll(fd, block, at: start + shift)
                end = start
            }
        }
        try FileSystem.writeAll(fd, header, at: 0)
    }

    package static func readBack(_ path: String) throws(ConversionError) -> CAFDocument {
        do {
            return try CAFDocument(reading: try FileByteSource(path: path))
        } catch {
            throw ConversionError.proof(.unreadable(reason: "\(error)"))
        }
    }

    /// The written file's bytes and its chunk table (the audio stays in the file), for proofs that
    /// decode the packets themselves (AAC).
    package static func readBackFile(_ path: String) throws(ConversionError) -> (bytes: FileByteSource, file: CAFFile) {
        do {
            let bytes = try FileByteSource(path: path)
            return (bytes, try CAFFile(reading: bytes))
        } catch {
            throw ConversionError.proof(.unreadable(reason: "\(error)"))
        }
    }

    /// What the written file must say, derived from the target by its codec (not from libsndfile).
    package static func expectations(for target: TargetFormat, channels: Int, sampleRate: Double, frames: UInt64) -> CAFExpectations {
        var expected = CAFExpectations(channels: UInt32(channels), sampleRate: sampleRate)
        let codec = OutputCodecs.libsndfileCodec(writing: target)
        guard codec.writes(target, asked: nil) else { return expected }
        codec.expectations(&expected, for: target)
        expected.validFrames = frames
        return expected
    }
}

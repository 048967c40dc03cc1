import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// `-o -` with a linear PCM output (`ConversionOptions.streamsTo`): the CAF goes to a pipe as it
/// is made, in bounded memory and without seeking, instead of being written to a file, proved and
/// copied. The header is the file road's own (libsndfile's empty CAF for the same target, its rate
/// and the source's metadata placed by `ContainerStage`, in a scratch file of a few KiB that is
/// discarded), except that the `data` chunk declares the size -1 ("to the end of the file", which
/// CAF allows for a last `data` chunk). Each block of samples is packed into the output's bytes,
/// decoded again by CAFKit's PCM decoder and compared with the source's independent decoding
/// (`proofAudio`, through the same transforms) under the same rule as the file road's proof,
/// before it is written. A difference, a source that fails or frame counts that disagree stop the
/// stream and fail the job: what was sent stays sent, and the exit status says it is not whole.
package enum PCMStream {
    /// Whether `codec` streams under `options`: linear PCM, `-o -`, and no measure that needs the
    /// whole output before it is committed (`--loudness`, `--report`).
    package static func applies(_ codec: any OutputCodec, options: ConversionOptions) -> Bool {
        options.streamsTo != nil && codec is LinearPCMCodec && options.loudnessTarget == nil && !options.measuresLevels
    }

    /// Plans, streams and proves `source` to `options.streamsTo`, filling `result`.
    package static func run(
        _ source: SourceStage, job: Job, options: ConversionOptions, result: inout FileResult, isCancelled: () -> Bool
    ) throws {
        guard let sink = options.streamsTo else { return }
        let codec = LinearPCMCodec()
        let plan = try codec.plan(source, options: options, result: &result)
        try source.admits(plan.target)
        let assumed = expectedFrames(source, plan: plan)
        let metadata = source.metadata(
            outputRate: plan.exactRate, outputFrames: assumed ?? UInt64(Int64.max), options: options, warnings: &result.warnings)
        let header = try Self.header(source, job: job, plan: plan, metadata: metadata)
        try FileSystem.writeAll(sink, header[...])
        let encoder = EncoderStage.choose(
            for: source, target: plan.target, options: options.withoutDirectPayload, plan: plan.transform)
        guard
            let (frames, rule, decoder) = try stream(
                source, encoder: encoder, plan: plan, blockSamples: options.blockSamples, to: sink, isCancelled: isCancelled)
        else { throw ConversionError.interrupted }
        source.frameProgress?.finishReading()
        try source.reader?.close()
        try source.checkDecoded(frames: frames, rate: plan.transform?.rate)
        result.warnAboutFrames(frames, headerFrames: plan.headerFrames(of: source), empty: .noFrames)
        // The header went out with metadata placed for the frames expected: it must be what the
        // frames really held would have placed.
        var ignored: [ConversionWarning] = []
        if !metadata.isEmpty,
            source.metadata(outputRate: plan.exactRate, outputFrames: UInt64(frames), options: options, warnings: &ignored)
                != metadata
        {
            throw ConversionError.proof(.streamedMetadata(assumed: assumed, frames: frames))
        }
        if isCancelled() { throw ConversionError.interrupted }
        result.proof = Proof(
            comparison: rule == nil ? "exact" : "exact-after-rule", rule: rule, sourceDecoder: decoder,
            outputDecoder: "cafkit", extent: "every-frame")
        result.frames = frames
        result.bytes = UInt64(header.count) + UInt64(frames) * UInt64(plan.target.encoding.bits ?? 16) / 8 * UInt64(plan.channels)
        result.samples = encoder.transfer(from: source)
    }

    /// The output's frames as far as they are known before the audio is read: the source's header
    /// frames, scaled to the output's rate when it changes; `nil` when the source does not say.
    static func expectedFrames(_ source: SourceStage, plan: OutputPlan) -> UInt64? {
        guard let frames = source.headerFrames, frames >= 0 else { return nil }
        if let same = plan.headerFrames(of: source) { return UInt64(same) }
        let scaled = (Double(frames) * plan.exactRate / source.exactRate).rounded()
        return scaled.isFinite && scaled >= 0 && scaled < 0x1p62 ? UInt64(scaled) : nil
    }

    /// The file road's header for `plan` (libsndfile's empty CAF in a scratch file next to the
    /// job's output, its rate set and `metadata` placed), checked by CAFKit, up to and including
    /// the `data` chunk's edit count, with the `data` size -1.
    static func header(_ source: SourceStage, job: Job, plan: OutputPlan, metadata: [CAFChunk]) throws -> [UInt8] {
        let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
        let scratch = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output))
        defer { scratch.discard() }
        let writer = try ContainerStage.libsndfileWriter(
            descriptor: try scratch.descriptor(), path: scratch.path, source: source, target: plan.target, plan: plan.transform)
        do { try writer.close() } catch {
            throw ConversionError.encoding(.libsndfileCannotWrite(target: "\(plan.target)", reason: error.message))
        }
        var document = try ContainerStage.readBack(scratch.path)
        if try ContainerStage.setRate(plan.exactRate, in: scratch.path, document: document) {
            document = try ContainerStage.readBack(scratch.path)
        }
        if !metadata.isEmpty {
            try ContainerStage.placeMetadata(metadata, in: scratch.path, document: document, blockSize: 1 << 16)
            document = try ContainerStage.readBack(scratch.path)
        }
        guard let data = document.file.dataChunk, data == document.file.chunks.last, data.size == 4 else {
            throw ConversionError.proof(.emptyDataChunkMissing)
        }
        let file = try LinearPCMCodec.bytes(scratch.path)
        var bytes: [UInt8]
        do { bytes = try file.readExactly(at: 0, count: Int(data.end)) } catch {
            throw ConversionError.proof(.unreadable(reason: "\(error)"))
        }
        // The size field follows the chunk's type: 8 bytes, big-endian, all ones for -1.
        let sizeField = Int(data.offset) + 4
        bytes.replaceSubrange(sizeField..<sizeField + 8, with: [UInt8](repeating: 0xFF, count: 8))
        var expected = ContainerStage.expectations(
            for: plan.target, channels: plan.channels, sampleRate: plan.exactRate, frames: 0)
        expected.validFrames = nil
        let streamed: CAFDocument
        do { streamed = try CAFDocument(reading: MemoryByteSource(bytes)) } catch {
            throw ConversionError.proof(.unreadable(reason: "\(error)"))
        }
        // Markers and regions are checked against the frames the audio really holds once it has
        // been read (`run`); in the header alone there is no audio yet.
        let later: Set<CAFRule> = [.markPosition, .regnPosition]
        if let first = CAFValidator.validate(streamed, expecting: expected).first(where: { !later.contains($0.rule) }) {
            throw ConversionError.proof(.invalid(finding: "\(first)"))
        }
        return bytes
    }
}

extension ConversionOptions {
    /// These options with the direct payload off: a stream decodes and proves every sample.
    var withoutDirectPayload: ConversionOptions {
        var options = self
        options.directPayload = false
        return options
    }
}

extension PCMStream {
    /// The samples of `encoder`'s road, read block by block, packed into the output's bytes,
    /// checked against the source's independent decoding and written to `sink`. Returns the
    /// frames written and the proof's rule, or `nil` when `isCancelled` said stop.
    static func stream(
        _ source: SourceStage, encoder: EncoderStage, plan: OutputPlan, blockSamples: Int, to sink: Int32,
        isCancelled: () -> Bool
    ) throws -> (frames: Int64, rule: String?, decoder: String)? {
        let audio: any FrameSource
        let route: SampleRoute
        switch encoder {
        case .samples(let samples):
            (audio, route) = (try source.pumpAudio(), samples)
        case .transformed(let transform, let samples):
            do { audio = try TransformedAudio(source: try source.pumpAudio(), plan: transform) } catch let error as SourceError {
                throw ConversionError.encoding(.transform(reason: error.message))
            }
            route = samples
        case .directPayload, .g711Copy:
            throw ConversionError.encoding(.unexpected("a stream takes the sample road"))
        }
        let reference = try plan.proofReference(source)
        let rule = plan.transform.map(\.rule) ?? LinearPCMCodec.rule(reference, plan.target)
        let layout = PCMLayout(
            bits: plan.target.encoding.bits ?? 16, isFloat: plan.target.encoding.isFloat, byteOrder: plan.target.byteOrder,
            channels: plan.channels)
        var block = StreamBlock(channels: audio.channels, blockSamples: blockSamples)
        var frame: Int64 = 0
        while true {
            if isCancelled() { return nil }
            let got: Int
            do { got = try audio.read(ints: &block.ints, doubles: &block.doubles, frames: block.frames) } catch {
                throw ConversionError.encoding(.sourceRead(reason: error.message))
            }
            try block.check(reference, frames: got, from: frame)
            if got == 0 { return (frame, rule, reference.decoderName) }
            let bytes = block.pack(got, route: route, layout: layout)
            if let difference = block.firstDifference(bytes, frames: got, layout: layout, referenceIsFloat: reference.isFloat) {
                throw ConversionError.proof(
                    .sampleDiffers(
                        frame: frame + Int64(difference.index / layout.channels), channel: difference.index % layout.channels + 1,
                        found: difference.found, expected: difference.expected, decoder: reference.decoderName, rule: rule))
            }
            try FileSystem.writeAll(sink, bytes[...])
            frame += Int64(got)
        }
    }
}

/// One block of a stream: the encoder's samples, the reference's, and the packing between.
struct StreamBlock {
    let frames: Int
    let channels: Int
    var ints: [Int32]
    var doubles: [Double]
    var referenceInts: [Int32]
    var referenceDoubles: [Double]

    init(channels: Int, blockSamples: Int) {
        self.channels = channels
        frames = max(1, blockSamples / max(1, channels))
        ints = [Int32](repeating: 0, count: frames * channels)
        doubles = [Double](repeating: 0, count: frames * channels)
        (referenceInts, referenceDoubles) = (ints, doubles)
    }

    /// Reads `frames` frames of `reference` (all of them: a decoder may hand out fewer per call)
    /// and throws when it holds a different number of frames than the encoder's audio, whose
    /// block of `frames` frames starts at `start` (0 frames: its end).
    mutating func check(_ reference: any FrameSource, frames: Int, from start: Int64) throws(ConversionError) {
        let wanted = max(frames, 1)
        var done = 0
        var more: Int64 = 0
        do throws(SourceError) {
            // Most decoders hand out the whole block at once, straight into the reference's arrays.
            done = try reference.read(ints: &referenceInts, doubles: &referenceDoubles, frames: wanted)
            while done > 0, done < wanted {
                var ints = [Int32](repeating: 0, count: reference.isFloat ? 0 : (wanted - done) * channels)
                var doubles = [Double](repeating: 0, count: reference.isFloat ? (wanted - done) * channels : 0)
                let got = try reference.read(ints: &ints, doubles: &doubles, frames: wanted - done)
                if got == 0 { break }
                let range = done * channels..<(done + got) * channels
                if reference.isFloat {
                    referenceDoubles.replaceSubrange(range, with: doubles[0..<got * channels])
                } else {
                    referenceInts.replaceSubrange(range, with: ints[0..<got * channels])
                }
                done += got
            }
            if done > frames { more = try OutputProof.remaining(reference, self.frames) }
        } catch {
            throw ConversionError.proof(.decoding(reason: error.message))
        }
        if done != frames {
            throw ConversionError.proof(
                .frameCount(found: start + Int64(frames), expected: start + Int64(done) + more, decoder: reference.decoderName))
        }
    }

    /// The first `frames` frames of the block, mapped along `route` as libsndfile's writer is fed
    /// them (`EncoderStage.pump`), in the bytes of `layout`: integers keep their top bits (the
    /// writer's truncation), floats are stored as `Float` or `Double`.
    mutating func pack(_ frames: Int, route: SampleRoute, layout: PCMLayout) -> [UInt8] {
        let count = frames * channels
        switch route {
        case .integersToFloats: SampleScaling.integersToFloats(ints, into: &doubles, count: count)
        case .floatsToIntegers(let bits): SampleScaling.floatsToIntegers(doubles, into: &ints, count: count, bits: bits)
        case .integers, .floats, .g711: break
        }
        let width = layout.bits / 8
        let big = layout.byteOrder == .big
        var bytes = [UInt8](repeating: 0, count: count * width)
        bytes.withUnsafeMutableBufferPointer { out in
            for index in 0..<count {
                let value: UInt64
                if layout.isFloat {
                    value = width == 4 ? UInt64(Float(doubles[index]).bitPattern) : doubles[index].bitPattern
                } else {
                    // The sample's top `bits` bits, in two's complement over `width` bytes.
                    value = UInt64(UInt32(bitPattern: ints[index]) >> UInt32(32 - layout.bits))
                }
                let base = index * width
                for byte in 0..<width {
                    out[base + byte] = UInt8(truncatingIfNeeded: value >> UInt64(8 * (big ? width - 1 - byte : byte)))
                }
            }
        }
        return bytes
    }

    /// Where `bytes`, decoded by CAFKit, first differ from the reference's block.
    func firstDifference(_ bytes: [UInt8], frames: Int, layout: PCMLayout, referenceIsFloat: Bool) -> SampleComparison.Difference?
    {
        SampleComparison.firstDifference(
            layout: layout, bytes: bytes[...], sourceIsFloat: referenceIsFloat, ints: referenceInts, doubles: referenceDoubles,
            samples: frames * channels)
    }
}

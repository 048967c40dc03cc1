import AACCodec
import BinaryIO
import CAFKit
import SystemLayer

/// AAC CAF sources (cafconv's, afconvert's): decoded by `AACFileDecoder` (CAFKit's packets,
/// libavcodec's decoder, the `pakt` priming and remainder dropped) into a linear PCM CAF written
/// by CAFKit. Self-contained so that it can be called wherever the Source stage routes sources
/// that are not WAV: `handles` says whether a job is one, `convert` does it.
///
/// The output is `-d`'s linear PCM (without `-d`, 16-bit, as for the other compressed sources);
/// the decoder's floats become integers by the `float-to-N-bit` rule (round(x * 2^(N-1)),
/// clipped). The proof decodes the source a second time and compares every sample of the
/// output, exactly, after that rule.
enum AACSourceRoute {
    /// Whether `path` is a CAF file whose audio is AAC (reads the header and chunk table only).
    static func handles(_ path: String) -> Bool {
        guard let source = try? FileByteSource(path: path), let file = try? CAFFile(reading: source) else { return false }
        return AACFileDecoder.formatIDs.contains(file.audioDescription.formatID)
    }

    /// One job whose input is an AAC CAF, from start to commit.
    static func convert(_ job: Job, options: ConversionOptions, cancellation: Cancellation) -> FileResult {
        Converter.run(job) { result, temporaryFile in
            try LibAVCodecLoad.load()
            let (bits, isFloat, order) = try target(options)
            if let input = FileSystem.identity(of: job.input), input == FileSystem.identity(of: job.output) {
                throw ConversionError(.output, "the output would replace its own source; choose another -o")
            }
            let first = try openDecoder(job.input)
            result.formatIn = first.file.audioDescription.formatID.trimmed
            result.channels = first.decoder.channels
            result.sampleRate = first.decoder.sampleRate
            if options.sampleRate.map({ $0 != first.decoder.sampleRate }) ?? false
                || options.channels.map({ $0 != first.decoder.channels }) ?? false
            {
                throw ConversionError(
                    .unsupported,
                    "rate and channel conversion of AAC sources is not supported yet; convert to LEI16 first, then convert that file")
            }
            let layout = PCMLayout(bits: bits, isFloat: isFloat, byteOrder: order, channels: first.decoder.channels)
            result.formatOut = formatCode(layout)
            let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
            let temporary = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output))
            temporaryFile = temporary
            let descriptor = try temporary.descriptor()
            defer { close(descriptor) }

            let frames = first.decoder.validFrames
            let description = AudioDescription(
                sampleRate: Double(first.decoder.sampleRate), formatID: .lpcm,
                formatFlags: (isFloat ? 1 : 0) | (order == .little ? 2 : 0), bytesPerPacket: UInt32(layout.bytesPerFrame),
                framesPerPacket: 1, channelsPerFrame: UInt32(layout.channels), bitsPerChannel: UInt32(bits))
            var header = CAFWriter.header() + CAFWriter.chunkBytes(.description(description))
            var data = ByteWriter()
            data.write(FourCC.data)
            data.write(Int64(4 + UInt64(frames) * UInt64(layout.bytesPerFrame)), .big)
            data.write(UInt32(0), .big)
            header += data.bytes
            try FileSystem.writeAll(descriptor, header, at: 0)
            var offset = UInt64(header.count)
            var samples: [Float] = []
            let blockFrames = max(1, options.blockSamples / layout.channels)
            var written: Int64 = 0
            while true {
                if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
                let got = try read(first.decoder, into: &samples, frames: blockFrames)
                if got == 0 { break }
                let bytes = encode(samples, count: got * layout.channels, layout: layout)
                try FileSystem.writeAll(descriptor, bytes, at: offset)
                offset += UInt64(bytes.count)
                written += Int64(got)
            }
            guard written == frames else {
                throw ConversionError(.notAudio, "it decodes to \(written) frames, its 'pakt' declares \(frames)")
            }
            try prove(temporary.path, source: job.input, layout: layout, blockFrames: blockFrames)
            result.proof = Proof(
                comparison: isFloat ? "exact" : "exact-after-rule", rule: isFloat ? nil : "float-to-\(bits)-bit",
                sourceDecoder: "libavcodec-\(LibAVCodec.version)", outputDecoder: "cafkit", extent: "every-frame")
            if cancellation.isCancelled { throw ConversionError(.interrupted, Cancellation.reason) }
            result.bytes = try FileSystem.length(of: descriptor)
            result.frames = frames
            result.samples = .aacDecoded
            if !options.stripMetadata, let input = try? FileByteSource(path: job.input),
                !MetadataMapping.read(input).0.isEmpty
            {
                // Where a position falls with the encoder's priming is not settled: said, not guessed.
                result.warnings.append(
                    "the source's loops, markers and text are not written: they are not carried from AAC sources (--strip-metadata drops them without this warning)"
                )
            }
        }
    }

    /// The linear PCM `-d` asks for: bits, float, byte order.
    static func target(_ options: ConversionOptions) throws(ConversionError) -> (Int, Bool, ByteOrder) {
        let order = options.dataFormat?.byteOrder ?? (options.endian ?? .little).resolve(source: .little)
        switch options.dataFormat?.kind {
        case nil: return (16, false, order)
        case .linearPCM(let bits, let isFloat)?:
            guard bits >= 16 || isFloat else {
                throw ConversionError(.unsupported, "an AAC source is decoded to 16-, 24- or 32-bit or float samples, not \(bits)-bit")
            }
            return (bits, isFloat, order)
        case .aac?:
            throw ConversionError(
                .unsupported, "an AAC source is not encoded to AAC again (a second generation loses quality); use a linear PCM -d")
        case .ulaw?, .alaw?, .alac?, .alacBits?, .ima4?:
            throw ConversionError(.unsupported, "an AAC source is decoded to linear PCM only; use -d LEI16, LEI24, LEI32 or LEF32")
        }
    }

    /// The source at `path` as `convert` decodes it when it is an AAC CAF (the same
    /// `AACFileDecoder`, for `verify --against`); `nil` when it is not one.
    static func sourceAudio(_ path: String) throws(ConversionError) -> SourceAudio? {
        guard handles(path) else { return nil }
        try LibAVCodecLoad.load()
        return SourceAudio(aac: try openDecoder(path).decoder)
    }

    private static func openDecoder(_ path: String) throws(ConversionError) -> (file: CAFFile, decoder: AACFileDecoder) {
        do {
            let source = try FileByteSource(path: path)
            let file = try CAFFile(reading: source)
            return (file, try AACFileDecoder(file: file, source: source))
        } catch let error as AACFormatError {
            throw ConversionError(.notAudio, "cannot decode its AAC: \(error.message)")
        } catch {
            throw ConversionError(.notAudio, "\(error)")
        }
    }

    private static func read(_ decoder: AACFileDecoder, into samples: inout [Float], frames: Int) throws(ConversionError) -> Int {
        do { return try decoder.read(into: &samples, frames: frames) } catch {
            throw ConversionError(.notAudio, "cannot decode its AAC: \(error.message)")
        }
    }

    /// The samples as `layout` stores them: floats as they are, integers by round(x * 2^(N-1)), clipped.
    static func encode(_ samples: [Float], count: Int, layout: PCMLayout) -> [UInt8] {
        var writer = ByteWriter()
        for index in 0..<count {
            let value = samples[index]
            switch (layout.isFloat, layout.bits) {
            case (true, 64): writer.write(Double(value), layout.byteOrder)
            case (true, _): writer.write(value, layout.byteOrder)
            default:
                let scale = Double(Int64(1) << (layout.bits - 1))
                // Ties to even, as `SampleScaling.floatsToIntegers` (the documented mapping) rounds.
                let level = Int64(max(-scale, min(scale - 1, (Double(value) * scale).rounded(.toNearestOrEven))))
                switch layout.bits {
                case 16: writer.write(Int16(level), layout.byteOrder)
                case 24:
                    let bytes = [UInt8(truncatingIfNeeded: level), UInt8(truncatingIfNeeded: level >> 8), UInt8(truncatingIfNeeded: level >> 16)]
                    writer.write(bytes: layout.byteOrder == .little ? bytes : bytes.reversed())
                default: writer.write(Int32(level), layout.byteOrder)
                }
            }
        }
        return writer.bytes
    }

    /// Decodes the source again and checks that every sample of the written CAF, as CAFKit decodes
    /// it, is the decoder's sample after the rule.
    private static func prove(_ path: String, source: String, layout: PCMLayout, blockFrames: Int) throws(ConversionError) {
        let again = try openDecoder(source)
        let (bytes, file) = try ContainerStage.readBackFile(path)
        if let first = CAFValidator.validate(file).first {
            throw ConversionError(.proof, "the written CAF failed verification: \(first)")
        }
        guard file.validFrames == UInt64(again.decoder.validFrames) else {
            throw ConversionError(.proof, "the written CAF holds \(file.validFrames ?? 0) frames, the source \(again.decoder.validFrames)")
        }
        var samples: [Float] = []
        var offset = file.audioOffset
        var frame: Int64 = 0
        while true {
            let got = try read(again.decoder, into: &samples, frames: blockFrames)
            if got == 0 { break }
            let expected = encode(samples, count: got * layout.channels, layout: layout)
            let found: [UInt8]
            do { found = try bytes.readExactly(at: offset, count: expected.count) } catch {
                throw ConversionError(.proof, "the written CAF cannot be read back: \(error)")
            }
            if found != expected {
                let index = (0..<expected.count).first { found[$0] != expected[$0] } ?? 0
                throw ConversionError(
                    .proof, "the written CAF failed verification: frame \(frame + Int64(index / layout.bytesPerFrame)) differs from the source's decoding")
            }
            offset += UInt64(expected.count)
            frame += Int64(got)
        }
    }

    private static func formatCode(_ layout: PCMLayout) -> String {
        (layout.byteOrder == .little ? "LE" : "BE") + (layout.isFloat ? "F" : "I") + String(layout.bits)
    }
}

/// `LibAVCodec.load()` with cafconv's error type.
enum LibAVCodecLoad {
    static func load() throws(ConversionError) {
        do { try LibAVCodec.load() } catch { throw ConversionError(.unsupported, error.message) }
    }
}

import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer

/// AAC CAF sources (cafconv's, afconvert's): decoded by `AACFileDecoder` (CAFKit's packets,
/// libavcodec's decoder, the `pakt` priming and remainder dropped) into a linear PCM CAF written
/// by CAFKit. The route table (``DecodeRoute``) tells them; ``admit(_:input:content:output:options:)``
/// opens one as a `SourceStage` whose `pumpAudio` and `proofAudio` are independent decodings, and
/// ``convert(_:source:options:result:temporaryFile:cancellation:)`` writes and proves the output.
///
/// The output is `-d`'s linear PCM (without `-d`, 16-bit, as for the other compressed sources);
/// the decoder's floats become integers by the `float-to-N-bit` rule (round(x * 2^(N-1)),
/// clipped). The proof decodes the source a second time and compares every sample of the
/// output, exactly, after that rule.
package enum AACSourceRoute {
    /// An AAC CAF source and the linear PCM the job asks of it.
    package struct Source {
        /// The CAF, as the content sniff parsed it.
        package let file: CAFFile
        /// Its bytes.
        package let input: FileByteSource
        /// What the output holds.
        package let layout: PCMLayout

        /// A fresh decoding of the source (each call is an independent decoding).
        package func audio() throws(ConversionError) -> SourceAudio {
            SourceAudio(aac: try AACSourceRoute.decoder(file, input))
        }
    }

    /// A `convert` job's AAC source (``SourceStage/open(_:options:warnings:)``): libavcodec
    /// loaded, refused when the job asks for anything but linear PCM of 16 bits or more, or when
    /// the output would replace it.
    package static func admit(
        _ path: String, input: FileByteSource, content: SourceContent, output: String, options: ConversionOptions
    ) throws(ConversionError) -> SourceStage {
        try LibAVCodecLoad.load()
        let (bits, isFloat, order) = try target(options)
        if let identity = FileSystem.identity(of: path), identity == FileSystem.identity(of: output) {
            throw .output(.replacesItsSource)
        }
        guard case .caf(let file) = content else { throw .source(.aacUnreadable("not a CAF file")) }
        let decoder = try decoder(file, input)
        let layout = PCMLayout(bits: bits, isFloat: isFloat, byteOrder: order, channels: decoder.channels)
        let info = SoundInfo(
            frames: decoder.validFrames, sampleRate: decoder.sampleRate, channels: decoder.channels, major: .caf,
            encoding: .float32, endianness: .little)
        return SourceStage(
            path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: nil, probe: nil,
            encoding: .float32, headerFrames: decoder.validFrames,
            codec: .aac(Source(file: file, input: input, layout: layout)))
    }

    /// One job whose source is an AAC CAF, from the opened source to the proven temporary file.
    package static func convert(
        _ job: Job, source: SourceStage, options: ConversionOptions, result: inout FileResult,
        temporaryFile: inout FileSystem.TemporaryFile?, cancellation: Cancellation
    ) throws(ConversionError) {
        guard case .aac(let aac)? = source.codec else { throw .source(.aacUnreadable("not an AAC source")) }
        let layout = aac.layout
        result.formatIn = source.formatCode
        result.channels = source.info.channels
        result.sampleRate = source.info.sampleRate
        if options.sampleRate.map({ $0 != source.info.sampleRate }) ?? false
            || options.channels.map({ $0 != source.info.channels }) ?? false
        {
            throw .source(.aacNoTransform)
        }
        result.formatOut = formatCode(layout)
        let folder = try FileSystem.outputFolder(for: job.output, root: job.root)
        let temporary = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(job.output))
        temporaryFile = temporary
        let descriptor = try temporary.descriptor()
        defer { close(descriptor) }
        let frames = source.headerFrames ?? 0
        let blockFrames = max(1, options.blockSamples / layout.channels)
        let written = try write(
            try source.codecAudio(), to: descriptor, layout: layout, frames: frames, sampleRate: source.info.sampleRate,
            blockFrames: blockFrames, cancellation: cancellation)
        guard written == frames else { throw .source(.aacFrames(decoded: written, declared: frames)) }
        try prove(temporary.path, source: try source.proofAudio(), frames: frames, layout: layout, blockFrames: blockFrames)
        result.proof = Proof(
            comparison: layout.isFloat ? "exact" : "exact-after-rule", rule: layout.isFloat ? nil : "float-to-\(layout.bits)-bit",
            sourceDecoder: "libavcodec-\(LibAVCodec.version)", outputDecoder: "cafkit", extent: "every-frame")
        if cancellation.isCancelled { throw .interrupted }
        result.bytes = try FileSystem.length(of: descriptor)
        result.frames = frames
        result.samples = .aacDecoded
        if !options.stripMetadata, !MetadataMapping.read(source.input).0.isEmpty {
            // Where a position falls with the encoder's priming is not settled: said, not guessed.
            result.warnings.append(.metadata(.notCarriedFromAAC))
        }
    }

    /// Writes the CAF header for `frames` frames of `layout` and every frame `audio` decodes;
    /// returns the frames written.
    private static func write(
        _ audio: SourceAudio, to descriptor: Int32, layout: PCMLayout, frames: Int64, sampleRate: Int,
        blockFrames: Int, cancellation: Cancellation
    ) throws(ConversionError) -> Int64 {
        let description = AudioDescription(
            sampleRate: Double(sampleRate), formatID: .lpcm,
            formatFlags: (layout.isFloat ? 1 : 0) | (layout.byteOrder == .little ? 2 : 0),
            bytesPerPacket: UInt32(layout.bytesPerFrame), framesPerPacket: 1, channelsPerFrame: UInt32(layout.channels),
            bitsPerChannel: UInt32(layout.bits))
        var header = CAFWriter.header() + CAFWriter.chunkBytes(.description(description))
        var data = ByteWriter()
        data.write(FourCC.data)
        data.write(Int64(4 + UInt64(frames) * UInt64(layout.bytesPerFrame)), .big)
        data.write(UInt32(0), .big)
        header += data.bytes
        try FileSystem.writeAll(descriptor, header, at: 0)
        var offset = UInt64(header.count)
        var ints: [Int32] = []
        var samples: [Double] = []
        var written: Int64 = 0
        while true {
            if cancellation.isCancelled { throw .interrupted }
            let got: Int
            do { got = try audio.read(ints: &ints, doubles: &samples, frames: blockFrames) } catch {
                throw .source(.samplesUndecodable(error.message))
            }
            if got == 0 { break }
            let bytes = encode(samples, count: got * layout.channels, layout: layout)
            try FileSystem.writeAll(descriptor, bytes, at: offset)
            offset += UInt64(bytes.count)
            written += Int64(got)
        }
        return written
    }

    /// The linear PCM `-d` asks for: bits, float, byte order.
    package static func target(_ options: ConversionOptions) throws(ConversionError) -> (Int, Bool, ByteOrder) {
        let order = TargetFormat.byteOrder(dataFormat: options.dataFormat, endian: options.endian, sourceOrder: .little)
        guard let kind = options.dataFormat?.kind else { return (16, false, order) }
        if kind.isLinearPCM, let bits = kind.bits {
            guard bits >= 16 || kind.isFloat else { throw .source(.aacBits(bits)) }
            return (bits, kind.isFloat, order)
        }
        throw .source(kind == .aac ? .aacToAAC : .aacToOther)
    }

    /// A decoder of the AAC in `file`.
    package static func decoder(_ file: CAFFile, _ input: FileByteSource) throws(ConversionError) -> AACFileDecoder {
        do { return try AACFileDecoder(file: file, source: input) } catch {
            throw .source(.aacUndecodable(error.message))
        }
    }

    /// The samples as `layout` stores them: floats as they are, integers by round(x * 2^(N-1)), clipped.
    package static func encode(_ samples: [Double], count: Int, layout: PCMLayout) -> [UInt8] {
        var writer = ByteWriter()
        for index in 0..<count {
            // The decoder's samples are `Float`s, carried as `Double`s by `SourceAudio`: exact.
            let value = Float(samples[index])
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

    /// Checks that every sample of the written CAF, as CAFKit decodes it, is the sample of
    /// `source` (a second decoding) after the rule.
    private static func prove(
        _ path: String, source: SourceAudio, frames: Int64, layout: PCMLayout, blockFrames: Int
    ) throws(ConversionError) {
        let (bytes, file) = try ContainerStage.readBackFile(path)
        if let first = CAFValidator.validate(file).first {
            throw .proof(.invalid(finding: "\(first)"))
        }
        guard file.validFrames == UInt64(frames) else {
            throw .proof(.framesHeld(found: Int64(clamping: file.validFrames ?? 0), expected: frames))
        }
        var ints: [Int32] = []
        var samples: [Double] = []
        var offset = file.audioOffset
        var frame: Int64 = 0
        while true {
            let got: Int
            do { got = try source.read(ints: &ints, doubles: &samples, frames: blockFrames) } catch {
                throw .source(.samplesUndecodable(error.message))
            }
            if got == 0 { break }
            let expected = encode(samples, count: got * layout.channels, layout: layout)
            let found: [UInt8]
            do { found = try bytes.readExactly(at: offset, count: expected.count) } catch {
                throw .proof(.unreadable(reason: "\(error)"))
            }
            if found != expected {
                let index = (0..<expected.count).first { found[$0] != expected[$0] } ?? 0
                throw .proof(.frameDiffers(frame: frame + Int64(index / layout.bytesPerFrame)))
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
package enum LibAVCodecLoad {
    package static func load() throws(ConversionError) {
        do { try LibAVCodec.load() } catch { throw .source(.libavcodecMissing(error.message)) }
    }
}

import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile

/// Stage 2 of a conversion, the **Encoder**, for the codecs libsndfile's CAF writer lays out
/// (`LibsndfileWriterCodec`): how the samples get into the output. Four roads: the direct payload (a Source/Encoder pair that moves bytes: kernel copy, byte swap or
/// sign flip, when nothing else changes), the G.711 code copy (a µ-law/A-law source into an output
/// of the same law), and the sample pump (decode blocks, map them by the `SampleRoute`, encode
/// them with libsndfile or cafconv's G.711 encoder), and the same pump reading from the transform
/// stage (channels, rate, dither) instead of the source.
package enum EncoderStage {
    /// The source's bytes are the output's payload, moved by `PayloadMover`; `probe` is what the
    /// proof compares the output's ends with.
    case directPayload(DirectPayload, probe: SampleProbe)
    /// The source's G.711 codes copied into an output of the same law.
    case g711Copy(G711Copy)
    /// Every sample decoded and encoded along `route`.
    case samples(SampleRoute)
    /// Every sample decoded, transformed by `plan` (channels, rate, rounding or dither: the
    /// transform stage, `TransformedAudio`) and encoded along `route`.
    case transformed(TransformPlan, SampleRoute)

    /// Picks the road for `source` becoming `target`.
    package static func choose(
        for source: SourceStage, target: TargetFormat, options: ConversionOptions, plan: TransformPlan? = nil
    ) -> EncoderStage {
        if let plan {
            // The stage hands out floats for float and G.711 outputs, rounded integers otherwise.
            let from: Encoding = plan.integerBits == nil ? .float64 : .pcm32
            return .transformed(plan, SampleRoute(from: from, to: target.encoding))
        }
        if options.directPayload, let probe = source.probe, let samples = source.samples,
            let payload = DirectPayload(samples: samples, source: source.info, target: target, fileLength: source.input.length)
        {
            return .directPayload(payload, probe: probe)
        }
        // µ-law and A-law: cafconv makes the codes (libsndfile 1.2's encoders flip -32768), or
        // copies them from a source of the same law.
        if let law = G711Law(target.encoding),
            let copy = G711Copy(law: law, source: source.samples, crossChecked: source.probe != nil)
        {
            return .g711Copy(copy)
        }
        // Lossy sources come as floats (see `SourceStage.decodesAsFloats`).
        return .samples(SampleRoute(from: source.decodesAsFloats ? .float32 : source.encoding, to: target.encoding))
    }

    /// Moves every frame from `source` into `writer` (or, for the direct payload, after the empty
    /// CAF libsndfile wrote at `temporary`) and closes both; returns the frames written, or `nil`
    /// when `isCancelled` said stop.
    package func run(
        source: SourceStage, writer: SoundFile, temporary: String, blockSamples: Int, isCancelled: () -> Bool
    ) throws -> Int64? {
        do {
            switch self {
            case .directPayload(let payload, _):
                // libsndfile writes the header of an empty CAF; the payload follows it.
                try writer.close()
                try source.reader?.close()
                let done = try Self.appendPayload(payload, from: source.input, to: temporary, isCancelled: isCancelled)
                return done ? payload.frames : nil
            case .g711Copy(let copy):
                let pumped = try copy.write(
                    from: source.input, to: writer, blockSamples: blockSamples, isCancelled: isCancelled)
                try writer.close()
                try source.reader?.close()
                return pumped
            case .samples(let route):
                let audio = try source.pumpAudio()
                let pumped = try Self.pump(
                    from: audio, to: writer, route: route, blockSamples: blockSamples, isCancelled: isCancelled)
                try writer.close()
                try source.reader?.close()
                return pumped
            case .transformed(let plan, let route):
                let audio: TransformedAudio
                do { audio = try TransformedAudio(source: try source.pumpAudio(), plan: plan) } catch let error as SourceError {
                    throw ConversionError.encoding(.transform(reason: error.message))
                }
                let pumped = try Self.pump(
                    from: audio, to: writer, route: route, blockSamples: blockSamples, isCancelled: isCancelled)
                try writer.close()
                try source.reader?.close()
                return pumped
            }
        } catch let error as SndFileError {
            throw ConversionError.libsndfile(
                code: error.code, message: error.message, doing: "\(error.path == source.path ? "reading" : "writing") failed")
        } catch let error as ByteError {
            throw ConversionError.encoding(.readFailed(reason: error.description))
        }
    }

    /// How the report says the samples travelled.
    package func transfer(from source: SourceStage) -> FileResult.Transfer {
        switch self {
        case .directPayload(let payload, _): return payload.transform.transfer
        case .g711Copy: return .copied
        case .samples(.g711): return .g711Encoded
        case .transformed: return .transformed
        case .samples:
            // A source with a decoder of its own: CAFKit's IMA4 decoder, libavcodec's AAC decoder.
            switch source.codec {
            case .ima4?: return .cafconv
            case .aac?, .m4a?: return .aacDecoded
            case .opus?: return .opusDecoded
            case nil: break
            }
            return source.probe == nil && source.samples != nil ? .cafconv : .libsndfile
        }
    }

    /// Moves every frame through the route; returns the number of frames written, or `nil` when
    /// `isCancelled` said stop (it is asked before every block).
    package static func pump(
        from source: any FrameSource, to writer: SoundFile, route: SampleRoute,
        blockSamples: Int, isCancelled: () -> Bool = { false }
    ) throws -> Int64? {
        let channels = source.channels
        let blockFrames = max(1, blockSamples / channels)
        var ints = [Int32](repeating: 0, count: blockFrames * channels)
        var doubles = [Double](repeating: 0, count: blockFrames * channels)
        var codes: [UInt8] = []
        if case .g711 = route { codes = [UInt8](repeating: 0, count: blockFrames * channels) }
        var total: Int64 = 0
        while true {
            if isCancelled() { return nil }
            let got: Int
            do { got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames) } catch {
                throw ConversionError.encoding(.sourceRead(reason: error.message))
            }
            if got == 0 { break }
            switch route {
            case .g711(let law):
                let count = got * channels
                codes.withUnsafeMutableBufferPointer { codes in
                    if source.isFloat {
                        doubles.withUnsafeBufferPointer {
                            law.encode(floats: UnsafeBufferPointer(rebasing: $0[0..<count]), into: codes)
                        }
                    } else {
                        ints.withUnsafeBufferPointer {
                            law.encode(leftJustified: UnsafeBufferPointer(rebasing: $0[0..<count]), into: codes)
                        }
                    }
                }
                try writer.writeRaw(codes[0..<count])
            case .integers: try writer.write(ints, frames: got)
            case .floats: try writer.write(doubles, frames: got)
            case .integersToFloats:
                SampleScaling.integersToFloats(ints, into: &doubles, count: got * channels)
                try writer.write(doubles, frames: got)
            case .floatsToIntegers(let bits):
                SampleScaling.floatsToIntegers(doubles, into: &ints, count: got * channels, bits: bits)
                try writer.write(ints, frames: got)
            }
            total += Int64(got)
        }
        return total
    }

    /// Appends the payload to the empty CAF libsndfile wrote at `path` and sets the size of its
    /// `data` chunk. Returns `false` when cancelled.
    package static func appendPayload(
        _ payload: DirectPayload, from input: FileByteSource, to path: String, isCancelled: () -> Bool
    ) throws(ConversionError) -> Bool {
        let output = try FileSystem.openForUpdate(path)
        defer { FileSystem.closeFile(output) }
        // An empty CAF ends with its 'data' chunk: type, size 4 (the edit count alone), edit count.
        let headerLength = try FileSystem.length(of: output)
        guard headerLength >= 16 + CAFFile.headerSize else {
            throw ConversionError.proof(.shortHeader(bytes: headerLength))
        }
        var cursor = ByteCursor(try FileSystem.readExactly(output, count: 16, at: headerLength - 16))
        guard (try? cursor.readFourCC()) == .data, (try? cursor.readUInt64(.big)) == 4 else {
            throw ConversionError.proof(.emptyDataChunkMissing)
        }
        guard try PayloadMover.move(payload, from: input.fileDescriptor, to: output, at: headerLength, isCancelled: isCancelled)
        else { return false }
        var size = ByteWriter()
        size.write(4 + payload.byteCount, .big)
        try FileSystem.writeAll(output, size.bytes, at: headerLength - 12)
        return true
    }

}

import AACCodec
import BinaryIO
import CAFKit
import ConversionModel

/// A lossy CAF's packets decoded to floats: CAFKit hands out the packets, the codec's decoder
/// decodes them, the `pakt` priming frames are dropped and the output stops after the valid
/// frames. The AAC decoder (`AACFileDecoder`, libavcodec) and the Opus decoder
/// (`OpusFileDecoder`, libopus) are the two; the lossy proof, `verify --against` and the lossy
/// CAF sources read through it.
package protocol LossyFileDecoder: AnyObject {
    /// Channels per frame.
    var channels: Int { get }
    /// Frames per second the packets decode at.
    var sampleRate: Int { get }
    /// The valid frames the file declares.
    var validFrames: Int64 { get }
    /// The priming frames the file declares (dropped).
    var primingFrames: Int64 { get }
    /// The codec, as sentences name it (`AAC`, `Opus`).
    var codecName: String { get }
    /// The decoding library and its version, as proofs name it.
    var decoderName: String { get }
    /// How many frames either side of lag 0 the cross-correlation peak may fall for what was
    /// decoded so far: the codec's own alignment accuracy (0 for AAC; see
    /// `OpusFileDecoder.lagTolerance`).
    var lagTolerance: Int { get }
    /// Reads up to `frames` frames (interleaved floats) into `output` (resized as needed); 0 at
    /// the end of the valid frames. Throws when a packet cannot be read or decoded, or when the
    /// packets decode to fewer frames than the file declares.
    func readFloats(into output: inout [Float], frames: Int) throws(SourceError) -> Int
}

/// The proof of a lossy output (AAC, Opus), the same for every lossy codec: CAFKit reads the file
/// back and checks its layout, the codec's decoder (a reader that is not the encoder) decodes it
/// with the `pakt` priming dropped, and it is compared with the source's independent decoding over
/// every frame: exactly as many frames, the cross-correlation peak at lag 0 (when measurable) and
/// the SNR at the codec's floor for the bit rate or above. Each codec says only its floor, its
/// decoder and its rule names (``Expectation``).
package enum LossyProof {
    /// What the encoder wrote, and what the codec holds it to.
    package struct Expectation {
        /// The `desc` format ID.
        package var formatID: FourCC
        /// The frames the encoder was given.
        package var frames: Int64
        /// The priming frames the encoder declared.
        package var priming: Int
        /// The bit rate asked, in b/s (all channels).
        package var bitRate: Int
        /// The lowest SNR accepted, in dB.
        package var snrFloor: Double
        /// The proof's rule for audio with energy, and for a near-silent source.
        package var rule: String
        package var nearSilentRule: String

        package init(
            formatID: FourCC, frames: Int64, priming: Int, bitRate: Int, snrFloor: Double, rule: String,
            nearSilentRule: String
        ) {
            self.formatID = formatID
            self.frames = frames
            self.priming = priming
            self.bitRate = bitRate
            self.snrFloor = snrFloor
            self.rule = rule
            self.nearSilentRule = nearSilentRule
        }
    }

    /// How comparing a decoded lossy file with a source ended.
    package enum Comparison {
        /// Every frame compared: how many, and what was measured.
        case compared(frames: Int64, LossyComparison)
        /// The two ran out at different frames (at least `found` decoded, `expected` in the source).
        case frames(found: Int64, expected: Int64)
        /// A side could not be read or decoded.
        case failed(ProofFailure)
        /// `isCancelled` said stop.
        case cancelled
    }

    /// Proves the lossy CAF at `path` against `source` (the source's independent decoding through
    /// the plan's transforms): `open` makes the codec's decoder of the file read back, or says
    /// why it cannot. `nil` when `isCancelled` said stop.
    package static func prove(
        _ path: String, source: any FrameSource, expecting expected: Expectation, blockSamples: Int,
        levelTap: LevelTap? = nil, isCancelled: () -> Bool, open: (CAFFile, any ByteSource) throws(ProofFailure) -> any LossyFileDecoder
    ) throws(ConversionError) -> Proof? {
        let (bytes, file) = try ContainerStage.readBackFile(path)
        var layout = CAFExpectations(channels: UInt32(source.channels), sampleRate: Double(source.sampleRate))
        layout.formatID = expected.formatID
        layout.validFrames = UInt64(expected.frames)
        if let first = CAFValidator.validate(file, expecting: layout).first {
            throw ConversionError.proof(.invalid(finding: "\(first)"))
        }
        let decoder: any LossyFileDecoder
        do { decoder = try open(file, bytes) } catch { throw ConversionError.proof(error) }
        let codec = decoder.codecName
        guard decoder.primingFrames == Int64(expected.priming) else {
            throw ConversionError.proof(.lossyPriming(codec: codec, declared: decoder.primingFrames, encoder: expected.priming))
        }
        let measured: LossyComparison
        // `convert --report`: the decoding measured as `SourceAudio` decodes a lossy CAF.
        levelTap?.start(
            channels: decoder.channels, rate: decoder.sampleRate, exactRate: Double(decoder.sampleRate),
            expectedFrames: decoder.validFrames, decoder: decoder.decoderName)
        switch try compare(decoder, with: source, blockSamples: blockSamples, levelTap: levelTap, isCancelled: isCancelled) {
        case .cancelled: return nil
        case .frames(let found, let frames):
            throw ConversionError.proof(
                .lossyDecodedFrames(codec: codec, found: found, expected: frames, decoder: source.decoderName))
        case .failed(let failure): throw ConversionError.proof(failure)
        case .compared(let frames, let result):
            guard frames == expected.frames else {
                throw ConversionError.proof(.lossyFrames(codec: codec, frames: frames, given: expected.frames))
            }
            measured = result
        }
        switch measured.finding(snrFloor: expected.snrFloor, lagTolerance: decoder.lagTolerance) {
        case nil: break
        case .lag(let lag)?: throw ConversionError.proof(.lossyLag(codec: codec, lag: lag))
        case .snr(let snr, let floor)?:
            throw ConversionError.proof(.lossySNR(codec: codec, snr: snr, floor: floor, bitRate: expected.bitRate))
        case .loudError(let level)?:
            throw ConversionError.proof(
                .lossyNearSilentError(
                    codec: codec, level: level, windowLevel: LossyComparison.loudWindowLevel,
                    limit: LossyComparison.nearSilentErrorLevel))
        }
        // A peak off 0 passed only within the decoder's stated tolerance: the proof says so.
        let tolerated = (measured.peakLag ?? 0) != 0 ? "; lag within \(decoder.codecName)'s ±\(decoder.lagTolerance)" : ""
        var proof = Proof(
            comparison: "lossy",
            rule: (measured.isNearSilent ? expected.nearSilentRule : expected.rule) + tolerated
                + measured.envelopeNote(snrFloor: expected.snrFloor),
            sourceDecoder: source.decoderName, outputDecoder: decoder.decoderName, extent: "every-frame")
        proof.snr = measured.roundedSNR
        proof.peakLag = measured.peakLag
        proof.primingFrames = expected.priming
        proof.bitRate = expected.bitRate
        return proof
    }

    /// Reads `decoder` and `source` side by side in blocks and measures SNR and alignment; the
    /// one comparison `convert`'s proof and `verify --against` share.
    package static func compare(
        _ decoder: any LossyFileDecoder, with source: any FrameSource, blockSamples: Int = 1 << 16,
        levelTap: LevelTap? = nil, isCancelled: () -> Bool = { false }
    ) throws(ConversionError) -> Comparison {
        let channels = source.channels
        let codec = decoder.codecName
        guard decoder.channels == channels else {
            return .failed(.lossyChannels(codec: codec, file: decoder.channels, source: channels))
        }
        let blockFrames = max(1, blockSamples / channels)
        var ints = [Int32](repeating: 0, count: source.isFloat ? 0 : blockFrames * channels)
        var doubles = [Double](repeating: 0, count: source.isFloat ? blockFrames * channels : 0)
        var sourceFloats = [Float](repeating: 0, count: blockFrames * channels)
        var outputFloats = [Float](repeating: 0, count: blockFrames * channels)
        var accumulator = LossyComparison.Accumulator(channels: channels)
        var compared: Int64 = 0
        var widened: [Double] = []
        while true {
            if isCancelled() { return .cancelled }
            let got: Int
            do { got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames) } catch {
                return .failed(.sourceUnreadable(reason: error.message))
            }
            let decoded: Int
            do { decoded = try decoder.readFloats(into: &outputFloats, frames: blockFrames) } catch {
                return .failed(.lossyUndecodable(codec: codec, reason: error.message))
            }
            guard decoded == got else { return .frames(found: compared + Int64(decoded), expected: compared + Int64(got)) }
            if got == 0 {
                levelTap?.finish()
                break
            }
            let count = got * channels
            if let levelTap {
                if widened.count < count { widened = [Double](repeating: 0, count: count) }
                for index in 0..<count { widened[index] = Double(outputFloats[index]) }
                levelTap.add(ints: [], doubles: widened, frames: got, isFloat: true)
            }
            SampleScaling.floats(from: source.isFloat ? nil : ints, doubles, count: count, into: &sourceFloats)
            accumulator.add(source: sourceFloats, output: outputFloats, frames: got)
            compared += Int64(got)
        }
        return .compared(frames: compared, accumulator.result())
    }
}

extension AACFileDecoder: LossyFileDecoder {
    package var codecName: String { "AAC" }
    package var decoderName: String { "libavcodec-\(LibAVCodec.version)" }
    package var lagTolerance: Int { 0 }

    package func readFloats(into output: inout [Float], frames: Int) throws(SourceError) -> Int {
        do { return try read(into: &output, frames: frames) } catch { throw SourceError(error.message) }
    }
}

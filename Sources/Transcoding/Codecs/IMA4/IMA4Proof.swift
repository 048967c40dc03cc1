import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles

/// The proof of an IMA4 output, which is lossy: the file is decoded by CAFKit's IMA4 decoder and
/// compared with the independent decoding of the source over every frame. The decoded length must
/// equal the source's frames exactly (the `pakt` trim), and the signal-to-noise ratio
/// `10 log10(Σ source² / Σ (decoded - source)²)`, all channels together, the source taken at its
/// exact value on the 16-bit scale (floats beyond full scale clipped, as the encoder clips them),
/// must reach the floor.
///
/// **The floor, 10 dB** (``defaultFloor``), was chosen from measurements (docs/ima4.md): the
/// 300 files of the bench's sfx corpus encode at 30.1-31.1 dB, the WAV files of the shared real
/// corpus at 15.3-47.7 dB (15.3: four samples, beyond full scale), the bench's music, sweep and
/// pink noise at 26-31 dB; the hardest loud material, full-scale square waves and white noise,
/// at 17.3 and 18.8 dB. Broken encodings sit far below: swapped stereo channels or a packet lost
/// give SNRs near 0 dB (`IMA4ConversionTests.proofCatchesFaults`). 10 dB leaves 7 dB of margin
/// under the worst loud signal and still catches such faults.
///
/// SNR means nothing for near-silent audio (a source at -90 dBFS has an SNR near 0 dB whatever the
/// encoder does, because IMA4's smallest step is 7 LSB): a file whose error's RMS is at most
/// ``quietError`` (4 LSB on the 16-bit scale, -78 dBFS) passes whatever its SNR.
public enum IMA4Proof {
    /// The default SNR floor in dB.
    public static let defaultFloor = ConversionOptions.defaultIMA4Floor
    /// The RMS error, in LSB of the 16-bit scale, up to which a file passes whatever its SNR.
    public static let quietError: Double = 4

    /// The outcome of a comparison.
    public struct Measurement: Equatable, Sendable {
        /// Frames the source decodes to.
        public var sourceFrames: Int64
        /// Frames the output decodes to.
        public var outputFrames: Int64
        /// Σ source² over every sample (16-bit scale).
        public var signalEnergy: Double
        /// Σ (decoded - source)² over the samples both hold.
        public var noiseEnergy: Double
        /// Samples compared.
        public var samples: Int64

        /// The SNR in dB; `nil` when the signal or the error is zero.
        public var snr: Double? {
            guard signalEnergy > 0, noiseEnergy > 0 else { return nil }
            return 10 * log10Value(signalEnergy / noiseEnergy)
        }

        /// The RMS of the error in LSB of the 16-bit scale.
        public var errorRMS: Double { samples > 0 ? (noiseEnergy / Double(samples)).squareRoot() : 0 }

        /// Whether the output passes a floor of `floor` dB.
        public func passes(floor: Double) -> Bool {
            guard sourceFrames == outputFrames else { return false }
            if noiseEnergy == 0 || errorRMS <= IMA4Proof.quietError { return true }
            guard let snr else { return false }
            return snr >= floor
        }
    }

    /// The preamble rule for decoding a file: ffmpeg's (keep the full-precision predictor when the
    /// preamble is close) for files ffmpeg wrote, recognisable by their `desc` (4 bits per channel)
    /// and the missing `pakt`, because ffmpeg's encoder continues from its full-precision state;
    /// the reload rule (every packet starts from its preamble, as libsndfile decodes) for every
    /// other file, because Apple's encoder continues from the quantised preamble. cafconv's own
    /// files decode alike under both rules.
    public static func rule(for file: CAFFile) -> IMA4Decoder.PreambleRule {
        file.audioDescription.bitsPerChannel == 4 && file.packetTableHeader == nil ? .continueWhenClose : .reload
    }

    /// Decodes the IMA4 audio of `file` (read from `bytes`) and compares it with `source` to the
    /// end of both. `isCancelled` is asked between blocks (a cancelled comparison returns early).
    package static func measure(
        _ file: CAFFile, bytes: some ByteSource, against source: any FrameSource, rule: IMA4Decoder.PreambleRule? = nil,
        blockSamples: Int = 1 << 16, levelTap: LevelTap? = nil, isCancelled: () -> Bool = { false }
    ) throws(SourceError) -> Measurement {
        let stream: IMA4Stream
        do { stream = try IMA4Stream(file) } catch { throw SourceError("cannot decode the IMA4 audio: \(error)") }
        let channels = source.channels
        guard stream.channels == channels else {
            throw SourceError("the IMA4 audio has \(stream.channels) channels, the source \(channels)")
        }
        let packetsPerBlock = max(1, blockSamples / channels / IMA4.framesPerPacket)
        let blockFrames = packetsPerBlock * IMA4.framesPerPacket
        var ints = [Int32](repeating: 0, count: source.isFloat ? 0 : blockFrames * channels)
        var doubles = [Double](repeating: 0, count: source.isFloat ? blockFrames * channels : 0)
        var result = Measurement(sourceFrames: 0, outputFrames: 0, signalEnergy: 0, noiseEnergy: 0, samples: 0)
        var sourceEnded = false
        // `convert --report`: the decoded output, as 16-bit samples left-justified, to the tap.
        var tapped = [Int32]()
        do {
            try stream.decode(from: bytes, packetsPerBlock: packetsPerBlock, rule: rule ?? Self.rule(for: file)) { block in
                if isCancelled() { throw SourceError(Cancellation.reason) }
                let frames = block.count / channels
                result.outputFrames += Int64(frames)
                if let levelTap {
                    tapped.removeAll(keepingCapacity: true)
                    for sample in block { tapped.append(Int32(sample) << 16) }
                    levelTap.add(ints: tapped, doubles: [], frames: frames, isFloat: false)
                }
                var done = 0
                while done < frames && !sourceEnded {
                    let got = try source.read(ints: &ints, doubles: &doubles, frames: frames - done)
                    if got == 0 {
                        sourceEnded = true
                        break
                    }
                    let base = block.startIndex + done * channels
                    for index in 0..<got * channels {
                        // Floats beyond full scale are clipped, as the encoder and -d LEI16 clip them.
                        let reference =
                            source.isFloat
                            ? (doubles[index].isNaN ? 0 : max(-32768, min(32767, doubles[index] * 32768)))
                            : Double(ints[index]) / 65536
                        let error = Double(block[base + index]) - reference
                        result.signalEnergy += reference * reference
                        result.noiseEnergy += error * error
                    }
                    result.samples += Int64(got * channels)
                    result.sourceFrames += Int64(got)
                    done += got
                }
            }
        } catch let error as SourceError {
            throw error
        } catch {
            throw SourceError("cannot decode the IMA4 audio: \(error)")
        }
        levelTap?.finish()
        // Frames the source holds beyond the output's.
        while !sourceEnded {
            let got = try source.read(ints: &ints, doubles: &doubles, frames: blockFrames)
            if got == 0 { break }
            result.sourceFrames += Int64(got)
        }
        return result
    }

    /// The proof a passing measurement gives, or the failure's sentence.
    package static func proof(
        _ measurement: Measurement, floor: Double, sourceDecoder: String
    ) -> Result<Proof, ConversionError> {
        if measurement.sourceFrames != measurement.outputFrames {
            return .failure(
                .proof(
                    .ima4FrameCount(
                        output: measurement.outputFrames, source: measurement.sourceFrames, decoder: sourceDecoder)))
        }
        if !measurement.passes(floor: floor) {
            return .failure(
                .proof(
                    .ima4SNR(
                        snr: measurement.snr.map(rounded), floor: rounded(floor), errorRMS: rounded(measurement.errorRMS))))
        }
        var proof = Proof(
            comparison: measurement.noiseEnergy == 0 ? "exact" : "snr", rule: "ima4", sourceDecoder: sourceDecoder,
            outputDecoder: "cafkit", extent: "every-frame")
        proof.snr = measurement.snr.map(rounded)
        proof.snrFloor = floor
        return .success(proof)
    }

    /// `value` to two decimals.
    package static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}

/// log10 without Foundation.
@inline(__always)
package func log10Value(_ value: Double) -> Double {
    // ln(x) / ln(10) by frexp-style reduction: value = m * 2^e with m in [1, 2).
    guard value > 0, value.isFinite else { return value == 0 ? -.infinity : .nan }
    let exponent = Double(value.exponent)
    let mantissa = value.significand
    // ln(m) with m in [1, 2): atanh series on (m - 1) / (m + 1), converging fast.
    let t = (mantissa - 1) / (mantissa + 1)
    let t2 = t * t
    var term = t
    var sum = 0.0
    var k = 1.0
    while true {
        let next = sum + term / k
        if next == sum { break }
        sum = next
        term *= t2
        k += 2
    }
    let ln = 2 * sum + exponent * 0.693_147_180_559_945_3
    return ln / 2.302_585_092_994_045_7
}

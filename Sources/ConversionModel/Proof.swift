import AACCodec
import BinaryIO
import CAFKit
import SndFile
import WAVEKit

/// How an output was proven to hold its source's audio: which decodings were compared, how many
/// frames, and whether a documented conversion rule maps one onto the other.
public struct Proof: Equatable, Sendable, Codable, CustomStringConvertible {
    /// `exact` (same sample values; for µ-law and A-law outputs of a source of the same law, the
    /// same levels, or the same codes when they were copied), `exact-after-rule` (the source's
    /// samples mapped by `rule` equal the output's) or `snr` (a lossy format, IMA4: same length,
    /// and the signal-to-noise ratio `snr` reaches `snrFloor`) or `lossy` (AAC: same length, the
    /// cross-correlation peak at lag 0, `snr` measured against the floor for the bit rate). Every format `convert` writes is
    /// compared.
    public var comparison: String
    /// The conversion rule, when one applies: `24-to-16-bit`, `16-to-24-bit`, `int-to-float`,
    /// `float-to-16-bit`, `float64-to-float32`..., or `g711-ulaw` / `g711-alaw` (every code is
    /// the nearest µ-law or A-law level of the same sign to the source's exact sample).
    public var rule: String?
    /// Who decoded the source: `cafconv` (its own WAV reader), `libsndfile` (compressed
    /// formats; limited to the header's frame count, or for lossy streams and FLAC to the count
    /// libavcodec's decoding agreed on) or `libavcodec` (lossless streams libsndfile refuses).
    public var sourceDecoder: String
    /// Who decoded the output: `cafkit` (linear PCM, µ-law and A-law) or `libsndfile` (ALAC,
    /// which CAFKit does not decode).
    public var outputDecoder: String?
    /// `every-frame`, or `ends` when the payload was moved as bytes (copied, byte-swapped or
    /// sign-flipped) and its first and last 2048 frames were decoded and compared.
    public var extent: String?
    /// For `snr` comparisons: the signal-to-noise ratio in dB of the decoded output against the
    /// source over every frame (absent when the error is zero).
    public var snr: Double?
    /// For `snr` comparisons: the floor in dB the file had to reach.
    public var snrFloor: Double?
    /// For lossy outputs: the lag of the cross-correlation peak between source and decoded output
    /// (channels summed, over the source's loudest 4096-frame windows, lags up to 1100 either
    /// way); 0 proves the priming frames are right. `nil` when the source is near-silent.
    public var peakLag: Int?
    /// For lossy outputs: the encoder's delay written as `pakt` priming frames and dropped by the decoder.
    public var primingFrames: Int?
    /// For AAC outputs: the total bit rate asked of the encoder.
    public var bitRate: Int?

    /// One phrase: `exact after rule 24-to-16-bit; source decoded by cafconv, output by cafkit, every frame`.
    public var description: String {
        if comparison == "lossy" {
            var text = "lossy \(rule ?? "")"
            if let bitRate { text += " at \(bitRate) b/s" }
            text += ": exact length"
            if let primingFrames { text += " after \(primingFrames) priming frames" }
            if let peakLag { text += ", correlation peak at lag \(peakLag)" }
            text += snr.map { ", SNR \($0) dB" } ?? ", silent source"
            text += "; source decoded by \(sourceDecoder)"
            if let outputDecoder { text += ", output by \(outputDecoder)" }
            return text
        }
        var text = comparison == "exact" ? "exact" : "exact after rule \(rule ?? "?")"
        if comparison == "snr" {
            text = "SNR \(snr.map { "\($0) dB" } ?? "?") (floor \(snrFloor.map { "\($0) dB" } ?? "?")) after rule \(rule ?? "?")"
        }
        text += "; source decoded by \(sourceDecoder)"
        if let outputDecoder { text += ", output by \(outputDecoder)" }
        if let extent {
            text += extent == "ends" ? ", payload moved as bytes, first and last 2048 frames compared" : ", every frame"
        }
        return text
    }

    package init(
        comparison: String, rule: String? = nil, sourceDecoder: String, outputDecoder: String? = nil,
        extent: String? = nil
    ) {
        self.comparison = comparison
        self.rule = rule
        self.sourceDecoder = sourceDecoder
        self.outputDecoder = outputDecoder
        self.extent = extent
    }

    /// The rule mapping samples of a source of `sourceBits` onto an output of `outputBits`; `nil`
    /// when the values are the same (same precision, or float32 into float64).
    package static func rule(sourceIsFloat: Bool, sourceBits: Int, outputIsFloat: Bool, outputBits: Int) -> String? {
        switch (sourceIsFloat, outputIsFloat) {
        case (false, false): return sourceBits == outputBits ? nil : "\(sourceBits)-to-\(outputBits)-bit"
        case (false, true): return "int-to-float"
        case (true, false): return "float-to-\(outputBits)-bit"
        case (true, true): return sourceBits > outputBits ? "float64-to-float32" : nil
        }
    }

    /// The rule mapping a source's samples onto `law` codes: `nil` for a source of the same law
    /// (its levels are kept), else `g711-ulaw` or `g711-alaw`.
    package static func rule(sourceLaw: G711Law?, outputLaw law: G711Law) -> String? {
        sourceLaw == law ? nil : "g711-\(law.rawValue)"
    }
}

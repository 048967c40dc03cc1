import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import WAVEKit

// µ-law and A-law outputs of `convert`. libsndfile 1.2's µ-law and A-law encoders code -32768 as
// positive full scale, so libsndfile only writes the CAF header: the codes come from CAFKit's
// `G711Law` (the pump's `SampleRoute.g711`) or are copied from a source of the same law
// (`G711Copy`), and go in with `sf_write_raw`. The written file is then proven like every other
// output (`Converter.prove`, `OutputProof`): every code against cafconv's decoding of the source.

extension G711Law {
    /// The law of a libsndfile encoding, or `nil` for other encodings.
    package init?(_ encoding: Encoding) {
        switch encoding {
        case .ulaw: self = .muLaw
        case .alaw: self = .aLaw
        default: return nil
        }
    }

    /// The WAVE format tag of the law.
    package var waveTag: UInt16 { self == .muLaw ? WAVEFormat.muLaw : WAVEFormat.aLaw }

    /// A code for messages: `µ-law 0x00 (-32124)`.
    package func describe(_ code: UInt8) -> String {
        let hex = String(code, radix: 16, uppercase: true)
        return "\(self) 0x\(hex.count < 2 ? "0" + hex : hex) (\(decode(code)))"
    }

    /// A value on the 16-bit scale for messages, as an integer when it is one.
    package static func level(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), value.magnitude < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

/// A µ-law or A-law source whose codes are copied byte for byte into an output of the same law
/// (µ-law's -0, 0x7F, stays; libsndfile's decoding and re-encoding made it +0). Any other source
/// of a G.711 output goes through the pump's `SampleRoute.g711`.
package struct G711Copy: Equatable {
    /// The law of the source and the output.
    package var law: G711Law
    /// Absolute offset of the source's first code.
    package var offset: UInt64
    /// Frames to copy.
    package var frames: Int64
    /// Codes per frame.
    package var channels: Int

    /// A copy when cafconv's reader decodes the source as `law` codes and libsndfile agreed with
    /// it (`crossChecked`: channels, encoding, frames, and the first and last 2048 frames);
    /// `nil` otherwise.
    package init?(law: G711Law, source samples: WAVESamples?, crossChecked: Bool) {
        guard crossChecked, let samples, samples.law == law else { return nil }
        self.law = law
        offset = samples.offset
        frames = samples.frames
        channels = samples.channels
    }

    /// Writes every frame's codes from `input` through `writer` (libsndfile keeps the header
    /// right); returns the frames written, or `nil` when `isCancelled` said stop (asked before
    /// every block).
    package func write(
        from input: FileByteSource, to writer: SoundFile, blockSamples: Int, isCancelled: () -> Bool
    ) throws -> Int64? {
        let blockFrames = max(1, blockSamples / channels)
        var total: Int64 = 0
        while total < frames {
            if isCancelled() { return nil }
            let count = Int(min(Int64(blockFrames), frames - total))
            let codes = try input.readExactly(at: offset + UInt64(total) * UInt64(channels), count: count * channels)
            try writer.writeRaw(codes[...])
            total += Int64(count)
        }
        return total
    }
}

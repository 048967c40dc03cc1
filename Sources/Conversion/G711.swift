import BinaryIO
import CAFKit
import SndFile
import WAVEKit

// The G.711 road of `convert`. libsndfile 1.2's µ-law and A-law encoders code -32768 as positive
// full scale, so libsndfile only writes the CAF header here: the codes come from CAFKit's
// `G711Law` (or are copied from a source of the same law). The written file is then proven like
// every other output (`Converter.prove`, `OutputProof`): every code against cafconv's decoding
// of the source.

extension G711Law {
    /// The law of a libsndfile encoding, or `nil` for other encodings.
    init?(_ encoding: Encoding) {
        switch encoding {
        case .ulaw: self = .muLaw
        case .alaw: self = .aLaw
        default: return nil
        }
    }

    /// The WAVE format tag of the law.
    var waveTag: UInt16 { self == .muLaw ? WAVEFormat.muLaw : WAVEFormat.aLaw }

    /// A code for messages: `µ-law 0x00 (-32124)`.
    func describe(_ code: UInt8) -> String {
        let hex = String(code, radix: 16, uppercase: true)
        return "\(self) 0x\(hex.count < 2 ? "0" + hex : hex) (\(decode(code)))"
    }

    /// A value on the 16-bit scale for messages, as an integer when it is one.
    static func level(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), value.magnitude < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

/// How a µ-law or A-law output gets its codes.
struct G711Road: Equatable {
    /// The law of the output.
    var law: G711Law
    /// Where the codes come from.
    var kind: Kind

    enum Kind: Equatable {
        /// The source holds codes of the same law at `offset`: they are copied byte for byte.
        case copy(offset: UInt64, frames: Int64)
        /// Every sample of the source (as `SourceAudio` decodes it: left-justified integers of the
        /// source's width, or floats) is encoded by `G711Law`.
        case encode
    }

    /// How the report names the road.
    var transfer: FileResult.Transfer { kind == .encode ? .g711Encoded : .copied }

    /// Whether the codes were copied from the source (the proof then compares them byte for byte).
    var isCopy: Bool { kind != .encode }

    init(law: G711Law, kind: Kind) {
        self.law = law
        self.kind = kind
    }

    /// Picks the road: a copy when cafconv's reader decodes the source as `law` codes and
    /// libsndfile agreed with it (`crossChecked`: channels, encoding, frames, and the first and
    /// last 2048 frames), else encoding.
    init(law: G711Law, source samples: WAVESamples?, crossChecked: Bool) {
        self.law = law
        if crossChecked, let samples, samples.law == law {
            kind = .copy(offset: samples.offset, frames: samples.frames)
        } else {
            kind = .encode
        }
    }

    /// Writes every frame's codes through `writer` (libsndfile keeps the header right); returns
    /// the frames written, or `nil` when `isCancelled` said stop (asked before every block).
    func write(
        from audio: SourceAudio, to writer: SoundFile, input: FileByteSource, blockSamples: Int,
        isCancelled: () -> Bool
    ) throws -> Int64? {
        let channels = audio.channels
        let blockFrames = max(1, blockSamples / channels)
        var total: Int64 = 0
        switch kind {
        case .copy(let offset, let frames):
            while total < frames {
                if isCancelled() { return nil }
                let count = Int(min(Int64(blockFrames), frames - total))
                let codes = try input.readExactly(at: offset + UInt64(total) * UInt64(channels), count: count * channels)
                try writer.writeRaw(codes[...])
                total += Int64(count)
            }
        case .encode:
            var codes = [UInt8](repeating: 0, count: blockFrames * channels)
            var ints = [Int32](repeating: 0, count: blockFrames * channels)
            var doubles = [Double](repeating: 0, count: blockFrames * channels)
            while true {
                if isCancelled() { return nil }
                let got: Int
                do { got = try audio.read(ints: &ints, doubles: &doubles, frames: blockFrames) } catch {
                    throw ConversionError(error.message)
                }
                if got == 0 { break }
                codes.withUnsafeMutableBufferPointer { codes in
                    if audio.isFloat {
                        doubles.withUnsafeBufferPointer {
                            law.encode(floats: UnsafeBufferPointer(rebasing: $0[0..<got * channels]), into: codes)
                        }
                    } else {
                        ints.withUnsafeBufferPointer {
                            law.encode(leftJustified: UnsafeBufferPointer(rebasing: $0[0..<got * channels]), into: codes)
                        }
                    }
                }
                try writer.writeRaw(codes[0..<got * channels])
                total += Int64(got)
            }
        }
        return total
    }
}

import BinaryIO
import CAFKit
import SndFile
import WAVEKit

// The G.711 path of `convert` and `verify --against`. libsndfile 1.2's µ-law and A-law encoders
// code -32768 as positive full scale, so libsndfile only writes the CAF header here: the codes
// come from CAFKit's `G711Law` (or are copied from a source of the same law), and every code of
// the written file is then checked against cafconv's own decoding of the source.

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
        /// libsndfile decodes the source (integers of the source's width, left-justified, or
        /// floats) and `G711Law` encodes every sample.
        case encode
    }

    /// How the report names the road.
    var transfer: FileResult.Transfer { kind == .encode ? .g711Encoded : .copied }

    /// The comparison the proof makes on the written file.
    var comparison: G711Comparison { kind == .encode ? .rule : .sameCodes }

    init(law: G711Law, kind: Kind) {
        self.law = law
        self.kind = kind
    }

    /// Picks the road: a copy when WAVEKit and libsndfile agree that the source holds `law`
    /// codes (tag, channels, 8 bits, frame count, and the codes at both ends decode to what
    /// libsndfile reads), else encoding. Leaves `reader` at frame 0.
    init(
        law: G711Law, wave: WAVEFile, source: SoundInfo, input: FileByteSource, reader: SoundFile
    ) throws(ConversionError) {
        self.law = law
        kind = .encode
        guard G711Law(source.encoding) == law, wave.format.effectiveTag == law.waveTag, wave.format.bitsPerSample == 8,
            source.channels > 0, Int(wave.format.channels) == source.channels,
            Int(wave.format.blockAlign) == source.channels, source.frames >= 0, wave.frames == UInt64(source.frames),
            wave.audioOffset <= input.length, UInt64(source.frames) * UInt64(source.channels) <= input.length - wave.audioOffset
        else { return }
        let channels = source.channels
        let count = Int(min(Int64(SampleProbe.frames), source.frames))
        var starts: [Int64] = [0]
        if source.frames > Int64(count) { starts.append(source.frames - Int64(count)) }
        var agreed = true
        do {
            var ints = [Int32](repeating: 0, count: count * channels)
            for start in starts where agreed {
                try reader.seek(toFrame: start)
                let got = try reader.read(into: &ints, frames: count)
                let codes = try input.readExactly(
                    at: wave.audioOffset + UInt64(start) * UInt64(channels), count: count * channels)
                agreed = got == count && law.decode(codes[...]).map { Int32($0) << 16 } == ints
            }
        } catch {
            agreed = false
        }
        do { try reader.seek(toFrame: 0) } catch { throw ConversionError("reading failed: \(error.message)") }
        if agreed { kind = .copy(offset: wave.audioOffset, frames: source.frames) }
    }

    /// Writes every frame's codes through `writer` (libsndfile keeps the header right); returns
    /// the frames written, or `nil` when `isCancelled` said stop (asked before every block).
    func write(
        from reader: SoundFile, to writer: SoundFile, input: FileByteSource, blockSamples: Int,
        isCancelled: () -> Bool
    ) throws -> Int64? {
        let channels = max(reader.info.channels, 1)
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
            var ints = [Int32](repeating: 0, count: reader.info.encoding.isFloat ? 0 : blockFrames * channels)
            var doubles = [Double](repeating: 0, count: reader.info.encoding.isFloat ? blockFrames * channels : 0)
            while true {
                if isCancelled() { return nil }
                let got: Int
                if reader.info.encoding.isFloat {
                    got = try reader.read(into: &doubles, frames: blockFrames)
                    doubles.withUnsafeBufferPointer { samples in
                        codes.withUnsafeMutableBufferPointer {
                            law.encode(floats: UnsafeBufferPointer(rebasing: samples[0..<got * channels]), into: $0)
                        }
                    }
                } else {
                    got = try reader.read(into: &ints, frames: blockFrames)
                    ints.withUnsafeBufferPointer { samples in
                        codes.withUnsafeMutableBufferPointer {
                            law.encode(leftJustified: UnsafeBufferPointer(rebasing: samples[0..<got * channels]), into: $0)
                        }
                    }
                }
                if got == 0 { break }
                try writer.writeRaw(codes[0..<got * channels])
                total += Int64(got)
            }
        }
        return total
    }
}

/// How the codes of a G.711 file are compared with its source.
enum G711Comparison: Equatable {
    /// Byte for byte: a source of the same law that `convert` copied.
    case sameCodes
    /// A source of the same law: every code must decode to the source's level (a copy, or a
    /// re-encoding that turned µ-law's -0 into +0).
    case sameLevels
    /// Every code must be the nearest level of the same sign to the source's sample
    /// (``G711Law/follows(_:for:)``).
    case rule

    /// How reports name it.
    var description: String {
        switch self {
        case .sameCodes: return "exact: the source's codes"
        case .sameLevels: return "exact: the source's levels"
        case .rule: return "exact after the G.711 rule: the nearest level of the same sign"
        }
    }
}

/// The samples of a source, decoded by cafconv's own readers when WAVEKit knows the format
/// (linear PCM through `PCMLayout`, µ-law and A-law through `G711Law`) and agrees with
/// libsndfile on channels and frames; else decoded by libsndfile. Values are on the 16-bit scale,
/// exact: an N-bit integer `s` is `s * 2^(16-N)`, a float `x` is `x * 32768`.
struct G711Reference {
    enum Decoder {
        case pcm(PCMLayout, FileByteSource, offset: UInt64)
        case g711(G711Law, FileByteSource, offset: UInt64)
        case libsndfile(SoundFile)
    }

    var decoder: Decoder
    var channels: Int
    var frames: UInt64
    private var position: UInt64 = 0

    /// The law of the source's codes, when it holds G.711 codes cafconv reads itself.
    var law: G711Law? {
        if case .g711(let law, _, _) = decoder { return law }
        return nil
    }

    /// Opens `path`. Throws a sentence saying why the source cannot be read.
    init(path: String) throws(ConversionError) {
        let reader: SoundFile
        do {
            reader = try SoundFile.open(readingFrom: path)
            try reader.setNormalisation(false)
        } catch {
            throw ConversionError("\(path): \(error.message)")
        }
        channels = max(reader.info.channels, 1)
        frames = UInt64(max(reader.info.frames, 0))
        decoder = .libsndfile(reader)
        guard let input = try? FileByteSource(path: path), let wave = try? WAVEFile(reading: input),
            let waveFrames = wave.frames, waveFrames == frames, Int(wave.format.channels) == reader.info.channels,
            wave.audioOffset <= input.length, wave.audioBytes <= input.length - wave.audioOffset
        else { return }
        let format = wave.format
        let bits = Int(format.bitsPerSample)
        if format.isLinearPCM, format.isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits),
            Int(format.blockAlign) == channels * bits / 8
        {
            let layout = PCMLayout(
                bits: bits, isFloat: format.isFloat, byteOrder: wave.byteOrder, channels: channels, isUnsigned8Bit: bits == 8)
            decoder = .pcm(layout, input, offset: wave.audioOffset)
        } else if let law = G711Law.allCases.first(where: { $0.waveTag == format.effectiveTag }), bits == 8,
            Int(format.blockAlign) == channels
        {
            decoder = .g711(law, input, offset: wave.audioOffset)
        }
    }

    /// The next `count` frames (fewer at the end): values, and the codes for a G.711 source.
    mutating func next(frames count: Int) throws -> (values: [Double], codes: [UInt8]?) {
        let count = Int(min(UInt64(count), frames - position))
        defer { position += UInt64(count) }
        switch decoder {
        case .pcm(let layout, let input, let offset):
            let bytes = try input.readExactly(
                at: offset + position * UInt64(layout.bytesPerFrame), count: count * layout.bytesPerFrame)
            if layout.isFloat { return (layout.decodeFloats(bytes[...]).map { $0 * 32768 }, nil) }
            let scale = Double(sign: .plus, exponent: 16 - layout.bits, significand: 1)
            return (layout.decodeIntegers(bytes[...]).map { Double($0) * scale }, nil)
        case .g711(let law, let input, let offset):
            let codes = try input.readExactly(at: offset + position * UInt64(channels), count: count * channels)
            return (law.decode(codes[...]).map { Double($0) }, codes)
        case .libsndfile(let reader):
            if reader.info.encoding.isFloat {
                var doubles = [Double](repeating: 0, count: count * channels)
                let got = try reader.read(into: &doubles, frames: count)
                guard got == count else { throw ConversionError("libsndfile read \(got) frames where it announced \(count)") }
                return (doubles.map { $0 * 32768 }, nil)
            }
            var ints = [Int32](repeating: 0, count: count * channels)
            let got = try reader.read(into: &ints, frames: count)
            guard got == count else { throw ConversionError("libsndfile read \(got) frames where it announced \(count)") }
            return (ints.map { Double($0) / 65536 }, nil)
        }
    }
}

/// Where a G.711 file first departs from its source.
struct G711Mismatch {
    /// A code that breaks the comparison.
    struct Sample: Equatable {
        var frame: UInt64
        var channel: Int
        var offset: UInt64
        var expected: String
        var found: String
    }

    /// The first differing sample, or `nil` when the frame counts differ.
    var sample: Sample?
    /// The frame counts (source, file) when they differ.
    var frames: (source: UInt64, file: UInt64)?
}

/// The proof of a G.711 file: every code, checked against the source.
enum G711Proof {
    /// Compares the `law` codes at `offset` (`bytes` long, `channels` per frame) in `file` with
    /// `source` under `comparison`; `nil` when every code passes and the frame counts match.
    static func firstMismatch(
        codesIn file: some ByteSource, at offset: UInt64, bytes: UInt64, channels: Int, law: G711Law,
        source: inout G711Reference, comparison: G711Comparison, blockSamples: Int = 1 << 16,
        isCancelled: () -> Bool = { false }
    ) throws -> G711Mismatch? {
        let channels = max(channels, 1)
        let fileFrames = bytes / UInt64(channels)
        if fileFrames != source.frames || source.channels != channels {
            return G711Mismatch(frames: (source.frames, fileFrames))
        }
        let blockFrames = max(1, blockSamples / channels)
        var frame: UInt64 = 0
        while frame < fileFrames {
            if isCancelled() { throw ConversionError(Cancellation.reason) }
            let count = Int(min(UInt64(blockFrames), fileFrames - frame))
            let at = offset + frame * UInt64(channels)
            let codes = try file.readExactly(at: at, count: count * channels)
            let (values, sourceCodes) = try source.next(frames: count)
            for index in 0..<count * channels {
                let code = codes[index]
                let passes: Bool
                switch comparison {
                case .sameCodes: passes = sourceCodes.map { $0[index] == code } ?? false
                case .sameLevels: passes = Double(law.decode(code)) == values[index]
                case .rule: passes = law.follows(code, for: values[index])
                }
                if passes { continue }
                let expected: String
                switch comparison {
                case .sameCodes:
                    expected = sourceCodes.map { describe($0[index], law) + ", the source's code" } ?? "the source's code"
                case .sameLevels:
                    expected = "\(level(values[index])), the source's level"
                case .rule:
                    expected =
                        describe(law.encode(value: values[index]), law)
                        + ", the nearest level of the same sign to the source's \(level(values[index]))"
                }
                return G711Mismatch(
                    sample: .init(
                        frame: frame + UInt64(index / channels), channel: index % channels + 1,
                        offset: at + UInt64(index), expected: expected, found: describe(code, law)))
            }
            frame += UInt64(count)
        }
        return nil
    }

    /// `µ-law 0x00 (-32124)`.
    static func describe(_ code: UInt8, _ law: G711Law) -> String {
        let hex = String(code, radix: 16, uppercase: true)
        return "\(law) 0x\(hex.count < 2 ? "0" + hex : hex) (\(law.decode(code)))"
    }

    /// A value on the 16-bit scale, as an integer when it is one.
    static func level(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), value.magnitude < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// The proof `convert` runs on the file it wrote: throws the first code that breaks `road`'s
    /// comparison with cafconv's own decoding of the source.
    static func check(
        _ path: String, document: CAFDocument, source: String, road: G711Road, isCancelled: () -> Bool
    ) throws(ConversionError) {
        let mismatch: G711Mismatch?
        do {
            var reference = try G711Reference(path: source)
            // A copy is compared code for code; should cafconv's reader not see the source's codes
            // (it always does when the copy was taken), the levels must still be the same.
            let comparison = road.comparison == .sameCodes && reference.law != road.law ? .sameLevels : road.comparison
            mismatch = try firstMismatch(
                codesIn: try FileByteSource(path: path), at: document.file.audioOffset, bytes: document.file.audioBytes,
                channels: Int(document.file.description.channelsPerFrame), law: road.law, source: &reference,
                comparison: comparison, isCancelled: isCancelled)
        } catch let error as ConversionError {
            throw error
        } catch {
            throw ConversionError("the written CAF cannot be read back: \(error)")
        }
        if let sample = mismatch?.sample {
            throw ConversionError(
                "the written CAF failed verification: frame \(sample.frame), channel \(sample.channel) holds \(sample.found), expected \(sample.expected)"
            )
        }
        if let frames = mismatch?.frames {
            throw ConversionError(
                "the written CAF failed verification: it holds \(frames.file) frames, the source \(frames.source)")
        }
    }

    /// `verify --against` for a µ-law or A-law CAF: a source of the same law must give the same
    /// levels, any other source the nearest level of the same sign to each of its samples.
    static func verifyFailures(_ file: CAFFile, byteSource: some ByteSource, law: G711Law, source: String) -> [VerifyFailure] {
        let desc = file.description
        let channels = Int(desc.channelsPerFrame)
        guard channels > 0, desc.framesPerPacket == 1, Int(desc.bytesPerPacket) == channels else {
            return [
                VerifyFailure(
                    rule: "against", expected: "one \(law) code per channel and frame to compare",
                    found: "\(desc.bytesPerPacket) bytes per packet of \(desc.framesPerPacket) frames, \(channels) channels",
                    chunk: "desc")
            ]
        }
        var reference: G711Reference
        do { reference = try G711Reference(path: source) } catch {
            return [VerifyFailure(rule: "against", expected: "a readable source", found: error.message)]
        }
        if reference.channels != channels {
            return [
                VerifyFailure(
                    rule: "against-channels", expected: "\(reference.channels) channels as in \(source)", found: "\(channels)")
            ]
        }
        let comparison: G711Comparison = reference.law == law ? .sameLevels : .rule
        do {
            let mismatch = try firstMismatch(
                codesIn: byteSource, at: file.audioOffset, bytes: file.audioBytes - file.audioBytes % UInt64(channels),
                channels: channels, law: law, source: &reference, comparison: comparison)
            if let sample = mismatch?.sample {
                return [
                    VerifyFailure(
                        rule: "against",
                        expected:
                            "\(sample.expected) at frame \(sample.frame), channel \(sample.channel) (as in \(source); \(comparison.description))",
                        found: sample.found, chunk: "data", offset: sample.offset)
                ]
            }
            if let frames = mismatch?.frames {
                return [
                    VerifyFailure(
                        rule: "against-frames", expected: "\(frames.source) frames as in \(source)",
                        found: "\(frames.file) frames")
                ]
            }
            return []
        } catch {
            return [VerifyFailure(rule: "against", expected: "readable audio", found: "\(error)")]
        }
    }
}

extension G711Law {
    /// The code of a value on the 16-bit scale (for messages): the rule's choice.
    func encode(value: Double) -> UInt8 {
        encode(float: value / 32768)
    }
}

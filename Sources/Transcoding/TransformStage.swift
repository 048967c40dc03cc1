import BinaryIO
import CAFKit
import ConversionModel
import Loudness
import OutputFiles
import Soxr
import SystemLayer

/// How frame positions of a source map onto its resampled output: frame `k` at `sourceRate`
/// becomes frame `round(k × targetRate / sourceRate)` (halves up), the same rule that gives the
/// output's length (`frames(n)`) and that libsoxr's latency-free output follows. Markers, loops
/// and regions scale by it.
public struct SampleRateMapping: Equatable, Sendable {
    /// The source's rate in Hz, as libsndfile reads it (an integer).
    public let sourceRate: Int
    /// The source's rate exactly as its container stores it (22254.545 Hz in an AIFF, 22050.5 Hz
    /// in a CAF); `Double(sourceRate)` for whole rates.
    public let exactSourceRate: Double
    /// The output's rate in Hz.
    public let targetRate: Int
    private let numerator: Int64
    private let denominator: Int64

    /// A mapping from `sourceRate` to `targetRate` (both positive).
    public init(from sourceRate: Int, to targetRate: Int) {
        precondition(sourceRate > 0 && targetRate > 0)
        self.sourceRate = sourceRate
        self.exactSourceRate = Double(sourceRate)
        self.targetRate = targetRate
        var a = sourceRate
        var b = targetRate
        while b != 0 { (a, b) = (b, a % b) }
        numerator = Int64(targetRate / a)
        denominator = Int64(sourceRate / a)
    }

    /// A mapping from a rate that need not be whole (`exactSourceRate`, a `Double` and so a
    /// fraction p / 2^k) to `targetRate`, in exact integers: `nil` when the fraction does not fit
    /// 64 bits (a rate below about 2 Hz with many fraction bits).
    public init?(fromExact exactSourceRate: Double, integerRate: Int, to targetRate: Int) {
        guard exactSourceRate.isFinite, exactSourceRate >= 1, integerRate > 0, targetRate > 0 else { return nil }
        if exactSourceRate == exactSourceRate.rounded(), let whole = Int(exactly: exactSourceRate) {
            self.init(from: whole, to: targetRate)
            return
        }
        // exactSourceRate = p / 2^k with p odd.
        var p = exactSourceRate
        var k = 0
        while p != p.rounded() && k < 62 {
            p *= 2
            k += 1
        }
        guard let odd = Int64(exactly: p), odd > 0, k < 62 else { return nil }
        let (scaled, overflow) = Int64(targetRate).multipliedReportingOverflow(by: Int64(1) << k)
        guard !overflow else { return nil }
        var a = scaled
        var b = odd
        while b != 0 { (a, b) = (b, a % b) }
        self.init(
            sourceRate: integerRate, exactSourceRate: exactSourceRate, targetRate: targetRate, numerator: scaled / a,
            denominator: odd / a)
    }

    private init(sourceRate: Int, exactSourceRate: Double, targetRate: Int, numerator: Int64, denominator: Int64) {
        self.sourceRate = sourceRate
        self.exactSourceRate = exactSourceRate
        self.targetRate = targetRate
        self.numerator = numerator
        self.denominator = denominator
    }

    /// `targetRate / exactSourceRate`.
    public var ratio: Double { Double(targetRate) / exactSourceRate }

    /// The source's rate for messages: `48000`, `22254.545454545456`.
    public var sourceRateText: String {
        exactSourceRate == Double(sourceRate) ? String(sourceRate) : String(exactSourceRate)
    }

    /// The output frame of source frame `frame` (≥ 0): `round(frame × targetRate / sourceRate)`,
    /// exact in integers.
    public func frame(_ frame: Int64) -> Int64 {
        let product = frame.multipliedFullWidth(by: numerator)
        // (2·frame·num + den) / (2·den), in 128 bits.
        let twice = (high: product.high << 1 | Int64(bitPattern: product.low >> 63), low: product.low << 1)
        let (low, carry) = twice.low.addingReportingOverflow(UInt64(denominator))
        let dividend = (high: twice.high + (carry ? 1 : 0), low: low)
        guard dividend.high < 2 * denominator else { return Int64.max }
        return (2 * denominator).dividingFullWidth(dividend).quotient
    }

    /// The output length of `count` source frames: `round(count × targetRate / sourceRate)`.
    public func frames(_ count: Int64) -> Int64 { frame(count) }
}

/// What the transform stage does to one file: mix or select channels, change the rate, and
/// requantize (with or without dither) for the encoder. `nil` from `make` when none applies,
/// so that such files take the roads they took before.
package struct TransformPlan: Equatable {
    /// The channel matrix, when the channel count changes.
    package var matrix: ChannelMatrix?
    /// The rate mapping, when the rate changes.
    package var rate: SampleRateMapping?
    /// libsoxr's recipe.
    package var quality: RateQuality
    /// The dither applied when samples become integers.
    package var dither: Dither
    /// The integer bits the stage rounds to (the encoder then takes them unchanged), or `nil` when
    /// it hands floats on (float outputs, µ-law and A-law, which code each exact value).
    package var integerBits: Int?
    /// Whether the samples can lose precision on the way (a mix, a resampling, a float or wider
    /// source into integers); when not (channels selected or copied, same depth), the values
    /// come out exact and no dither is added.
    package var requantizes: Bool
    /// Channels in and out.
    package var inputChannels: Int, outputChannels: Int
    /// Rates in and out.
    package var inputRate: Int, outputRate: Int
    /// The channel map for the output's `chan` chunk (libsndfile's values), if it gets one.
    package var channelMap: [Int32]?

    /// What `--loudness` measures the source through (``LoudnessScan``): this plan's channel mix
    /// and rate, in floats, without rounding or dither; `nil` when it changes neither (the source
    /// itself is measured).
    package var measuring: TransformPlan? {
        guard matrix != nil || rate != nil else { return nil }
        var plan = self
        plan.integerBits = nil
        plan.dither = .none
        plan.requantizes = false
        plan.channelMap = nil
        return plan
    }

    /// The rule the proof and the report name: `resampled 48000→22050 with soxr VHQ; mixed 2→1;
    /// rounded to 16 bits`.
    package var rule: String {
        var parts: [String] = []
        if let matrix { parts.append(matrix.name) }
        if let rate { parts.append("resampled \(rate.sourceRateText)→\(rate.targetRate) with soxr \(quality.rawValue.uppercased())") }
        if let integerBits, requantizes {
            parts.append(dither == .tpdf ? "tpdf-dithered to \(integerBits) bits" : "rounded to \(integerBits) bits")
        }
        return parts.joined(separator: "; ")
    }

    /// `matrix` (the identity when there is none) with every factor times `gain`, named with the
    /// gain in dB as `--loudness` chose it.
    private static func applying(
        _ gain: Double, decibels: Double, to matrix: ChannelMatrix?, inputs: Int, outputs: Int
    ) -> ChannelMatrix {
        let base =
            matrix ?? ChannelMatrix(gains: (0..<outputs).map { o in (0..<inputs).map { $0 == o ? 1.0 : 0.0 } }, name: "")
        let named = "gain \(decibels > 0 ? "+" : "")\(Decibels.tenth(decibels)) dB (--loudness)"
        return ChannelMatrix(
            gains: base.gains.map { row in row.map { $0 * gain } }, name: base.name.isEmpty ? named : base.name + "; " + named)
    }

    /// The plan for `source` becoming `target` under `options`, or `nil` when the rate and channel
    /// count stay and no dither applies. Throws when the channels cannot be mixed as asked.
    package static func make(
        source: SourceStage, target: TargetFormat, options: ConversionOptions, warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> TransformPlan? {
        let inputs = source.info.channels
        let outputs = options.channels ?? inputs
        let inputRate = source.info.sampleRate
        let outputRate = options.sampleRate ?? inputRate
        // A rate asked for is compared with the source's exact rate (22050.5 Hz asked as 22050
        // is resampled); without one the rate stays whatever it is.
        let exactInput = source.exactRate
        let resamples = options.sampleRate.map { Double($0) != exactInput } ?? false
        let sourceBits = source.samples?.bits ?? (source.encoding.bits ?? 16)
        let sourceIsFloat = source.encoding.isFloat
        let targetIsFloat = target.encoding.isFloat
        let targetBits: Int? = targetIsFloat || G711Law(target.encoding) != nil ? nil : (target.encoding.bits ?? 16)
        // `--loudness`: the job's one static gain (dB), a factor on every sample in the matrix.
        let gain = options.loudnessGain.flatMap { $0 == 0 ? nil : pow(10, $0 / 20) }
        let changes = inputs != outputs || resamples || gain != nil
        // Dither matters where precision goes down: floats, or wider integers, into fewer bits.
        let narrows = targetBits.map { sourceIsFloat || sourceBits > $0 } ?? false
        guard changes || (options.dither == .tpdf && narrows) else { return nil }
        guard inputs > 0, inputRate > 0 else {
            throw .source(.notTransformable(channels: inputs, rate: inputRate))
        }
        var matrix: ChannelMatrix?
        var map: [Int32]?
        let sourceMap = (try? source.reader?.channelMap()) ?? nil
        if inputs != outputs {
            let (layout, assumed) = source.speakerLayout()
            if assumed && options.mix && inputs > 2 {
                warnings.append(.source(.noChannelMask(channels: inputs, layout: "\(layout)")))
            }
            do {
                matrix = try ChannelMatrix.make(inputs: inputs, outputs: outputs, layout: layout, mix: options.mix)
            } catch {
                throw .source(.channelMix(error.message))
            }
            if let sourceMap {
                if !options.mix {
                    map = outputs <= inputs ? Array(sourceMap.prefix(outputs)) : nil
                } else {
                    map = outputs == 1 ? [Speaker.mono.libsndfileMap] : [2, 3]
                }
            }
        } else if let sourceMap {
            map = sourceMap
        }
        var mapping: SampleRateMapping?
        if resamples {
            let ratio = Double(outputRate) / exactInput
            guard ratio <= 256, ratio >= 1.0 / 256 else {
                throw .source(.resampleRatio(from: inputRate, to: outputRate))
            }
            mapping = SampleRateMapping(fromExact: exactInput, integerRate: inputRate, to: outputRate)
            if mapping == nil {
                throw .source(.resampleFraction(from: exactInput, to: outputRate))
            }
            guard max(inputs, outputs) <= 256 else {
                throw .source(.resampleChannels(max(inputs, outputs)))
            }
        }
        if let gain, let decibels = options.loudnessGain {
            matrix = applying(gain, decibels: decibels, to: matrix, inputs: inputs, outputs: outputs)
        }
        // Selecting or copying channels (each output one input, at gain 1) loses nothing.
        let selects =
            matrix?.gains.allSatisfy { row in row.allSatisfy { $0 == 0 || $0 == 1 } && row.filter { $0 != 0 }.count <= 1 }
            ?? true
        let requantizes = resamples || !selects || narrows
        return TransformPlan(
            matrix: matrix, rate: mapping,
            quality: options.srcQuality, dither: requantizes ? options.dither : .none, integerBits: targetBits,
            requantizes: requantizes,
            inputChannels: inputs, outputChannels: outputs, inputRate: inputRate, outputRate: outputRate,
            channelMap: map)
    }
}

extension SourceStage {
    /// Where the source's channels play, from cafconv's own reading of the header: the
    /// WAVE_FORMAT_EXTENSIBLE channel mask, a CAF `chan` chunk, AIFF's fixed orders, else the
    /// WAVE default order; `assumed` says the order was assumed.
    package func speakerLayout() -> (layout: SpeakerLayout, assumed: Bool) {
        content.speakerLayout(channels: info.channels, input: input)
    }

    /// The loudness weights of the source's channels (``SpeakerLayout/loudnessKinds``) when the
    /// file says where they play; `nil` (weights by the channel count) when it does not.
    package var loudnessKinds: [LoudnessMeter.ChannelKind]? {
        let (layout, assumed) = speakerLayout()
        return assumed ? nil : layout.loudnessKinds
    }
}

extension SourceContent {
    /// Where the `channels` channels of a file read as this play (see
    /// ``SourceStage/speakerLayout()``), its bytes read from `input` for a CAF's `chan`.
    package func speakerLayout(channels: Int, input: some ByteSource) -> (layout: SpeakerLayout, assumed: Bool) {
        switch self {
        case .wave(let wave):
            if let mask = wave.format.channelMask {
                return (SpeakerLayout.wave(mask: mask, channels: channels), false)
            }
        case .aiff:
            return (SpeakerLayout.aiff(channels: channels), false)
        case .caf(let caf):
            // A `chan` body is 12 bytes plus 20 per description: 1024 channels fit in 32 KiB, so a
            // larger declared size is not trusted (the layout is then assumed).
            if let chunk = caf.chunks.first(where: { $0.type == .chan }), chunk.size <= 1 << 15,
                let bytes = try? input.read(at: chunk.bodyOffset, count: Int(chunk.size)),
                UInt64(bytes.count) == chunk.size
            {
                var cursor = ByteCursor(bytes, baseOffset: chunk.bodyOffset)
                if let layout = try? ChannelLayout(parsing: &cursor) {
                    return (SpeakerLayout.caf(layout, channels: channels), false)
                }
            }
        case .other:
            break
        }
        return (SpeakerLayout.waveDefault(channels: channels), true)
    }
}

/// Stage 1½ of a conversion, the **Transform**: reads a `FrameSource` in fixed chunks (so the
/// output does not depend on how callers read it), turns its samples into `Double`s (an N-bit
/// integer `s` is `s / 2^(N-1)`), applies the channel matrix, resamples with libsoxr, and hands
/// out frames at the output's rate and channels: `Double`s for float, µ-law and A-law outputs,
/// left-justified integers rounded (or TPDF-dithered) to `integerBits` for integer outputs.
/// After the source ends, libsoxr is flushed and the output is cut (or, never in practice,
/// padded with silence) to exactly `round(source frames × new rate / old rate)` frames. The pump
/// reads the libsndfile decoding through it, the proof cafconv's own decoding, with the same
/// plan: a difference is a plumbing bug, never the resampler's.
package final class TransformedAudio: FrameSource {
    package let source: any FrameSource
    package let plan: TransformPlan
    package let channels: Int
    package let sampleRate: Int
    package let isFloat: Bool
    package let bits: Int
    package var decoderName: String { source.decoderName }
    package var law: G711Law? { nil }
    package func codes(from start: Int64, count: Int) throws(SourceError) -> [UInt8]? { nil }

    /// Source frames per chunk.
    private let chunkFrames: Int
    private let resampler: Resampler?
    private var sourceInts: [Int32]
    private var sourceDoubles: [Double]
    private var converted: [Double]
    private var mixed: [Double]
    private var resampled: [Double] = []
    /// Output frames waiting to be read (interleaved), from `pendingStart`: the resampler's.
    private var pending: [Double] = []
    private var pendingStart = 0
    /// Without a resampler, the last chunk is read straight from `mixed`: its frames, and how
    /// many of them were read (no buffer grows to what a caller asks at once).
    private var mixedFrames = 0
    private var mixedRead = 0
    /// The gain of each channel when the matrix only scales each channel by its own (no mix,
    /// as `--loudness`'s gain alone): applied as the samples become `Double`s.
    private let channelGains: [Double]?
    private var sourceFrames: Int64 = 0
    private var madeFrames: Int64 = 0
    private var sourceEnded = false
    private var finished = false
    private var dither: TPDFNoise?

    package init(source: any FrameSource, plan: TransformPlan) throws(SourceError) {
        self.source = source
        self.plan = plan
        channels = plan.outputChannels
        sampleRate = plan.outputRate
        isFloat = plan.integerBits == nil
        bits = plan.integerBits ?? 64
        // Enough output per chunk for the highest ratio, in about 64 Ki samples.
        let ratio = plan.rate.map { max(1, $0.ratio) } ?? 1
        chunkFrames = max(1, min(4096, Int(Double(1 << 16) / ratio / Double(max(plan.inputChannels, plan.outputChannels)))))
        let inputs = plan.inputChannels
        sourceInts = [Int32](repeating: 0, count: source.isFloat ? 0 : chunkFrames * inputs)
        sourceDoubles = [Double](repeating: 0, count: chunkFrames * inputs)
        channelGains = plan.matrix.flatMap { Self.diagonal($0.gains) }
        converted = [Double](repeating: 0, count: plan.matrix == nil || channelGains != nil ? 0 : chunkFrames * inputs)
        mixed = [Double](repeating: 0, count: chunkFrames * plan.outputChannels)
        if plan.dither == .tpdf, plan.integerBits != nil { dither = TPDFNoise() }
        if let rate = plan.rate {
            do {
                resampler = try Resampler(
                    inputRate: rate.exactSourceRate, outputRate: Double(rate.targetRate),
                    channels: plan.outputChannels, quality: plan.quality.resampler)
            } catch {
                throw SourceError(error.message)
            }
        } else {
            resampler = nil
        }
    }

    package func read(ints: inout [Int32], doubles: inout [Double], frames: Int) throws(SourceError) -> Int {
        if resampler == nil { return try readChunks(ints: &ints, doubles: &doubles, frames: frames) }
        while (pending.count - pendingStart) / channels < frames && !finished { try produce() }
        let available = (pending.count - pendingStart) / channels
        let count = min(frames, available)
        guard count > 0 else { return 0 }
        let samples = count * channels
        hand(pending, from: pendingStart, samples: samples, ints: &ints, doubles: &doubles, at: 0)
        pendingStart += samples
        if pendingStart >= 1 << 16 || pendingStart == pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return count
    }

    /// Without a resampler: `frames` frames (fewer at the end) handed out chunk by chunk from `mixed`.
    private func readChunks(ints: inout [Int32], doubles: inout [Double], frames: Int) throws(SourceError) -> Int {
        var done = 0
        while done < frames {
            if mixedRead == mixedFrames {
                if finished { break }
                try produce()
                continue
            }
            let count = min(frames - done, mixedFrames - mixedRead)
            hand(mixed, from: mixedRead * channels, samples: count * channels, ints: &ints, doubles: &doubles, at: done * channels)
            mixedRead += count
            done += count
        }
        return done
    }

    /// Hands `samples` samples of `values` from `start` to the caller's buffers from `offset`:
    /// left-justified integers rounded (or dithered) to the plan's bits, or the `Double`s.
    private func hand(
        _ values: [Double], from start: Int, samples: Int, ints: inout [Int32], doubles: inout [Double], at offset: Int
    ) {
        guard let integerBits = plan.integerBits else {
            doubles[offset..<(offset + samples)] = values[start..<(start + samples)]
            return
        }
        let scale = Double(Int64(1) << (integerBits - 1))
        let high = scale - 1
        let low = -scale
        let shift = Int32(32 - integerBits)
        // The noise generator as a local while the block is rounded (the same sequence).
        var noise = dither
        for index in 0..<samples {
            var value = values[start + index] * scale
            if noise != nil { value += noise?.next() ?? 0 }
            value = value.rounded(.toNearestOrEven)
            if value.isNaN { value = 0 }
            value = min(max(value, low), high)
            ints[offset + index] = Int32(value) << shift
        }
        dither = noise
    }

    /// The gain of each channel when `gains` (a square matrix) only scales each channel by its
    /// own, every gain non-zero; `nil` otherwise.
    private static func diagonal(_ gains: [[Double]]) -> [Double]? {
        var diagonal: [Double] = []
        for (row, values) in gains.enumerated() {
            guard values.count == gains.count, values[row] != 0,
                values.indices.allSatisfy({ $0 == row || values[$0] == 0 })
            else { return nil }
            diagonal.append(values[row])
        }
        return diagonal
    }

    /// What the matrix gives when it only scales each channel (0 + gain x sample), into `mixed`,
    /// without its sums over every input: `count` samples of the chunk just read.
    private func scale(count: Int, by gains: [Double]) {
        let isFloat = source.isFloat
        mixed.withUnsafeMutableBufferPointer { mixed in
            for (channel, gain) in gains.enumerated() {
                if isFloat {
                    sourceDoubles.withUnsafeBufferPointer { input in
                        for index in stride(from: channel, to: count, by: gains.count) { mixed[index] = 0 + gain * input[index] }
                    }
                } else {
                    sourceInts.withUnsafeBufferPointer { input in
                        for index in stride(from: channel, to: count, by: gains.count) {
                            mixed[index] = 0 + gain * SampleScaling.float(input[index])
                        }
                    }
                }
            }
        }
    }

    /// Runs one chunk of the source through the stage (or, at its end, flushes libsoxr).
    private func produce() throws(SourceError) {
        let inputs = plan.inputChannels
        let outputs = plan.outputChannels
        var got = 0
        if !sourceEnded {
            got = try source.read(ints: &sourceInts, doubles: &sourceDoubles, frames: chunkFrames)
            if got == 0 { sourceEnded = true }
        }
        if got > 0 {
            sourceFrames += Int64(got)
            // Into `converted` when a matrix follows, else straight into `mixed`.
            let count = got * inputs
            if let channelGains {
                scale(count: count, by: channelGains)
            } else if plan.matrix == nil {
                if source.isFloat {
                    for index in 0..<count { mixed[index] = sourceDoubles[index] }
                } else {
                    for index in 0..<count { mixed[index] = SampleScaling.float(sourceInts[index]) }
                }
            } else if source.isFloat {
                for index in 0..<count { converted[index] = sourceDoubles[index] }
            } else {
                for index in 0..<count { converted[index] = SampleScaling.float(sourceInts[index]) }
            }
            if let matrix = plan.matrix, channelGains == nil {
                converted.withUnsafeBufferPointer { input in
                    mixed.withUnsafeMutableBufferPointer { output in matrix.apply(input, frames: got, into: output) }
                }
            }
        }
        guard let resampler, let rate = plan.rate else {
            (mixedFrames, mixedRead) = (got, 0)
            madeFrames += Int64(got)
            if sourceEnded { finished = true }
            return
        }
        let expected = rate.frames(sourceFrames)
        var consumed = 0
        repeat {
            let capacity = got > 0 ? Int(Double(got - consumed) * rate.ratio) + 64 : 4096
            if resampled.count < capacity * outputs { resampled = [Double](repeating: 0, count: capacity * outputs) }
            let step: (consumed: Int, written: Int)
            do {
                step = try mixed.withUnsafeBufferPointer { input throws(ResamplerError) in
                    try resampled.withUnsafeMutableBufferPointer { output throws(ResamplerError) in
                        try resampler.process(
                            got > 0 ? UnsafeBufferPointer(rebasing: input[(consumed * outputs)...]) : nil,
                            frames: got - consumed, into: output, capacity: capacity)
                    }
                }
            } catch {
                throw SourceError(error.message)
            }
            if got > 0 && step.consumed == 0 && step.written == 0 {
                throw SourceError("libsoxr took no input and gave no output")
            }
            consumed += step.consumed
            // Never more than round(source frames × ratio) once the source has ended.
            let keep = sourceEnded ? Int(max(0, min(Int64(step.written), expected - madeFrames))) : step.written
            pending.append(contentsOf: resampled[0..<keep * outputs])
            madeFrames += Int64(keep)
            if sourceEnded {
                if step.written == 0 || madeFrames >= expected {
                    if madeFrames < expected {
                        pending.append(contentsOf: repeatElement(0, count: Int(expected - madeFrames) * outputs))
                        madeFrames = expected
                    }
                    finished = true
                    return
                }
            }
        } while consumed < got
    }
}

/// Triangular (TPDF) dither noise in LSBs: the sum of two uniform values in [-0.5, 0.5), from a
/// SplitMix64 generator with a fixed seed, so the same samples always get the same noise.
package struct TPDFNoise {
    private var state: UInt64 = 0x2545_F491_4F6C_DD1D

    private mutating func uniform() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(UInt64(1) << 53) - 0.5
    }

    /// The next noise value, in (-1, 1) LSB with a triangular distribution.
    package mutating func next() -> Double { uniform() + uniform() }
}

extension RateQuality {
    /// libsoxr's recipe for this quality.
    package var resampler: ResamplerQuality {
        switch self {
        case .vhq: return .vhq
        case .hq: return .hq
        case .mq: return .mq
        case .lq: return .lq
        case .qq: return .qq
        }
    }
}

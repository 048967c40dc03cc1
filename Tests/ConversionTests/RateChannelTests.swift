import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import Foundation
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

/// Signal analysis for the resampler's quality checks.
enum Analysis {
    /// Least-squares fit of `a·sin(ωn) + b·cos(ωn) + c` over `samples`, with `ω = 2π·frequency/rate`
    /// and `n` counted from `start` (the index of `samples[0]` in the whole signal).
    static func fitSine(_ samples: [Double], frequency: Double, rate: Double, start: Int) -> (a: Double, b: Double, c: Double) {
        let omega = 2 * Double.pi * frequency / rate
        var m = [[Double]](repeating: [Double](repeating: 0, count: 3), count: 3)
        var v = [Double](repeating: 0, count: 3)
        for (index, y) in samples.enumerated() {
            let n = Double(start + index)
            let basis = [sin(omega * n), cos(omega * n), 1.0]
            for i in 0..<3 {
                v[i] += basis[i] * y
                for j in 0..<3 { m[i][j] += basis[i] * basis[j] }
            }
        }
        // Gaussian elimination on the 3x3 normal equations.
        for column in 0..<3 {
            for row in column + 1..<3 {
                let factor = m[row][column] / m[column][column]
                for k in column..<3 { m[row][k] -= factor * m[column][k] }
                v[row] -= factor * v[column]
            }
        }
        var x = [0.0, 0.0, 0.0]
        for row in stride(from: 2, through: 0, by: -1) {
            var sum = v[row]
            for k in row + 1..<3 { sum -= m[row][k] * x[k] }
            x[row] = sum / m[row][row]
        }
        return (x[0], x[1], x[2])
    }

    /// THD+N in dB: the power of what the fitted sine does not explain, over the sine's power.
    static func thdPlusNoise(_ samples: [Double], frequency: Double, rate: Double, start: Int) -> Double {
        let fit = fitSine(samples, frequency: frequency, rate: rate, start: start)
        let omega = 2 * Double.pi * frequency / rate
        var residual = 0.0
        for (index, y) in samples.enumerated() {
            let n = Double(start + index)
            let model = fit.a * sin(omega * n) + fit.b * cos(omega * n) + fit.c
            residual += (y - model) * (y - model)
        }
        let signal = (fit.a * fit.a + fit.b * fit.b) / 2 * Double(samples.count)
        return 10 * log10(residual / signal)
    }

    static func rms(_ samples: ArraySlice<Double>) -> Double {
        (samples.reduce(0) { $0 + $1 * $1 } / Double(max(samples.count, 1))).squareRoot()
    }
}

func sine(frequency: Double, rate: Int, frames: Int, amplitude: Double) -> [Double] {
    (0..<frames).map { amplitude * sin(2 * Double.pi * frequency * Double($0) / Double(rate)) }
}

@Suite("Sample-rate conversion (libsoxr): lengths, alignment, quality")
struct RateConversionTests {
    static let rates = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 96000]
    static let pairs = rates.flatMap { from in rates.filter { $0 != from }.map { (from, $0) } }

    @Test("the frame mapping rounds k × new / old, halves up, in exact integers")
    func mapping() {
        let down = SampleRateMapping(from: 48000, to: 22050)
        #expect(down.frames(48000) == 22050)
        #expect(down.frames(10000) == 4594)  // 4593.75
        #expect(down.frame(1) == 0)  // 0.459
        #expect(down.frame(2) == 1)  // 0.919
        #expect(SampleRateMapping(from: 44100, to: 22050).frames(10001) == 5001)  // 5000.5, half up
        #expect(SampleRateMapping(from: 44100, to: 48000).frames(1000) == 1088)  // 1088.435
        #expect(SampleRateMapping(from: 8000, to: 96000).frame(7) == 84)
        // No overflow where frames x rate passes 2^63.
        #expect(SampleRateMapping(from: 44100, to: 96000).frames(Int64(1) << 52) == 9_803_754_290_874_549)
        #expect(down.ratio == 22050.0 / 48000.0)
    }

    @Test("every rate pair: length round(N × new/old), impulses where they belong", arguments: pairs)
    func lengthAndAlignment(from: Int, to: Int) throws {
        // Impulses at frames whose position maps to a whole output frame: one early, one late.
        var a = from
        var b = to
        while b != 0 { (a, b) = (b, a % b) }
        let step = from / a
        let frames = max(from / 4, 3 * step) + 7
        let first = step * max(1, (frames / 8) / step + 1)
        let last = step * ((frames - frames / 8) / step)
        try #require(first < last)
        var samples = [Double](repeating: 0, count: frames)
        samples[first] = 0.5
        samples[last] = -0.5
        let fixture = WAVFixture(encoding: .float64, channels: 1, sampleRate: from, floats: samples)
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEF64"), jobs: 1, sampleRate: to)
        let converted = try convert(fixture.bytes, options: options)
        let expected = SampleRateMapping(from: from, to: to)
        #expect(converted.file.audioDescription.sampleRate == Double(to))
        #expect(converted.file.linearPCMFrames == UInt64(expected.frames(Int64(frames))), "length for \(from)→\(to)")
        #expect(converted.result.frames == expected.frames(Int64(frames)))
        #expect(converted.result.proof?.rule == "resampled \(from)→\(to) with soxr VHQ")
        let output = try decodedFloats(converted)
        let split = Int(expected.frame(Int64((first + last) / 2)))
        let peakEarly = (0..<split).max { abs(output[$0]) < abs(output[$1]) }
        let peakLate = (split..<output.count).max { abs(output[$0]) < abs(output[$1]) }
        #expect(peakEarly == Int(expected.frame(Int64(first))), "first impulse of \(from)→\(to)")
        #expect(peakLate == Int(expected.frame(Int64(last))), "last impulse of \(from)→\(to)")
        #expect(output[peakLate ?? 0] < 0)
    }

    @Test("1 kHz at -1 dBFS into float: THD+N <= -100 dB, at lag 0", arguments: [48000, 44100])
    func sineQuality(from: Int) throws {
        let amplitude = pow(10, -1.0 / 20)
        let frames = from / 2
        let fixture = WAVFixture(
            encoding: .float64, channels: 1, sampleRate: from,
            floats: sine(frequency: 1000, rate: from, frames: frames, amplitude: amplitude))
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEF32"), jobs: 1, sampleRate: 22050)
        let output = try decodedFloats(try convert(fixture.bytes, options: options))
        #expect(output.count == Int(SampleRateMapping(from: from, to: 22050).frames(Int64(frames))))
        // The middle, away from the signal's abrupt start and end.
        let start = output.count / 8
        let middle = Array(output[start..<output.count - output.count / 8])
        let thd = Analysis.thdPlusNoise(middle, frequency: 1000, rate: 22050, start: start)
        #expect(thd <= -100, "THD+N \(thd) dB for \(from)→22050")
        // Alignment: the fitted sine's phase against the ideal sine (sin, phase 0) is a delay of
        // under 1/100 of a sample, and the cross-correlation with it peaks at lag 0.
        let fit = Analysis.fitSine(middle, frequency: 1000, rate: 22050, start: start)
        let delay = -atan2(fit.b, fit.a) / (2 * Double.pi * 1000 / 22050)
        #expect(abs(delay) < 0.01, "delay \(delay) samples")
        #expect(abs((fit.a * fit.a + fit.b * fit.b).squareRoot() - amplitude) < 1e-4, "level kept")
        let ideal = sine(frequency: 1000, rate: 22050, frames: output.count, amplitude: amplitude)
        let lags = -3...3
        let correlation = lags.map { lag in
            (start..<output.count - output.count / 8).reduce(0.0) { $0 + output[$1] * ideal[$1 + lag] }
        }
        let best = lags.max { correlation[$0 - lags.lowerBound] < correlation[$1 - lags.lowerBound] }
        #expect(best == 0)
    }

    @Test("a tone above the new Nyquist frequency is attenuated >= 100 dB", arguments: [12000.0, 15000.0, 20000.0])
    func stopband(frequency: Double) throws {
        let amplitude = pow(10, -1.0 / 20)
        let fixture = WAVFixture(
            encoding: .float64, channels: 1, sampleRate: 48000,
            floats: sine(frequency: frequency, rate: 48000, frames: 24000, amplitude: amplitude))
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEF64"), jobs: 1, sampleRate: 22050)
        let output = try decodedFloats(try convert(fixture.bytes, options: options))
        let level = Analysis.rms(output[output.count / 8..<output.count - output.count / 8])
        let attenuation = 20 * log10(level / (amplitude / 2.0.squareRoot()))
        #expect(attenuation <= -100, "\(frequency) Hz came through at \(attenuation) dB")
    }

    @Test("0@RATE keeps the source's format; the same format into 16 bits rounds the resampled floats")
    func keepFormat() throws {
        let fixture = WAVFixture.signal(.int24, channels: 2, frames: 3000, sampleRate: 44100)
        let converted = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, sampleRate: 48000))
        #expect(converted.file.audioDescription.bitsPerChannel == 24)
        #expect(converted.file.audioDescription.sampleRate == 48000)
        #expect(converted.result.samples == .transformed)
        #expect(converted.result.proof?.comparison == "exact-after-rule")
        #expect(converted.result.proof?.rule == "resampled 44100→48000 with soxr VHQ; rounded to 24 bits")
        #expect(converted.result.proof?.sourceDecoder == "cafconv")
    }

    @Test("the same input and options give the same bytes (and -j does not matter)")
    func deterministic() throws {
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 20000, sampleRate: 44100)
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1, sampleRate: 22050, channels: 1)
        let one = try convert(fixture.bytes, options: options)
        let two = try convert(fixture.bytes, options: options)
        #expect(one.bytes == two.bytes)
        #expect(one.result.proof?.rule == "mixed 2→1; resampled 44100→22050 with soxr VHQ; rounded to 16 bits")
    }

    @Test("--src-quality names and afconvert's -r numbers map to libsoxr's recipes")
    func qualityNames() throws {
        #expect(try RateQuality(parsing: "VHQ") == .vhq)
        #expect(try RateQuality(parsing: "127") == .vhq)
        #expect(try RateQuality(parsing: "126") == .hq)
        #expect(try RateQuality(parsing: "96") == .hq)
        #expect(try RateQuality(parsing: "64") == .mq)
        #expect(try RateQuality(parsing: "32") == .lq)
        #expect(try RateQuality(parsing: "0") == .qq)
        #expect(throws: DataFormatError.self) { try RateQuality(parsing: "128") }
        #expect(throws: DataFormatError.self) { try RateQuality(parsing: "best") }
        // A lower recipe writes other bytes, and says so.
        let fixture = WAVFixture.signal(.int16, channels: 1, frames: 4000, sampleRate: 48000)
        let high = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, sampleRate: 22050))
        let quick = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, sampleRate: 22050, srcQuality: .qq))
        #expect(high.bytes != quick.bytes)
        #expect(quick.result.proof?.rule == "resampled 48000→22050 with soxr QQ; rounded to 16 bits")
    }
}

@Suite("The -d FMT@RATE grammar")
struct FormatRequestTests {
    @Test("FMT@RATE splits off the rate; 0 keeps the source's format")
    func grammar() throws {
        let request = try FormatRequest(parsing: "LEI16@22050")
        #expect(request.sampleRate == 22050)
        #expect(request.format?.kind == .linearPCM(bits: 16, isFloat: false))
        #expect(request.format?.byteOrder == .little)
        let keep = try FormatRequest(parsing: "0@44100")
        #expect(keep.format == nil)
        #expect(keep.sampleRate == 44100)
        #expect(try FormatRequest(parsing: "BEF32").sampleRate == nil)
        #expect(try FormatRequest(parsing: "alac@48000").format?.kind == .alac)
    }

    @Test(
        "bad rates and a missing format are usage errors",
        arguments: ["@22050", "LEI16@", "LEI16@abc", "LEI16@0", "LEI16@999", "LEI16@22050.5", "LEI16@1000000"])
    func refused(text: String) {
        #expect(throws: DataFormatError.self) { try FormatRequest(parsing: text) }
    }

    @Test("flags after @RATE still go to the format's own check")
    func flags() {
        #expect(throws: DataFormatError.self) { try FormatRequest(parsing: "LEI16@22050/80") }
    }
}

@Suite("Channel conversion: matrices, layouts, --no-mix")
struct ChannelConversionTests {
    static let h = 0.5.squareRoot()

    @Test("stereo to mono averages (-6 dB each); mono to stereo copies")
    func simpleMatrices() throws {
        let down = try ChannelMatrix.make(inputs: 2, outputs: 1, layout: nil, mix: true)
        #expect(down.gains == [[0.5, 0.5]])
        #expect(down.name == "mixed 2→1")
        let up = try ChannelMatrix.make(inputs: 1, outputs: 2, layout: nil, mix: true)
        #expect(up.gains == [[1], [1]])
    }

    @Test("5.1 to stereo and mono: ITU-R BS.775 (centre and surrounds -3 dB, LFE dropped), normalised")
    func surroundMatrices() throws {
        let layout = SpeakerLayout.wave(mask: 0x3F, channels: 6)
        #expect(layout.description == "FL FR FC LFE BL BR")
        let stereo = try ChannelMatrix.make(inputs: 6, outputs: 2, layout: layout, mix: true)
        let sum = 1 + 2 * Self.h
        let expectedLeft = [1, 0, Self.h, 0, Self.h, 0].map { $0 / sum }
        let expectedRight = [0, 1, Self.h, 0, 0, Self.h].map { $0 / sum }
        for (found, expected) in zip(stereo.gains[0] + stereo.gains[1], expectedLeft + expectedRight) {
            #expect(abs(found - expected) < 1e-15)
        }
        // Mono: the average of the stereo pair, which is BS.775's M = 0.7071 (L + R) + C + 0.5 (Ls + Rs).
        let mono = try ChannelMatrix.make(inputs: 6, outputs: 1, layout: layout, mix: true)
        let bs775 = [Self.h, Self.h, 1, 0, 0.5, 0.5]
        let total = bs775.reduce(0, +)
        for (found, expected) in zip(mono.gains[0], bs775.map { $0 / total }) { #expect(abs(found - expected) < 1e-15) }
        // Full scale on every channel at once cannot clip: each row's gains sum to at most 1.
        for matrix in [stereo, mono] {
            for row in matrix.gains { #expect(row.reduce(0) { $0 + abs($1) } <= 1 + 1e-15) }
        }
    }

    @Test("layouts from the WAVE mask, CAF's chan (tag, bitmap, labels) and AIFF's order")
    func layouts() {
        #expect(SpeakerLayout.wave(mask: 0x60F, channels: 6).description == "FL FR FC LFE SL SR")
        #expect(SpeakerLayout.wave(mask: 0x3, channels: 4).description == "FL FR ? ?")
        #expect(!SpeakerLayout.wave(mask: 0, channels: 2).isComplete)
        let tag = ChannelLayout(tag: 124 << 16 | 6)  // MPEG_5_1_D: C L R Ls Rs LFE
        #expect(SpeakerLayout.caf(tag, channels: 6).description == "FC FL FR BL BR LFE")
        let bitmap = ChannelLayout(tag: ChannelLayout.useChannelBitmap, bitmap: 0x3F)
        #expect(SpeakerLayout.caf(bitmap, channels: 6).description == "FL FR FC LFE BL BR")
        let labels = ChannelLayout(
            tag: ChannelLayout.useChannelDescriptions,
            descriptions: [3, 1, 2, 4].map { ChannelDescription(label: $0) })
        #expect(SpeakerLayout.caf(labels, channels: 4).description == "FC FL FR LFE")
        #expect(!SpeakerLayout.caf(ChannelLayout(tag: 147 << 16 | 4), channels: 4).isComplete)  // DiscreteInOrder
        #expect(SpeakerLayout.aiff(channels: 3).description == "FL FR FC")
        #expect(SpeakerLayout.aiff(channels: 6).description == "FL FLC FC FR FRC BC")
        #expect(!SpeakerLayout.aiff(channels: 5).isComplete)
    }

    @Test("no standard mix: unknown positions, 2 to 3, LFE alone")
    func refusals() {
        #expect(throws: ChannelMixError.self) {
            try ChannelMatrix.make(inputs: 6, outputs: 2, layout: SpeakerLayout.wave(mask: 0, channels: 6), mix: true)
        }
        #expect(throws: ChannelMixError.self) { try ChannelMatrix.make(inputs: 2, outputs: 3, layout: nil, mix: true) }
        #expect(throws: ChannelMixError.self) {
            try ChannelMatrix.make(inputs: 3, outputs: 1, layout: SpeakerLayout([.lowFrequency, nil, nil]), mix: true)
        }
    }

    @Test("stereo to mono end to end: (L + R) / 2 rounded, proven, no chan for a source without one")
    func stereoToMono() throws {
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 999)
        let converted = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, channels: 1))
        #expect(converted.file.audioDescription.channelsPerFrame == 1)
        #expect(converted.result.channels == 1)
        #expect(converted.result.proof?.rule == "mixed 2→1; rounded to 16 bits")
        let expected = stride(from: 0, to: fixture.integers.count, by: 2).map { index -> Int32 in
            let mean = (Double(fixture.integers[index]) + Double(fixture.integers[index + 1])) / 2
            return Int32(mean.rounded(.toNearestOrEven))
        }
        expectSameSamples(try decodedIntegers(converted), expected)
        #expect(!converted.file.chunks.contains { $0.type == .chan })
    }

    @Test("5.1 (EXTENSIBLE) to stereo: the BS.775 matrix at full scale does not clip; the chan says stereo")
    func surroundToStereo() throws {
        // Every channel at full scale, then each channel alone.
        let frames = 7
        var values = [Int32](repeating: 32767, count: 6)
        for channel in 0..<6 { values += (0..<6).map { $0 == channel ? -32768 : 0 } }
        let fixture = WAVFixture(
            encoding: .int16, channels: 6, sampleRate: 48000, integers: values, extensible: true)
        let converted = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, channels: 2))
        #expect(converted.file.audioDescription.channelsPerFrame == 2)
        let found = try decodedIntegers(converted)
        let matrix = try ChannelMatrix.make(
            inputs: 6, outputs: 2, layout: SpeakerLayout.wave(mask: 0x3F, channels: 6), mix: true)
        var expected: [Int32] = []
        for frame in 0..<frames {
            for row in matrix.gains {
                let mixed = (0..<6).reduce(0.0) { $0 + row[$1] * Double(values[frame * 6 + $1]) / 32768 }
                expected.append(Int32(min(max((mixed * 32768).rounded(.toNearestOrEven), -32768), 32767)))
            }
        }
        expectSameSamples(found, expected)
        #expect(found[0] == 32767 && found[1] == 32767, "full scale stays full scale, unclipped")
        #expect(found[2 + 2 * 3] == 0 && found[2 + 2 * 3 + 1] == 0, "LFE is dropped")
        let document = try CAFDocument(reading: MemoryByteSource(converted.bytes))
        let layout = try #require(document.contents.channelLayout)
        #expect(SpeakerLayout.caf(layout, channels: 2).description == "FL FR")
    }

    @Test("--no-mix keeps the first channels bit for bit, and adds silent ones")
    func noMix() throws {
        let fixture = WAVFixture.signal(.int24, channels: 6, frames: 301, extensible: true)
        let kept = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, channels: 2, mix: false))
        let expected = (0..<301).flatMap { frame in [fixture.integers[frame * 6], fixture.integers[frame * 6 + 1]] }
        expectSameSamples(try decodedIntegers(kept), expected)
        #expect(kept.result.proof?.rule == "kept channels 1-2 of 6 (--no-mix)")
        // Nothing is lost, so --dither tpdf adds nothing.
        let dithered = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, channels: 2, mix: false, dither: .tpdf))
        #expect(dithered.bytes == kept.bytes)
        let mono = WAVFixture.signal(.int16, channels: 1, frames: 100)
        let widened = try convert(mono.bytes, options: ConversionOptions(jobs: 1, channels: 3, mix: false))
        expectSameSamples(try decodedIntegers(widened), mono.integers.flatMap { [$0, 0, 0] })
        // With --mix (the default), 1 → 2 copies the channel.
        let copied = try convert(mono.bytes, options: ConversionOptions(jobs: 1, channels: 2))
        expectSameSamples(try decodedIntegers(copied), mono.integers.flatMap { [$0, $0] })
    }

    @Test("resampling by more than 256 either way fails the file")
    func ratioLimit() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 10, sampleRate: 1000).bytes)
        let report = Engine.convert(
            inputs: [input], output: folder.file("out.caf"), options: ConversionOptions(jobs: 1, sampleRate: 768_000))
        #expect(report.files.first?.code == .unsupported)
        #expect(report.files.first?.reason?.contains("factors up to 256") == true)
    }

    @Test("a mix with no standard matrix fails the file, naming --no-mix")
    func unsupportedMix() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 10).bytes)
        let report = Engine.convert(
            inputs: [input], output: folder.file("out.caf"), options: ConversionOptions(jobs: 1, channels: 4))
        let result = try #require(report.files.first)
        #expect(result.status == .failed)
        #expect(result.code == .unsupported)
        #expect(result.reason?.contains("--no-mix") == true)
    }
}

@Suite("Dither and the options' fingerprint")
struct DitherAndFingerprintTests {
    @Test("TPDF: the same input and options give the same bytes; within 1.5 LSB of the exact value; proven")
    func tpdfDeterministic() throws {
        let fixture = WAVFixture.signal(.int24, channels: 2, frames: 20000)
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1, dither: .tpdf)
        let one = try convert(fixture.bytes, options: options)
        let two = try convert(fixture.bytes, options: options)
        #expect(one.bytes == two.bytes)
        #expect(one.result.proof?.rule == "tpdf-dithered to 16 bits")
        let plain = try convert(fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1))
        #expect(plain.bytes != one.bytes)
        #expect(plain.result.samples != .transformed, "without --dither the road is the one it was")
        let found = try decodedIntegers(one)
        var errorSum = 0.0
        var differing = 0
        for (value, source) in zip(found, fixture.integers) {
            let exact = Double(source) / 256
            let error = Double(value) - exact
            if value != 32767 && value != -32768 { #expect(abs(error) < 1.5) }
            errorSum += error
            if Double(value) != exact.rounded(.toNearestOrEven) { differing += 1 }
        }
        #expect(abs(errorSum / Double(found.count)) < 0.02, "dither noise has no DC")
        #expect(differing > found.count / 10, "the noise changes some samples (\(differing))")
    }

    @Test("--dither tpdf changes nothing where no precision is lost")
    func ditherNoOp() throws {
        let fixture = WAVFixture.signal(.int16, channels: 1, frames: 500)
        let dithered = try convert(fixture.bytes, options: ConversionOptions(jobs: 1, dither: .tpdf))
        expectSameSamples(try decodedIntegers(dithered), fixture.integers)
        #expect(dithered.result.samples == .copied)
    }

    @Test("the fingerprint names rate, channels, mix, quality and dither; unchanged without them")
    func fingerprint() throws {
        let base = ConversionOptions(jobs: 1)
        #expect(base.fingerprint == "rules=\(ConversionOptions.rulesVersion);d=source;endian=default")
        let variants = [
            ConversionOptions(jobs: 1, sampleRate: 22050),
            ConversionOptions(jobs: 1, sampleRate: 22050, srcQuality: .hq),
            ConversionOptions(jobs: 1, sampleRate: 44100),
            ConversionOptions(jobs: 1, channels: 1),
            ConversionOptions(jobs: 1, channels: 1, mix: false),
            ConversionOptions(jobs: 1, channels: 2),
            ConversionOptions(jobs: 1, dither: .tpdf),
        ]
        let prints = Set(variants.map(\.fingerprint) + [base.fingerprint])
        #expect(prints.count == variants.count + 1)
        #expect(variants[1].fingerprint.contains("rate=22050;src=hq"))
        #expect(variants[4].fingerprint.contains("channels=1;mix=off"))
    }

    @Test("changing the rate makes the output out of date")
    func incremental() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 1000).bytes)
        // Into a folder: a single file with -o FILE keeps no state (issue 34's single-file mode).
        let output = folder.file("out") + "/"
        _ = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1, sampleRate: 22050))
        let again = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1, sampleRate: 22050))
        #expect(again.files.first?.status == .upToDate)
        let changed = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1, sampleRate: 16000))
        #expect(changed.files.first?.status == .converted)
    }
}

import AACCodec
import BinaryIO
import CAFKit
@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// `zeros` frames of digital silence, then a stereo tone pair fading in over half a second (the
/// shape that pulled the old first-sound correlation late), then `trailing` zero frames.
func silenceThenFade(zeros: Int, frames: Int = 30000, trailing: Int = 2000, sampleRate: Int = 44100) -> WAVFixture {
    var values = [Int32](repeating: 0, count: zeros * 2)
    values.reserveCapacity((zeros + frames + trailing) * 2)
    for frame in 0..<frames {
        let t = Double(frame) / Double(sampleRate)
        let fade = min(1, t / 0.5)
        values.append(Int32((fade * 0.5 * cos(2 * .pi * 440 * t) * 32767).rounded()))
        values.append(Int32((fade * 0.5 * sin(2 * .pi * 660 * t) * 32767).rounded()))
    }
    values += [Int32](repeating: 0, count: trailing * 2)
    return WAVFixture(encoding: .int16, channels: 2, sampleRate: sampleRate, integers: values)
}

@Suite("AAC: the proof aligns on signal, not on silence", .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
struct AACAlignmentTests {
    static let aac = ConversionOptions(dataFormat: try? DataFormat(parsing: "aac"), jobs: 1)

    @Test("sources starting with 0, 1, 1024, 5000 and 100000 zero frames, then a fade-in, convert with lag 0", arguments: [0, 1, 1024, 5000, 100_000])
    func leadingSilence(zeros: Int) throws {
        let fixture = silenceThenFade(zeros: zeros)
        let converted = try convert(fixture.bytes(order: .little), options: Self.aac)
        #expect(converted.result.status == .converted, "\(converted.result.reason ?? "")")
        let proof = try #require(converted.result.proof)
        #expect(proof.peakLag == 0 && proof.rule == "aac-lc", "\(proof)")
        #expect(converted.result.frames == Int64(fixture.frames))
        // verify --against shares the rule.
        let verdict = Verifier.verify(paths: [converted.path], options: VerifyOptions(against: converted.folder.file("in.wav")))
        #expect(verdict.files.first?.passed == true, "\(verdict.files.first?.failures ?? [])")
    }

    @Test("dither-level noise before the sound (no features to align on) converts with lag 0")
    func ditherBeforeSound() throws {
        var fixture = WAVFixture(
            encoding: .int16, channels: 2, sampleRate: 44100,
            integers: (0..<30000).flatMap { frame in
                let value = Int32((0.5 * cos(2 * .pi * 440 * Double(frame) / 44100) * 32767).rounded())
                return [value, value]
            })
        var state: UInt64 = 7
        let dither = (0..<(5000 * 2)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int32((state >> 32) % 5) - 2  // -2...2 LSB
        }
        fixture.integers = dither + fixture.integers
        let converted = try convert(fixture.bytes(order: .little), options: Self.aac)
        #expect(converted.result.status == .converted, "\(converted.result.reason ?? "")")
        #expect(converted.result.proof?.peakLag == 0)
    }

    @Test("all-zero and very quiet sources convert; their proof checks the length and that the decode is near-silent", arguments: [1, 1024, 5000, 100_000])
    func nearSilent(frames: Int) throws {
        let zero = WAVFixture(encoding: .int16, channels: 2, sampleRate: 44100, integers: [Int32](repeating: 0, count: frames * 2))
        var state: UInt64 = 99
        let quietValues = (0..<(frames * 2)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int32(state >> 61) - 3  // -3...4 LSB: about -80 dBFS
        }
        let quiet = WAVFixture(encoding: .int16, channels: 2, sampleRate: 44100, integers: quietValues)
        for fixture in [zero, quiet] {
            let converted = try convert(fixture.bytes(order: .little), options: Self.aac)
            #expect(converted.result.status == .converted, "\(converted.result.reason ?? "")")
            #expect(converted.result.frames == Int64(frames))
            let proof = try #require(converted.result.proof)
            #expect(proof.rule == "aac-lc-near-silent" && proof.peakLag == nil, "\(proof)")
        }
    }

    @Test("an audible decode against an all-zero source of the same length fails verify --against")
    func loudAgainstSilence() throws {
        let frames = 30000
        let converted = try convert(toneFixture(frames: frames, channels: 2, sampleRate: 44100).bytes(order: .little), options: Self.aac)
        let zero = WAVFixture(encoding: .int16, channels: 2, sampleRate: 44100, integers: [Int32](repeating: 0, count: frames * 2))
        let silent = converted.folder.write("zero.wav", zero.bytes(order: .little))
        let verdict = try #require(Verifier.verify(paths: [converted.path], options: VerifyOptions(against: silent)).files.first)
        #expect(!verdict.passed)
        #expect(verdict.failures.contains { $0.expected.contains("near-silent") }, "\(verdict.failures)")
    }

    @Test("a decode shifted against its source is still caught, after leading silence and a fade-in", arguments: [-700, -1, 1, 300, 1024])
    func shiftedDecodeIsCaught(shift: Int) throws {
        let noise = noiseFixture(frames: 40000, channels: 2, sampleRate: 44100).integers
        // 5000 zero frames, then noise fading in over 20000 frames.
        var source = [Float](repeating: 0, count: 5000 * 2)
        for index in 0..<noise.count { source.append(Float(noise[index]) / 32768 * min(1, Float(index / 2) / 20000)) }
        let frames = source.count / 2
        var output = [Float](repeating: 0, count: source.count)
        for frame in 0..<frames where frame - shift >= 0 && frame - shift < frames {
            output[2 * frame] = source[2 * (frame - shift)]
            output[2 * frame + 1] = source[2 * (frame - shift) + 1]
        }
        var accumulator = LossyComparison.Accumulator(channels: 2)
        var start = 0
        while start < frames {
            let count = min(3000, frames - start)
            accumulator.add(
                source: Array(source[2 * start..<2 * (start + count)]), output: Array(output[2 * start..<2 * (start + count)]),
                frames: count)
            start += count
        }
        let measured = accumulator.result()
        #expect(measured.peakLag == shift)
        #expect(measured.finding(snrFloor: 0) == .lag(shift))

        var aligned = LossyComparison.Accumulator(channels: 2)
        aligned.add(source: source, output: source, frames: frames)
        #expect(aligned.result().finding(snrFloor: 0) == nil)
    }

    @Test("the SNR and error level are every sample's, mono and stereo, whatever the blocks", arguments: [1, 2, 3])
    func sums(channels: Int) {
        var state: UInt32 = 7
        func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(Int32(bitPattern: state)) / Float(Int32.max) * 0.5
        }
        let frames = 20011
        let source = (0..<(frames * channels)).map { _ in next() }
        // A different error in every channel, so a channel left out of a sum shows.
        let output = source.enumerated().map { $0.element * 0.9 + Float($0.offset % channels + 1) * 0.001 }
        var signal = 0.0
        var noise = 0.0
        for (a, b) in zip(source, output) {
            signal += Double(a) * Double(a)
            noise += (Double(a) - Double(b)) * (Double(a) - Double(b))
        }
        var accumulator = LossyComparison.Accumulator(channels: channels)
        var start = 0
        for count in [1, 4095, 9000, 6915] {
            accumulator.add(
                source: Array(source[channels * start..<channels * (start + count)]),
                output: Array(output[channels * start..<channels * (start + count)]), frames: count)
            start += count
        }
        let measured = accumulator.result()
        #expect(abs((measured.snr ?? 0) - 10 * log10(signal / noise)) < 1e-9)
        #expect(abs(measured.errorLevel - 10 * log10(noise / Double(frames * channels))) < 1e-9)
        #expect(measured.peakLag == 0)
    }

    @Test("memory holds a few windows: a long source keeps its buffers bounded")
    func boundedWork() {
        var accumulator = LossyComparison.Accumulator(channels: 1)
        let block = [Float](repeating: 0.25, count: 65536)
        for _ in 0..<64 { accumulator.add(source: block, output: block, frames: block.count) }
        let measured = accumulator.result()
        #expect(accumulator.windowsJudged == 64 * 65536 / LossyComparison.window)
        #expect(measured.isNearSilent == false && measured.snr == .infinity)
    }

    /// White noise uniform in ±0.3, from a 64-bit linear congruential generator.
    struct Noise {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state) >> 11) / Float(1 << 52) * 0.3
        }
    }

    @Test(
        "noise rebuilt by energy (SNR near 0 dB) passes when its energy follows the source's, not when it is much quieter or silent",
        arguments: [(0.7, 0.7, true), (0.9, 0.0, true), (0.25, 0.25, false), (0.0, 0.0, false), (0.0, 1.0, false)])
    func noiseByEnvelope(kept: Float, substituted: Float, passes: Bool) throws {
        // Stereo white noise; the "decoding" keeps `kept` of it and adds `substituted` of other
        // noise (a codec's noise fill): SNR about 0 dB for 0.7/0.7, energy within 0.1 dB.
        var noise = Noise(seed: 3)
        func next() -> Float { noise.next() }
        let frames = 48_000
        let source = (0..<(2 * frames)).map { _ in next() }
        let output = source.map { $0 * kept + next() * substituted }
        var accumulator = LossyComparison.Accumulator(channels: 2)
        accumulator.add(source: source, output: output, frames: frames)
        let measured = accumulator.result()
        let snr = try #require(measured.roundedSNR)
        let floor = snr + 3
        #expect((measured.finding(snrFloor: floor) == nil) == passes, "SNR \(snr), envelope \(measured.envelopeError ?? .nan)")
        if passes { #expect(measured.envelopeNote(snrFloor: floor).contains("noise-like")) }
        // Above its floor, the envelope is not asked.
        if kept > 0 { #expect(measured.finding(snrFloor: snr - 1) == nil) }
    }

    @Test("noise whose decoding drops out for a window, or whose channels are swapped, does not pass by its envelope")
    func noiseDropoutOrSwap() throws {
        var noise = Noise(seed: 5)
        func next() -> Float { noise.next() }
        let frames = 96_000
        let source = (0..<(2 * frames)).map { _ in next() }
        var dropped = source.map { $0 * 0.7 + next() * 0.7 }
        for index in (2 * 40_000)..<(2 * 45_000) { dropped[index] = 0 }
        var swapped = source
        for frame in 0..<frames { swapped.swapAt(2 * frame, 2 * frame + 1) }
        for output in [dropped, swapped] {
            var accumulator = LossyComparison.Accumulator(channels: 2)
            accumulator.add(source: source, output: output, frames: frames)
            let measured = accumulator.result()
            let snr = try #require(measured.roundedSNR)
            #expect(measured.finding(snrFloor: snr + 3) != nil, "SNR \(snr), envelope \(measured.envelopeError ?? .nan)")
        }
    }
}

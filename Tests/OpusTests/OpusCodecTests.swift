import Foundation
import Opus
import Testing

/// The libopus binding: the encoder's packets, its look-ahead and its flushing, checked by
/// decoding with libopus's decoder (the normative reference decoder; the encoder under test is a
/// different part of the library).
@Suite("Opus binding")
struct OpusCodecTests {
    static let available = (try? LibOpus.load()) != nil

    /// A broadband test signal (a 300 Hz tone plus slowly swelling noise, a different noise per
    /// channel): a pure tone would let SILK's phase make a lag of one frame look as good as 0.
    static func tone(frames: Int, rate: Int, channels: Int) -> [Float] {
        var samples = [Float](repeating: 0, count: frames * channels)
        var state: UInt32 = 1
        for frame in 0..<frames {
            for channel in 0..<channels {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Double(Int32(bitPattern: state)) / Double(Int32.max) * 0.3 * sin(Double(frame) * 0.001)
                let phase = 2 * Double.pi * 300 * Double(channel + 1) * Double(frame) / Double(rate)
                samples[frame * channels + channel] = Float(noise + 0.3 * sin(phase))
            }
        }
        return samples
    }

    static func encode(_ samples: [Float], encoder: OpusEncoder, block: Int = 1000) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        let frames = samples.count / encoder.channels
        var start = 0
        while start < frames {
            let count = min(block, frames - start)
            let slice = Array(samples[(start * encoder.channels)..<((start + count) * encoder.channels)])
            try encoder.encode(slice, frames: count) { packets.append(Array($0)) }
            start += count
        }
        try encoder.finish { packets.append(Array($0)) }
        return packets
    }

    static func decode(_ packets: [[UInt8]], rate: Int, channels: Int) throws -> [Float] {
        let decoder = try OpusDecoder(sampleRate: rate, channels: channels)
        var out: [Float] = []
        var buffer: [Float] = []
        for packet in packets {
            let frames = try packet.withUnsafeBytes { try decoder.decode($0, into: &buffer) }
            out += buffer[0..<(frames * channels)]
        }
        return out
    }

    /// SNR in dB of `output` against `source` (same length).
    static func snr(_ source: ArraySlice<Float>, _ output: ArraySlice<Float>) -> Double {
        var signal = 0.0
        var noise = 0.0
        for (a, b) in zip(source, output) {
            signal += Double(a) * Double(a)
            noise += (Double(a) - Double(b)) * (Double(a) - Double(b))
        }
        return 10 * log10(signal / max(noise, 1e-30))
    }

    @Test(
        "the packets do not depend on how the input is cut into blocks", .enabled(if: available, "libopus is absent"),
        arguments: [1, 2])
    func blocks(channels: Int) throws {
        // Whole 20 ms frames at the start of a block are coded in place, others through the
        // pending frame: blocks of 960 x 5 take the first road only, 1000 and 2003 both, 7 the second.
        let source = Self.tone(frames: 960 * 23 + 11, rate: 48_000, channels: channels)
        var packets: [[[UInt8]]] = []
        for block in [960 * 5, 1000, 2003, 7] {
            let encoder = try OpusEncoder(
                sampleRate: 48_000, channels: channels, application: .audio, bitRate: 64_000 * channels, constantBitRate: false)
            packets.append(try Self.encode(source, encoder: encoder, block: block))
        }
        #expect(packets[0].count == 24)
        for other in packets.dropFirst() { #expect(other == packets[0]) }
    }

    @Test("the look-ahead is libopus's pre-skip: 312 frames at 48 kHz, 156 at 24 kHz", .enabled(if: available, "libopus is absent"))
    func lookahead() throws {
        let at48 = try OpusEncoder(sampleRate: 48_000, channels: 2, application: .audio, bitRate: 96_000, constantBitRate: false)
        #expect(at48.lookahead == 312 && at48.framesPerPacket == 960)
        let at24 = try OpusEncoder(sampleRate: 24_000, channels: 1, application: .voip, bitRate: nil, constantBitRate: false)
        #expect(at24.lookahead == 156 && at24.framesPerPacket == 480)
    }

    @Test(
        "packets cover every frame after the look-ahead and decode aligned",
        .enabled(if: available, "libopus is absent"),
        arguments: [(24_000, 1, OpusApplication.voip), (48_000, 2, OpusApplication.audio), (8000, 1, OpusApplication.voip)])
    func roundTrip(rate: Int, channels: Int, application: OpusApplication) throws {
        let frames = rate + 123
        let source = Self.tone(frames: frames, rate: rate, channels: channels)
        let encoder = try OpusEncoder(
            sampleRate: rate, channels: channels, application: application, bitRate: 48_000 * channels, constantBitRate: false)
        let packets = try Self.encode(source, encoder: encoder)
        let per = encoder.framesPerPacket
        #expect(packets.count == (frames + encoder.lookahead + per - 1) / per)
        #expect(encoder.inputFrames == Int64(frames))
        let decoded = try Self.decode(packets, rate: rate, channels: channels)
        #expect(decoded.count == packets.count * per * channels)
        // Dropping the look-ahead aligns the output with the source: the best SNR is at lag 0.
        let start = encoder.lookahead * channels
        let aligned = decoded[start..<(start + frames * channels)]
        let atZero = Self.snr(source[...], aligned)
        #expect(atZero > 5, "SNR \(atZero) dB")
        for lag in [-2, -1, 1, 2] {
            let shifted = decoded[(start + lag * channels)..<(start + (lag + frames - 4) * channels)]
            #expect(Self.snr(source[0..<((frames - 4) * channels)], shifted) < atZero, "lag \(lag)")
        }
    }

    @Test("-s 0: hard CBR makes every packet the same size", .enabled(if: available, "libopus is absent"))
    func constantBitRate() throws {
        var noise = [Float](repeating: 0, count: 48_000)
        var state: UInt32 = 12345
        for index in noise.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            noise[index] = Float(Int32(bitPattern: state)) / Float(Int32.max) * (index < 24_000 ? 0.01 : 0.8)
        }
        let cbr = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .audio, bitRate: 64_000, constantBitRate: true)
        let sizes = Set(try Self.encode(noise, encoder: cbr).map(\.count))
        #expect(sizes == [64_000 / 8 / 50])
        let vbr = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .audio, bitRate: 64_000, constantBitRate: false)
        #expect(Set(try Self.encode(noise, encoder: vbr).map(\.count)).count > 1)
    }

    @Test("no input, no packet; a bad rate or channel count is refused with a sentence", .enabled(if: available, "libopus is absent"))
    func edges() throws {
        let encoder = try OpusEncoder(sampleRate: 16_000, channels: 1, application: .voip, bitRate: nil, constantBitRate: false)
        #expect(try Self.encode([], encoder: encoder).isEmpty)
        #expect(throws: OpusError.self) {
            try OpusEncoder(sampleRate: 44_100, channels: 1, application: .audio, bitRate: nil, constantBitRate: false)
        }
        #expect(throws: OpusError.self) {
            try OpusEncoder(sampleRate: 48_000, channels: 3, application: .audio, bitRate: nil, constantBitRate: false)
        }
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        var buffer: [Float] = []
        let garbage: [UInt8] = [0xff, 0xff, 0xff]
        #expect(throws: OpusError.self) { try garbage.withUnsafeBytes { try decoder.decode($0, into: &buffer) } }
        #expect(LibOpus.version.hasPrefix("libopus"))
    }
}

import BinaryIO
import Foundation
import TestSupport
import Testing

@testable import CAFKit

// MARK: - Signals and helpers

/// Deterministic test signals, interleaved 16-bit.
enum IMA4Signal {
    /// A sine of `hertz` at `amplitude` (0-1) on every channel, each channel a little out of phase.
    static func sine(frames: Int, channels: Int = 1, hertz: Double = 1000, amplitude: Double = 0.5, rate: Double = 44_100)
        -> [Int16]
    {
        var samples: [Int16] = []
        samples.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let phase = 2 * Double.pi * hertz * Double(frame) / rate + Double(channel) * 0.7
                samples.append(Int16((amplitude * 32767 * sin(phase)).rounded()))
            }
        }
        return samples
    }

    /// White noise at `amplitude` (0-1).
    static func noise(frames: Int, channels: Int = 1, amplitude: Double = 0.3, seed: UInt64 = 7) -> [Int16] {
        var generator = SplitMix64(seed: seed)
        return (0..<frames * channels).map { _ in
            Int16((Double.random(in: -1...1, using: &generator) * amplitude * 32767).rounded())
        }
    }

    /// A logarithmic sweep from 20 Hz to 20 kHz at -2 dBFS.
    static func sweep(frames: Int, rate: Double = 44_100) -> [Int16] {
        let seconds = Double(frames) / rate
        let k = log(20_000.0 / 20.0)
        let amplitude = 32767 * pow(10, -2.0 / 20)
        return (0..<frames).map { index in
            let t = Double(index) / rate
            let phase = 2 * Double.pi * 20 * seconds / k * (exp(t / seconds * k) - 1)
            return Int16((amplitude * sin(phase)).rounded())
        }
    }

    /// Signal-to-noise ratio in dB of `decoded` against `source` over the source's length.
    static func snr(_ source: [Int16], _ decoded: [Int16]) -> Double {
        var signal = 0.0
        var noise = 0.0
        for (s, d) in zip(source, decoded) {
            signal += Double(s) * Double(s)
            noise += (Double(s) - Double(d)) * (Double(s) - Double(d))
        }
        return noise == 0 ? .infinity : 10 * log10(signal / noise)
    }
}

/// Every packet's samples (no trim) of IMA4 audio bytes.
func decodeAllPackets(_ audio: ArraySlice<UInt8>, channels: Int, rule: IMA4Decoder.PreambleRule = .continueWhenClose)
    -> [Int16]
{
    var decoder = IMA4Decoder(channels: channels, rule: rule)
    var output: [Int16] = []
    decoder.decode(audio, appendingTo: &output)
    return output
}

/// The samples ffmpeg's `adpcm_ima_qt` decoder makes of the file at `path` (every packet: ffmpeg
/// ignores `pakt`).
func ffmpegDecode(_ path: String) throws -> [Int16] {
    let ffmpeg = try #require(which("ffmpeg"))
    let result = try run(ffmpeg, ["-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-"])
    try #require(result.status == 0, "ffmpeg failed: \(result.stderr)")
    return stride(from: 0, to: result.stdout.count - 1, by: 2).map {
        Int16(bitPattern: UInt16(result.stdout[$0]) | UInt16(result.stdout[$0 + 1]) << 8)
    }
}

/// Where two sample arrays first differ (or their lengths, when one is a prefix of the other);
/// `nil` when equal. Expectations compare through this, so that a failure on a long array
/// reports one index instead of a diff of a million elements.
func firstDifference(_ a: [Int16], _ b: [Int16]) -> String? {
    if let index = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
        return "sample \(index): \(a[index]) vs \(b[index])"
    }
    return a.count == b.count ? nil : "lengths \(a.count) vs \(b.count)"
}

/// A CAF file's audio bytes.
func audioBytes(of bytes: [UInt8]) throws -> ArraySlice<UInt8> {
    let file = try CAFFile(reading: MemoryByteSource(bytes))
    return bytes[Int(file.audioOffset)..<Int(file.audioOffset + file.audioBytes)]
}

// MARK: - Decoder

@Suite("IMA4 decoder")
struct IMA4DecoderTests {
    /// One mono packet from a preamble and 64 codes.
    static func packet(predictor: Int32, index: Int32, codes: [UInt8]) -> [UInt8] {
        let (high, low) = IMA4.preamble(predictor: predictor, stepIndex: index)
        var bytes = [high, low]
        for pair in 0..<32 { bytes.append(codes[2 * pair] & 0xF | (codes[2 * pair + 1] & 0xF) << 4) }
        return bytes
    }

    @Test("codes are read low nibble first, with the shift-and-add difference and the index table")
    func handComputedPacket() {
        // From predictor 0, index 0 (step 7): code 7 adds 0 + 7 + 3 + 1 = 11 and moves the index
        // by +8 (step 16); code 0x9 (negative, magnitude 1) then subtracts 2 + 4 = 6 and moves it by -1
        // (step 14); code 4 adds 1 + 14 = 15 and moves it by +2 (step 17).
        var codes = [UInt8](repeating: 0, count: 64)
        codes[0] = 7
        codes[1] = 0x9
        codes[2] = 4
        let decoded = decodeAllPackets(Self.packet(predictor: 0, index: 0, codes: codes)[...], channels: 1)
        #expect(Array(decoded.prefix(3)) == [11, 5, 20])
        // Code 0 at step 17 adds 17 >> 3 = 2 and moves the index down by one each time.
        #expect(decoded[3] == 22)
        #expect(decoded.count == 64)
    }

    @Test("the preamble holds the predictor's top 9 bits and a 7-bit index; predictor and index are clamped")
    func preambleAndClamping() {
        // Predictor 0x7F80 (the largest), index 88 (step 32767): code 7 would overflow 16 bits.
        var codes = [UInt8](repeating: 7, count: 64)
        var decoded = decodeAllPackets(Self.packet(predictor: 32767, index: 88, codes: codes)[...], channels: 1)
        #expect(decoded.allSatisfy { $0 == 32767 })
        codes = [UInt8](repeating: 0xF, count: 64)
        decoded = decodeAllPackets(Self.packet(predictor: -32768, index: 88, codes: codes)[...], channels: 1)
        #expect(decoded.allSatisfy { $0 == -32768 })
        // A preamble index above 88 (0x7F) is read as 88: the first code 1 then adds 4095 + 8191.
        var bytes = Self.packet(predictor: 0, index: 0, codes: [1] + [UInt8](repeating: 0, count: 63))
        bytes[1] = 0x7F
        decoded = decodeAllPackets(bytes[...], channels: 1)
        #expect(decoded[0] == 32767 >> 3 + 32767 >> 2)
        #expect(IMA4.parsePreamble(0xFF, 0xFF) == (-128, 127))
        #expect(IMA4.parsePreamble(0x12, 0xB4) == (0x1280, 0x34))
    }

    @Test("ffmpeg's rule keeps the full predictor when the preamble rounds it; the reload rule does not")
    func preambleRules() {
        // Packet 1 ends at predictor 11 * 64 = 704 with index 0 after 64 codes... computed below.
        let first = Self.packet(predictor: 0, index: 0, codes: [UInt8](repeating: 1, count: 64))
        var state = IMA4.ChannelState()
        for _ in 0..<64 { _ = state.expand(1) }
        #expect(state.predictor & 0x7F != 0, "the test needs an end predictor that is not a multiple of 128")
        let second = Self.packet(predictor: state.predictor, index: state.stepIndex, codes: [UInt8](repeating: 0, count: 64))
        let bytes = (first + second)[...]
        let ffmpegRule = decodeAllPackets(bytes, channels: 1, rule: .continueWhenClose)
        let reloadRule = decodeAllPackets(bytes, channels: 1, rule: .reload)
        #expect(ffmpegRule[64] == Int16(state.predictor + 0))  // step 7 >> 3 = 0 added to the kept predictor
        #expect(reloadRule[64] == Int16(state.predictor & ~0x7F))
        // A different index makes both reload.
        let third = Self.packet(predictor: state.predictor, index: state.stepIndex + 1, codes: [UInt8](repeating: 0, count: 64))
        let other = (first + third)[...]
        #expect(
            decodeAllPackets(other, channels: 1, rule: .continueWhenClose) == decodeAllPackets(other, channels: 1, rule: .reload))
    }

    @Test("channels are interleaved per packet, 34 bytes each, and samples come out interleaved per frame")
    func channelInterleaving() {
        let left = Self.packet(predictor: 1024, index: 10, codes: [UInt8](repeating: 0, count: 64))
        let right = Self.packet(predictor: -2048, index: 20, codes: [UInt8](repeating: 8, count: 64))
        let decoded = decodeAllPackets((left + right)[...], channels: 2)
        let leftAlone = decodeAllPackets(left[...], channels: 1)
        let rightAlone = decodeAllPackets(right[...], channels: 1)
        #expect(decoded.count == 128)
        #expect(stride(from: 0, to: 128, by: 2).map { decoded[$0] } == leftAlone)
        #expect(stride(from: 1, to: 128, by: 2).map { decoded[$0] } == rightAlone)
        // A partial packet at the end is ignored.
        var decoder = IMA4Decoder(channels: 2)
        var output: [Int16] = []
        #expect(decoder.decode((left + right + left)[...], appendingTo: &output) == 1)
        #expect(output == decoded)
    }

    static let corpusIMA4: [String] = {
        guard let oracle = try? RepositoryPaths.oracle() else { return [] }
        return oracle.keys.sorted().filter { oracle[$0]?["format"] as? String == "ima4" }
    }()

    @Test(
        "bit-exact with ffmpeg's adpcm_ima_qt on every IMA4 file of the real corpus",
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"),
        .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed"))
    func corpusMatchesFFmpeg() throws {
        #expect(Self.corpusIMA4.count >= 3, "the corpus should hold Apple's IMA4 files")
        let oracle = try RepositoryPaths.oracle()
        for name in Self.corpusIMA4 {
            let path = (RepositoryPaths.realCorpus ?? "") + "/" + name
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let file = try CAFFile(reading: MemoryByteSource(bytes))
            let channels = Int(file.audioDescription.channelsPerFrame)
            let reference = try ffmpegDecode(path)
            // Every packet, padding included, as ffmpeg decodes it.
            let all = decodeAllPackets(try audioBytes(of: bytes), channels: channels)
            #expect(firstDifference(all, reference) == nil, "\(name): differs from ffmpeg")
            // The trimmed stream: exactly the valid frames the oracle names, a prefix of the above.
            let stream = try IMA4Stream(file)
            let trimmed = try stream.decodeAll(from: MemoryByteSource(bytes))
            #expect(trimmed.count / channels == oracle[name]?["frames"] as? Int, "\(name)")
            #expect(firstDifference(Array(reference.prefix(trimmed.count)), trimmed) == nil, "\(name)")
        }
    }
}

// MARK: - Streaming reader

@Suite("IMA4 stream")
struct IMA4StreamTests {
    @Test("blocks of any size give the same samples, trimmed to the valid frames", arguments: [1, 2, 7, 1024])
    func blockSizes(packetsPerBlock: Int) throws {
        let samples = IMA4Signal.noise(frames: 1000, channels: 2)
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: 2, samples: samples)
        let stream = try IMA4Stream(try CAFFile(reading: MemoryByteSource(bytes)))
        var blocks: [ArraySlice<Int16>] = []
        try stream.decode(from: MemoryByteSource(bytes), packetsPerBlock: packetsPerBlock) { blocks.append($0) }
        let joined = blocks.flatMap { $0 }
        #expect(joined.count == 2000)
        #expect(firstDifference(joined, Array(decodeAllPackets(try audioBytes(of: bytes), channels: 2).prefix(2000))) == nil)
        #expect(blocks.allSatisfy { $0.count <= packetsPerBlock * 64 * 2 })
    }

    @Test("a block holds at most about 1 MiB of packets, whatever the channel count")
    func boundedBlocks() throws {
        let channels = 100
        let samples = IMA4Signal.noise(frames: 64 * 400, channels: channels, amplitude: 0.1)
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 8000, channels: channels, samples: samples, options: .greedy)
        let stream = try IMA4Stream(try CAFFile(reading: MemoryByteSource(bytes)))
        var largest = 0
        var total = 0
        try stream.decode(from: MemoryByteSource(bytes)) { block in
            largest = max(largest, block.count)
            total += block.count
        }
        let packetsPerBlock = IMA4Stream.maxBlockBytes / (34 * channels)
        #expect(largest == packetsPerBlock * 64 * channels)
        #expect(total == samples.count)
    }

    @Test("priming frames are dropped and the remainder is never delivered")
    func primingTrim() throws {
        // A hand-made file: 3 packets, pakt with 10 priming, 150 valid, 32 remainder.
        let samples = IMA4Signal.sine(frames: 192)
        var bytes = try CAFWriter.ima4Bytes(sampleRate: 8000, channels: 1, samples: samples)
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let pakt = try #require(file.packetTableChunk)
        var writer = ByteWriter()
        PacketTableHeader(numberPackets: 3, numberValidFrames: 150, primingFrames: 10, remainderFrames: 32).write(to: &writer)
        bytes.replaceSubrange(Int(pakt.bodyOffset)..<Int(pakt.bodyOffset) + 24, with: writer.bytes)
        let stream = try IMA4Stream(try CAFFile(reading: MemoryByteSource(bytes)))
        let trimmed = try stream.decodeAll(from: MemoryByteSource(bytes))
        let all = decodeAllPackets(try audioBytes(of: bytes), channels: 1)
        #expect(trimmed == Array(all[10..<160]))
    }

    @Test("a truncated file, a pakt that asks for more frames than the packets hold, and non-IMA4 are refused")
    func refused() throws {
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 8000, channels: 1, samples: IMA4Signal.sine(frames: 640))
        // Cut the last packet in half: the pakt's 640 valid frames no longer fit.
        let cut = Array(bytes.dropLast(17))
        var file = try CAFFile(reading: MemoryByteSource(cut))
        #expect(throws: CAFError.self) { try IMA4Stream(file) }
        do {
            _ = try IMA4Stream(file)
        } catch {
            #expect(error.kind == .truncated)
            #expect(error.message.contains("9 whole packets"))
        }
        // Negative pakt counts.
        var negative = bytes
        file = try CAFFile(reading: MemoryByteSource(bytes))
        let pakt = try #require(file.packetTableChunk)
        negative.replaceSubrange(Int(pakt.bodyOffset) + 16..<Int(pakt.bodyOffset) + 20, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: CAFError.self) { try IMA4Stream(try CAFFile(reading: MemoryByteSource(negative))) }
        // Linear PCM and a wrong packet size.
        let pcm = caf([desc(), data(16)])
        #expect(throws: CAFError.self) { try IMA4Stream(try CAFFile(reading: MemoryByteSource(pcm))) }
        let wrong = AudioDescription(
            sampleRate: 8000, formatID: .ima4, formatFlags: 0, bytesPerPacket: 36, framesPerPacket: 64,
            channelsPerFrame: 1, bitsPerChannel: 0)
        let odd = caf([.description(wrong), data(36)])
        #expect(throws: CAFError.self) { try IMA4Stream(try CAFFile(reading: MemoryByteSource(odd))) }
    }

    @Test("without pakt (as ffmpeg writes IMA4) every frame of every whole packet counts")
    func withoutPacketTable() throws {
        let description = AudioDescription(
            sampleRate: 8000, formatID: .ima4, formatFlags: 0, bytesPerPacket: 68, framesPerPacket: 64,
            channelsPerFrame: 2, bitsPerChannel: 0)
        let bytes = caf([.description(description), data(68 * 3 + 5)])
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        #expect(file.validFrames == 192)
        let stream = try IMA4Stream(file)
        #expect(stream.validFrames == 192 && stream.strayBytes == 5 && stream.packets == 3)
        #expect(try stream.decodeAll(from: MemoryByteSource(bytes)).count == 384)
    }
}

// MARK: - Encoder

@Suite("IMA4 encoder")
struct IMA4EncoderTests {
    static func roundTrip(_ samples: [Int16], channels: Int, options: IMA4Encoder.Options = .standard) throws -> [Int16] {
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: channels, samples: samples, options: options)
        return try IMA4Stream(try CAFFile(reading: MemoryByteSource(bytes))).decodeAll(from: MemoryByteSource(bytes))
    }

    struct Floor: Sendable, CustomTestStringConvertible {
        var name: String
        var samples: [Int16]
        var channels: Int
        /// The SNR the default search must reach.
        var floor: Double
        /// How much better than greedy coding it must be.
        var gain: Double
        var testDescription: String { name }
    }

    static let floors: [Floor] = [
        Floor(name: "1 kHz sine, -6 dBFS", samples: IMA4Signal.sine(frames: 22_050), channels: 1, floor: 39, gain: 1.0),
        Floor(
            name: "white noise, stereo", samples: IMA4Signal.noise(frames: 11_025, channels: 2), channels: 2, floor: 16.5,
            gain: 1.3),
        Floor(
            name: "20 Hz-20 kHz sweep, -2 dBFS", samples: IMA4Signal.sweep(frames: 22_050), channels: 1, floor: 25.5, gain: 2.5),
    ]

    @Test("round trip reaches its SNR floor and beats greedy coding", arguments: floors)
    func snrFloors(signal: Floor) throws {
        let searched = try Self.roundTrip(signal.samples, channels: signal.channels)
        let greedy = try Self.roundTrip(signal.samples, channels: signal.channels, options: .greedy)
        #expect(searched.count == signal.samples.count)
        let snr = IMA4Signal.snr(signal.samples, searched)
        let greedySNR = IMA4Signal.snr(signal.samples, greedy)
        #expect(snr >= signal.floor, "SNR \(snr) dB")
        #expect(snr >= greedySNR + signal.gain, "search \(snr) dB, greedy \(greedySNR) dB")
    }

    @Test("a wider search is never worse on noise")
    func widerIsBetter() throws {
        let samples = IMA4Signal.noise(frames: 6400, amplitude: 0.5, seed: 11)
        let narrow = IMA4Signal.snr(samples, try Self.roundTrip(samples, channels: 1, options: .init(searchWidth: 2)))
        let wide = IMA4Signal.snr(samples, try Self.roundTrip(samples, channels: 1, options: .init(searchWidth: 24)))
        #expect(wide > narrow + 0.8, "width 2: \(narrow) dB, width 24: \(wide) dB")
    }

    @Test("every packet starts from a state that ffmpeg's and the reload rule decode alike")
    func continuationStartsAreUnambiguous() {
        var generator = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let end = IMA4.ChannelState(
                predictor: Int32.random(in: -32768...32767, using: &generator),
                stepIndex: Int32.random(in: 0...88, using: &generator))
            let starts = IMA4Encoder.continuationStarts(
                after: end, next: Int32.random(in: -32768...32767, using: &generator),
                following: Int32.random(in: -32768...32767, using: &generator))
            #expect(!starts.isEmpty)
            for start in starts {
                let (high, low) = IMA4.preamble(predictor: start.predictor, stepIndex: start.stepIndex)
                let (predictor, index) = IMA4.parsePreamble(high, low)
                #expect(predictor == start.predictor && index == start.stepIndex, "the preamble must hold the start exactly")
                // ffmpeg keeps its own predictor only when the index matches and the preamble is within 127.
                let ffmpegKeeps = index == end.stepIndex && abs(predictor - end.predictor) <= 0x7F
                #expect(!ffmpegKeeps || predictor == end.predictor, "end \(end), start \(start)")
            }
        }
    }

    @Test("our files decode the same under ffmpeg's rule and the reload rule")
    func ruleIndependentOutput() throws {
        let samples = IMA4Signal.noise(frames: 5000, channels: 2) + IMA4Signal.sine(frames: 5000, channels: 2)
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: 2, samples: samples)
        let audio = try audioBytes(of: bytes)
        #expect(
            firstDifference(
                decodeAllPackets(audio, channels: 2, rule: .continueWhenClose),
                decodeAllPackets(audio, channels: 2, rule: .reload))
                == nil)
    }

    @Test("the first packet's step index fits the signal: large for a loud attack, small for a quiet start")
    func firstStepIndex() throws {
        let loud = [Int16](repeating: 0, count: 1) + [Int16](repeating: 30000, count: 63) + [Int16](repeating: -30000, count: 64)
        var bytes = try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: 1, samples: loud)
        var audio = try audioBytes(of: bytes)
        #expect(IMA4.parsePreamble(audio[audio.startIndex], audio[audio.startIndex + 1]).stepIndex > 40)
        let quiet = IMA4Signal.sine(frames: 128, amplitude: 0.0005)
        bytes = try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: 1, samples: quiet)
        audio = try audioBytes(of: bytes)
        #expect(IMA4.parsePreamble(audio[audio.startIndex], audio[audio.startIndex + 1]).stepIndex < 10)
        // And the loud start is coded better than from index 0, where ffmpeg starts.
        let decoded = decodeAllPackets(
            try audioBytes(of: try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: 1, samples: loud)), channels: 1)
        #expect(IMA4Signal.snr(loud, decoded) > 30)
    }

    @Test("float and 32-bit input are rounded to 16 bits and then coded like 16-bit input")
    func otherInputTypes() {
        // Starts with a constant 24576 (0.75 full scale), which codes exactly: a scale off by one
        // LSB would change the first preamble.
        let samples = [Int16](repeating: 24576, count: 128) + IMA4Signal.sine(frames: 236, channels: 2)
        var reference = IMA4Encoder(channels: 2)
        var expected: [UInt8] = []
        reference.encode(samples, appendingTo: &expected)
        reference.finish(appendingTo: &expected)
        var floats = IMA4Encoder(channels: 2)
        var fromFloats: [UInt8] = []
        floats.encode(floats: samples.map { Float($0) / 32768 }, appendingTo: &fromFloats)
        floats.finish(appendingTo: &fromFloats)
        var ints = IMA4Encoder(channels: 2)
        var fromInts: [UInt8] = []
        ints.encode(int32: samples.map { Int32($0) << 16 | 0x7FFF }, appendingTo: &fromInts)
        ints.finish(appendingTo: &fromInts)
        #expect(fromFloats == expected)
        #expect(fromInts == expected)
        #expect(expected.count == 5 * 68)
    }

    @Test("the output does not depend on how the input is split into blocks")
    func blockIndependence() throws {
        let samples = IMA4Signal.noise(frames: 1000, channels: 3)
        var whole = IMA4Encoder(channels: 3)
        var expected: [UInt8] = []
        whole.encode(samples, appendingTo: &expected)
        whole.finish(appendingTo: &expected)
        var pieces = IMA4Encoder(channels: 3)
        var output: [UInt8] = []
        var start = 0
        for size in [1, 2, 191, 7, 500, 2299] {
            pieces.encode(samples[start..<min(start + size, samples.count)], appendingTo: &output)
            start = min(start + size, samples.count)
        }
        pieces.finish(appendingTo: &output)
        #expect(output == expected)
    }
}

// MARK: - Cross-check with ffmpeg

@Suite("IMA4 against ffmpeg", .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed"))
struct IMA4FFmpegTests {
    // ffmpeg 5.1's adpcm_ima_qt decoder refuses more than 2 channels ("Invalid number of
    // channels"); 6-channel files are checked by IMA4LayoutTests.
    @Test("ffmpeg decodes our files to exactly what our decoder makes", arguments: [1, 2])
    func ourOutputMatchesFFmpeg(channels: Int) throws {
        let frames = 3000 + channels
        let samples = IMA4Signal.noise(frames: frames, channels: channels, seed: UInt64(channels))
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 22_050, channels: channels, samples: samples)
        let directory = TempDirectory("ima4")
        let path = directory.write("out.caf", bytes)
        let reference = try ffmpegDecode(path)
        let packets = decodeAllPackets(try audioBytes(of: bytes), channels: channels)
        #expect(firstDifference(reference, packets) == nil)
        let trimmed = try IMA4Stream(try CAFFile(reading: MemoryByteSource(bytes))).decodeAll(from: MemoryByteSource(bytes))
        #expect(trimmed.count == frames * channels)
        #expect(firstDifference(Array(reference.prefix(trimmed.count)), trimmed) == nil)
    }
}

// MARK: - CAF layout

@Suite("IMA4 CAF layout")
struct IMA4LayoutTests {
    @Test(
        "the header is byte for byte the one afconvert wrote for Apple's IMA4 files",
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func sameHeaderAsApple() throws {
        let folder = RepositoryPaths.realCorpus ?? ""
        let cases: [(String, InfoStrings?)] = [
            ("CocoaMiners_AppSoundEngine__touch.caf", nil),
            ("ooper-shlab_oalTouch-Swift__sound.caf", nil),
            (
                "philosopherdog_W7D1-LHL-Lecture-UNUserNotifications__sound.caf",
                InfoStrings([
                    InfoEntry(key: "approximate duration in seconds", value: "13.714"),
                    InfoEntry(key: "source bit depth", value: "I16"),
                ])
            ),
        ]
        for (name, info) in cases {
            let apple = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            let file = try CAFFile(reading: MemoryByteSource(apple))
            let frames = try #require(file.validFrames)
            let ours = CAFWriter.ima4Header(
                sampleRate: file.audioDescription.sampleRate, channels: Int(file.audioDescription.channelsPerFrame),
                frames: frames,
                info: info)
            #expect(ours.count == 4096)
            #expect(ours == Array(apple.prefix(4096)), "\(name): header differs from Apple's")
            // And the whole file is as long as Apple's: same packet count.
            let packets = IMA4.packets(forFrames: frames)
            #expect(UInt64(apple.count) == 4096 + packets * UInt64(file.audioDescription.bytesPerPacket))
        }
    }

    struct Length: Sendable, CustomTestStringConvertible {
        var frames: Int
        var channels: Int
        var testDescription: String { "\(frames) frames, \(channels) ch" }
    }

    static let lengths: [Length] = [
        Length(frames: 1, channels: 1), Length(frames: 63, channels: 2), Length(frames: 64, channels: 1),
        Length(frames: 65, channels: 6), Length(frames: 100_000, channels: 2), Length(frames: 0, channels: 1),
    ]

    @Test("layout, pakt arithmetic and exact decoded length", arguments: lengths)
    func layout(length: Length) throws {
        let channels = length.channels
        let samples = IMA4Signal.sine(frames: length.frames, channels: channels, hertz: 440)
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 48_000, channels: channels, samples: samples)
        let packets = (length.frames + 63) / 64
        let remainder = packets * 64 - length.frames
        #expect(bytes.count == 4096 + packets * 34 * channels)
        let document = try CAFDocument(reading: MemoryByteSource(bytes), loadingAudio: true)
        #expect(document.contents.chunks.map(\.type) == [.desc, .pakt, .free, .data])
        let description = try #require(document.contents.audioDescription)
        #expect(
            description
                == AudioDescription(
                    sampleRate: 48_000, formatID: .ima4, formatFlags: 0, bytesPerPacket: UInt32(34 * channels),
                    framesPerPacket: 64, channelsPerFrame: UInt32(channels), bitsPerChannel: 0))
        let pakt = try #require(document.contents.packetTable)
        #expect(
            pakt.header
                == PacketTableHeader(
                    numberPackets: 0, numberValidFrames: Int64(length.frames), primingFrames: 0, remainderFrames: Int32(remainder)
                ))
        #expect(pakt.entries.isEmpty)
        #expect(document.file.audioOffset == 4096 && document.file.editCount == 1)
        #expect(document.file.validFrames == UInt64(length.frames))
        #expect(CAFValidator.validate(document).isEmpty, "\(CAFValidator.validate(document))")
        let decoded = try IMA4Stream(document.file).decodeAll(from: MemoryByteSource(bytes))
        #expect(decoded.count == length.frames * channels)
        if length.frames >= 64 { #expect(IMA4Signal.snr(samples, decoded) > 25) }
    }

    @Test("each channel's 34 bytes sit at its place in every packet (6 channels)")
    func sixChannelPacketLayout() throws {
        // Channel c is a constant c * 4000 - 10000: each 34-byte slice must decode to it alone.
        let frames = 200
        var samples: [Int16] = []
        for _ in 0..<frames { for channel in 0..<6 { samples.append(Int16(channel * 4000 - 10000)) } }
        let bytes = try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: 6, samples: samples)
        let audio = try audioBytes(of: bytes)
        #expect(audio.count == 4 * 6 * 34)
        for packet in 1..<4 {
            for channel in 0..<6 {
                let start = audio.startIndex + packet * 204 + channel * 34
                let slice = audio[start..<start + 34]
                let (predictor, _) = IMA4.parsePreamble(slice[start], slice[start + 1])
                #expect(abs(Int(predictor) - (channel * 4000 - 10000)) < 256, "packet \(packet) channel \(channel)")
            }
        }
        let decoded = try IMA4Stream(try CAFFile(reading: MemoryByteSource(bytes))).decodeAll(from: MemoryByteSource(bytes))
        for channel in 0..<6 {
            let values = stride(from: channel + 6 * 64, to: decoded.count, by: 6).map { Int(decoded[$0]) }
            #expect(values.allSatisfy { abs($0 - (channel * 4000 - 10000)) < 40 }, "channel \(channel)")
        }
    }

    @Test("a channel layout goes after desc and the audio still starts at 4096")
    func channelLayoutChunk() throws {
        let layout = ChannelLayout(tag: (121 << 16) | 6, bitmap: 0, descriptions: [])  // 5.1 (A)
        let bytes = try CAFWriter.ima4Bytes(
            sampleRate: 48_000, channels: 6, samples: IMA4Signal.sine(frames: 64, channels: 6), channelLayout: layout)
        let document = try CAFDocument(reading: MemoryByteSource(bytes), loadingAudio: true)
        #expect(document.contents.chunks.map(\.type) == [.desc, .chan, .pakt, .free, .data])
        #expect(document.contents.channelLayout == layout)
        #expect(document.file.audioOffset == 4096)
    }

    @Test("the writer refuses input that does not match the frames announced")
    func frameCountMismatch() {
        for (announced, given) in [(100, 99), (100, 101)] {
            var sent = false
            #expect(throws: IMA4WriteError.self) {
                try CAFWriter.writeIMA4(
                    sampleRate: 8000, channels: 1, frames: UInt64(announced),
                    nextBlock: {
                        defer { sent = true }
                        return sent ? [] : IMA4Signal.sine(frames: given)[...]
                    },
                    to: { _ in })
            }
        }
        #expect(throws: IMA4WriteError.self) { try CAFWriter.ima4Bytes(sampleRate: 8000, channels: 2, samples: [1, 2, 3]) }
        #expect(throws: IMA4WriteError.self) { try CAFWriter.ima4Bytes(sampleRate: .nan, channels: 1, samples: [1]) }
        #expect(throws: IMA4WriteError.self) { try CAFWriter.ima4Bytes(sampleRate: 8000, channels: 0, samples: []) }
    }
}

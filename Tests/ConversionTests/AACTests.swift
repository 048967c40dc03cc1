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

/// Whether libavcodec can be loaded: the AAC tests skip (never fail) without it.
let libavcodecPresent = LibAVCodec.isAvailable
let libavcodecAbsent = "libavcodec cannot be loaded (Debian libavcodec59; `make test` installs libavcodec-dev): AAC tests skipped"

/// A signal AAC codes well: two tones per channel (different per channel) under a slow
/// envelope, starting at a non-zero sample so that even a 1-frame file has sound.
func toneFixture(frames: Int, channels: Int, sampleRate: Int) -> WAVFixture {
    var values: [Int32] = []
    values.reserveCapacity(frames * channels)
    for frame in 0..<frames {
        let t = Double(frame) / Double(sampleRate)
        for channel in 0..<channels {
            let f1 = 440.0 * Double(channel + 1)
            let f2 = 1234.5 + 100 * Double(channel)
            let envelope = 0.6 + 0.3 * cos(2 * .pi * 1.7 * t)
            let v = envelope * (0.6 * cos(2 * .pi * f1 * t) + 0.3 * sin(2 * .pi * f2 * t + 0.5))
            values.append(Int32((v * 32767).rounded()))
        }
    }
    return WAVFixture(encoding: .int16, channels: channels, sampleRate: sampleRate, integers: values)
}

/// Aperiodic audio (seeded noise through a one-pole low-pass, under a slow envelope): its
/// cross-correlation has one clear peak, unlike tones, which correlate as well a period off.
func noiseFixture(frames: Int, channels: Int, sampleRate: Int) -> WAVFixture {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var lowPassed = [Double](repeating: 0, count: channels)
    var values: [Int32] = []
    values.reserveCapacity(frames * channels)
    for frame in 0..<frames {
        let envelope = 0.5 + 0.4 * sin(2 * .pi * 2.3 * Double(frame) / Double(sampleRate))
        for channel in 0..<channels {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let white = Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)
            lowPassed[channel] = 0.8 * lowPassed[channel] + 0.2 * white
            values.append(Int32((envelope * lowPassed[channel] * 2 * 32767).rounded().clamped(-32768, 32767)))
        }
    }
    return WAVFixture(encoding: .int16, channels: channels, sampleRate: sampleRate, integers: values)
}

extension Double {
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}

/// Decodes an AAC CAF held in memory independently of cafconv's `AACFileDecoder`: CAFKit's
/// whole-document parser for the packet table, `AACDecoder` for the packets; returns every frame
/// the decoder gives (priming included) and the pakt header.
func independentDecode(_ bytes: [UInt8]) throws -> (samples: [Float], header: PacketTableHeader, channels: Int) {
    let document = try CAFDocument(reading: MemoryByteSource(bytes))
    let table = try #require(document.contents.packetTable)
    let cookie = try #require(document.contents.magicCookie)
    let config = try #require(independentASC(cookie.bytes))
    let desc = document.file.audioDescription
    let decoder = try AACDecoder(
        config: config, sampleRate: Int(desc.sampleRate), channels: Int(desc.channelsPerFrame))
    var offset = Int(document.file.audioOffset)
    var output: [Float] = []
    for entry in table.entries {
        let size = Int(try #require(entry.byteSize))
        try decoder.decode(Array(bytes[offset..<offset + size]), into: &output)
        offset += size
    }
    try decoder.finish(into: &output)
    return (output, table.header, Int(desc.channelsPerFrame))
}

/// The test's own ES_Descriptor reader (not CAFKit's): the AudioSpecificConfig, or `nil` when the
/// bytes are not an ES_Descriptor holding a DecoderConfigDescriptor for MPEG-4 audio.
func independentASC(_ bytes: [UInt8]) -> [UInt8]? {
    var index = 0
    func header() -> (tag: UInt8, length: Int)? {
        guard index < bytes.count else { return nil }
        let tag = bytes[index]
        index += 1
        var length = 0
        for _ in 0..<4 {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            length = length << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { return (tag, length) }
        }
        return nil
    }
    guard let es = header(), es.tag == 0x03, es.length == bytes.count - index else { return nil }
    guard index + 3 <= bytes.count, bytes[index + 2] == 0 else { return nil }  // ES_ID, no flags
    index += 3
    guard let config = header(), config.tag == 0x04, index + 13 <= bytes.count else { return nil }
    guard bytes[index] == 0x40, bytes[index + 1] >> 2 == 5 else { return nil }  // MPEG-4 audio stream
    index += 13
    guard let info = header(), info.tag == 0x05, index + info.length <= bytes.count else { return nil }
    let asc = Array(bytes[index..<index + info.length])
    index += info.length
    guard let sl = header(), sl.tag == 0x06, sl.length == 1, index < bytes.count, bytes[index] == 2 else { return nil }
    return asc
}

/// The lag of the cross-correlation peak of two mono signals over `lags` either way.
func correlationPeak(_ source: [Float], _ output: [Float], lags: Int) -> Int {
    var best = -Double.infinity
    var bestLag = 0
    let window = min(source.count, 4096)
    for lag in -lags...lags {
        var sum = 0.0
        for index in 0..<window where index + lag >= 0 && index + lag < output.count {
            sum += Double(source[index]) * Double(output[index + lag])
        }
        if sum > best {
            best = sum
            bestLag = lag
        }
    }
    return bestLag
}

@Suite("AAC in CAF", .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
struct AACTests {
    static let aac = ConversionOptions(dataFormat: try? DataFormat(parsing: "aac"), jobs: 1)

    @Test(
        "exact length and lag-0 alignment at 1, 1023, 1024, 1025 and 100000 frames",
        arguments: [1, 1023, 1024, 1025, 100_000], [1, 2])
    func lengths(frames: Int, channels: Int) throws {
        for rate in [22050, 44100, 48000] {
            let fixture = toneFixture(frames: frames, channels: channels, sampleRate: rate)
            let converted = try convert(fixture.bytes(order: .little), options: Self.aac)
            let proof = try #require(converted.result.proof)
            #expect(proof.comparison == "lossy")
            #expect(proof.peakLag == 0, "\(rate) Hz: \(proof)")
            #expect(converted.result.frames == Int64(frames))
            #expect(CAFValidator.validate(converted.file).isEmpty, "\(CAFValidator.validate(converted.file))")
            #expect(converted.file.chunks.map(\.type) == [.desc, .kuki, .pakt, .free, .data])
            #expect(converted.file.audioOffset % 4096 == 0, "audio starts at \(converted.file.audioOffset)")

            // Decoded independently: priming + valid + remainder frames, the valid ones aligned.
            let decoded = try independentDecode(converted.bytes)
            let header = decoded.header
            #expect(header.numberValidFrames == Int64(frames))
            #expect(header.primingFrames == 1024, "libavcodec's AAC encoder delay")
            #expect(
                header.numberPackets * 1024 - Int64(header.primingFrames) - Int64(header.remainderFrames)
                    == Int64(frames))
            #expect(decoded.samples.count == Int(header.numberPackets) * 1024 * channels)
            let start = Int(header.primingFrames) * channels
            let valid = Array(decoded.samples[start..<start + frames * channels])
            func mono(_ samples: [Float]) -> [Float] {
                stride(from: 0, to: samples.count, by: channels).map { index in
                    (0..<channels).reduce(Float(0)) { $0 + samples[index + $1] }
                }
            }
            let source = fixture.integers.map { Float($0) / 32768 }
            // The output around the valid frames (so a wrong priming shows up as a lag).
            let around = Array(decoded.samples[0..<min(decoded.samples.count, start + (frames + 1100) * channels)])
            let lag = correlationPeak(mono(source), Array(mono(around).dropFirst(Int(header.primingFrames))), lags: min(1100, frames + 1000))
            #expect(lag == 0, "\(rate) Hz, \(frames) frames: the decoded audio is \(lag) frames off")
            if frames >= 1024 {
                var signal = 0.0
                var noise = 0.0
                for index in 0..<source.count {
                    signal += Double(source[index] * source[index])
                    noise += Double((source[index] - valid[index]) * (source[index] - valid[index]))
                }
                #expect(10 * log10(signal / noise) > 10, "\(rate) Hz: SNR \(10 * log10(signal / noise)) dB")
            }
        }
    }

    @Test("3 channels are coded as L R C (AAC's 3.0), not 2.1: the third channel keeps its tones", arguments: [3, 4, 5])
    func noChannelBecomesLFE(channels: Int) throws {
        let frames = 24000
        let fixture = toneFixture(frames: frames, channels: channels, sampleRate: 48000)
        let converted = try convert(fixture.bytes(order: .little), options: Self.aac)
        #expect(converted.result.proof?.peakLag == 0)
        let decoded = try independentDecode(converted.bytes)
        let start = Int(decoded.header.primingFrames) * channels
        let source = fixture.integers.map { Float($0) / 32768 }
        for channel in 0..<channels {
            var signal: Float = 0
            var error: Float = 0
            for frame in 2048..<frames - 2048 {
                let s = source[frame * channels + channel]
                signal += s * s
                let d = s - decoded.samples[start + frame * channels + channel]
                error += d * d
            }
            // An LFE channel is low-passed at about 120 Hz: its 440+ Hz tones would be lost (SNR ~0 dB).
            #expect(10 * log10(signal / error) > 10, "channel \(channel + 1) of \(channels)")
        }
    }

    @Test("6 channels whose 4th is not an LFE (6.0: FL FR FC BC SL SR) are refused, not coded as 5.1; 5.1 converts")
    func sixChannelsWithoutLFE() throws {
        var fixture = toneFixture(frames: 4800, channels: 6, sampleRate: 48000)
        fixture.extensible = true
        fixture.channelMask = 0x1 | 0x2 | 0x4 | 0x100 | 0x200 | 0x400
        let folder = TempDirectory()
        let input = folder.write("in.wav", fixture.bytes(order: .little))
        let report = Engine.convert(inputs: [input], output: folder.file("out.caf"), options: Self.aac)
        let result = try #require(report.files.first)
        #expect(result.status == .failed && result.code == .unsupported, "\(result)")
        guard case .encoding(.aacLFE(channels: 6, fourth: "BC", _))? = result.error else {
            Issue.record("not refused for its 4th channel: \(result.reason ?? "")")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.caf")))
        fixture.channelMask = 0x3F  // 5.1: FL FR FC LFE BL BR
        let converted = try convert(fixture.bytes(order: .little), options: Self.aac)
        #expect(converted.result.frames == 4800)
    }

    @Test("the kuki is an ES_Descriptor holding an AAC-LC AudioSpecificConfig for the rate and channels")
    func cookie() throws {
        for (rate, index) in [(22050, 7), (44100, 4), (48000, 3)] {
            for channels in [1, 2] {
                let converted = try convert(
                    toneFixture(frames: 3000, channels: channels, sampleRate: rate).bytes(order: .little),
                    options: Self.aac)
                let document = try CAFDocument(reading: MemoryByteSource(converted.bytes))
                let kuki = try #require(document.contents.magicCookie)
                let asc = try #require(independentASC(kuki.bytes), "not a valid ES_Descriptor: \(kuki.bytes)")
                try #require(asc.count >= 2)
                #expect(asc[0] >> 3 == 2, "audio object type \(asc[0] >> 3), not AAC LC (2)")
                #expect(Int((asc[0] & 7) << 1 | asc[1] >> 7) == index, "sampling frequency index")
                #expect(Int(asc[1] >> 3 & 0x0F) == channels, "channel configuration")
                let desc = document.file.audioDescription
                #expect(desc.formatID == .aac && desc.formatFlags == 0 && desc.bytesPerPacket == 0)
                #expect(desc.framesPerPacket == 1024 && desc.bitsPerChannel == 0)
                #expect(document.file.editCount == 1)
            }
        }
    }

    @Test("-b sets the bit rate; rates AAC cannot hold fail with a hint at @RATE")
    func bitRateAndRates() throws {
        let fixture = toneFixture(frames: 44100, channels: 2, sampleRate: 44100).bytes(order: .little)
        var low = Self.aac
        low.bitRate = 64000
        var high = Self.aac
        high.bitRate = 256000
        let small = try convert(fixture, options: low)
        let large = try convert(fixture, options: high)
        #expect(small.result.proof?.bitRate == 64000 && large.result.proof?.bitRate == 256000)
        #expect(small.file.audioBytes * 3 < large.file.audioBytes * 2, "\(small.file.audioBytes) vs \(large.file.audioBytes)")
        #expect(Self.aac.fingerprint != low.fingerprint)
        #expect(Self.aac.fingerprint.contains("enc=libavcodec-\(LibAVCodec.version)-aac"))

        let folder = TempDirectory()
        let input = folder.write("odd.wav", toneFixture(frames: 1000, channels: 1, sampleRate: 44000).bytes(order: .little))
        let report = Engine.convert(inputs: [input], output: folder.file("odd.caf"), options: Self.aac)
        let result = try #require(report.files.first)
        #expect(result.status == .failed)
        #expect(result.reason?.contains("-d aac@44100") == true, "\(result.reason ?? "")")
        #expect(!exists(folder.file("odd.caf")))

        var tooHigh = Self.aac
        tooHigh.bitRate = 1_000_000
        let refused = Engine.convert(inputs: [input], output: folder.file("odd.caf"), options: tooHigh)
        #expect(refused.files.first?.status == .failed)
    }

    @Test("a proof with the wrong priming fails: the lag and length checks catch it")
    func wrongPrimingFails() throws {
        let fixture = noiseFixture(frames: 20000, channels: 2, sampleRate: 44100)
        let converted = try convert(fixture.bytes(order: .little), options: Self.aac)
        // Move 1024 frames from priming to remainder: same length, audio 1024 frames early.
        var bytes = converted.bytes
        let pakt = try #require(converted.file.packetTableChunk)
        let primingAt = Int(pakt.bodyOffset) + 16
        var writer = ByteWriter()
        writer.write(Int32(0), .big)
        writer.write(Int32(converted.file.packetTableHeader?.remainderFrames ?? 0) + 1024, .big)
        bytes.replaceSubrange(primingAt..<primingAt + 8, with: writer.bytes)
        let path = converted.folder.write("shifted.caf", bytes)
        let source = try SourceAudio.open(converted.folder.file("in.wav"))
        let written = AACStage.Written(
            frames: 20000, packets: converted.file.packetTableHeader?.numberPackets ?? 0, priming: 0,
            remainder: 0, bitRate: 128000, audioBytes: converted.file.audioBytes)
        let error = #expect(throws: ConversionError.self) {
            _ = try AACStage.prove(path, source: source, written: written, blockSamples: 4096, isCancelled: { false })
        }
        #expect(error == .proof(.lossyLag(codec: "AAC", lag: 1024)), "\(error?.message ?? "")")
    }

    @Test(
        "Apple's AAC CAFs decode to the frames their pakt declares",
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func appleCorpus() throws {
        let corpus = try #require(RepositoryPaths.realCorpus, "../shared/corpus/real is absent")
        let oracle = try RepositoryPaths.oracle()
        var checked = 0
        for (name, entry) in oracle.sorted(by: { $0.key < $1.key }) {
            guard entry["container"] as? String == "caf", let format = entry["format"] as? String,
                format == "aac" || format == "aacl"
            else { continue }
            let header = try #require(entry["header"] as? [String: Any])
            let pakt = try #require(header["pakt"] as? [String: Any])
            let valid = try #require(pakt["valid_frames"] as? Int)
            let source = try FileByteSource(path: corpus + "/" + name)
            let file = try CAFFile(reading: source)
            let decoder = try AACFileDecoder(file: file, source: source)
            var buffer: [Float] = []
            var total = 0
            while true {
                let got = try decoder.read(into: &buffer, frames: 8192)
                if got == 0 { break }
                total += got
            }
            #expect(total == valid, "\(name): decoded \(total), pakt declares \(valid)")
            #expect(decoder.decodedFrames >= Int64(valid) + decoder.primingFrames, "\(name)")
            checked += 1
        }
        #expect(checked >= 4, "the corpus has four AAC CAFs (three LC, one LD)")
    }
}

@Suite("AAC options (no libavcodec needed)")
struct AACOptionTests {
    @Test("-d aac parses; -b needs -d aac and a positive rate; --endian does not apply")
    func options() throws {
        #expect(try DataFormat(parsing: "aac").kind == .aac)
        #expect(try DataFormat(parsing: "AAC").kind == .aac)
        #expect(throws: DataFormatError.self) { try ConversionOptions(dataFormat: DataFormat(parsing: "LEI16"), bitRate: 128000).validate() }
        #expect(throws: DataFormatError.self) { try ConversionOptions(bitRate: 128000).validate() }
        #expect(throws: DataFormatError.self) { try ConversionOptions(dataFormat: DataFormat(parsing: "aac"), bitRate: 0).validate() }
        #expect(throws: DataFormatError.self) {
            try ConversionOptions(dataFormat: DataFormat(parsing: "aac"), endian: .big).validate()
        }
        try ConversionOptions(dataFormat: DataFormat(parsing: "aac"), bitRate: 96000).validate()
        let a = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), bitRate: 96000).fingerprint
        let b = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), bitRate: 128000).fingerprint
        #expect(a != b && a.contains("b=96000"))
    }

    @Test("bit rate defaults and limits by channels and rate")
    func bitRates() throws {
        #expect(try AACStage.bitRate(asked: nil, channels: 2, sampleRate: 44100) == 128000)
        #expect(try AACStage.bitRate(asked: nil, channels: 1, sampleRate: 44100) == 64000)
        #expect(try AACStage.bitRate(asked: nil, channels: 1, sampleRate: 8000) == 48000, "capped at 6144 x 8000 / 1024")
        #expect(throws: ConversionError.self) { try AACStage.bitRate(asked: 7999, channels: 1, sampleRate: 44100) }
        #expect(throws: ConversionError.self) { try AACStage.bitRate(asked: 128000, channels: 9, sampleRate: 44100) }
        #expect(throws: ConversionError.self) { try AACStage.bitRate(asked: nil, channels: 2, sampleRate: 7350) }
    }
}

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

/// `convert -d ima4`: fixtures made here, expectations from CAFKit's codec (tested on its own in
/// CAFKitTests/IMA4Tests) and, where installed, ffmpeg's decoder.
enum IMA4Fixtures {
    /// `frames` frames of a different sine per channel (amplitude 0.5, plus a little noise), 16-bit.
    static func sines(frames: Int, channels: Int, rate: Int = 44100) -> [Int32] {
        var generator = SplitMix64(seed: UInt64(frames * 7 + channels))
        var values: [Int32] = []
        values.reserveCapacity(frames * channels)
        for frame in 0..<frames {
            for channel in 0..<channels {
                let phase = 2 * Double.pi * Double(110 * (channel + 1)) * Double(frame) / Double(rate)
                let noise = Double(generator.next() % 201) - 100
                values.append(Int32((16000 * sin(phase) + noise).rounded()))
            }
        }
        return values
    }

    static func wave(_ samples: [Int32], channels: Int, rate: Int = 44100) -> [UInt8] {
        WAVFixture(encoding: .int16, channels: channels, sampleRate: rate, integers: samples).bytes(order: .little)
    }

    static var options: ConversionOptions {
        ConversionOptions(dataFormat: try? DataFormat(parsing: "ima4"), jobs: 1)
    }

    /// The samples ffmpeg's `adpcm_ima_qt` decoder makes of every packet of `path`, or `nil`
    /// without ffmpeg.
    static func ffmpegDecode(_ path: String) throws -> [Int16]? {
        guard let ffmpeg = which("ffmpeg") else { return nil }
        let result = try run(ffmpeg, ["-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-"])
        try #require(result.status == 0, "ffmpeg failed: \(result.stderr)")
        return stride(from: 0, to: result.stdout.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(result.stdout[$0]) | UInt16(result.stdout[$0 + 1]) << 8)
        }
    }

    static func firstDifference(_ a: [Int16], _ b: [Int16]) -> String? {
        if let index = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) {
            return "sample \(index): \(a[index]) vs \(b[index])"
        }
        return a.count == b.count ? nil : "lengths \(a.count) vs \(b.count)"
    }
}

@Suite("convert -d ima4")
struct IMA4ConversionTests {
    @Test("-d ima4 parses (any case), names the format ima4 and resolves to CAFKit's IMA4 target")
    func parsing() throws {
        for text in ["ima4", "IMA4", "Ima4"] {
            let format = try DataFormat(parsing: text)
            #expect(format.kind == .ima4)
            let target = TargetFormat.resolve(source: .pcm16, sourceOrder: .little, dataFormat: format, endian: nil)
            #expect(target.isIMA4)
            #expect(target.description == "ima4")
        }
        #expect(OutputCodecs.examples.contains("ima4"))
    }

    @Test(
        "lengths 1, 63, 64, 65 and 100000 frames: exact pakt, Apple's layout, proof by SNR",
        arguments: [1, 63, 64, 65, 100_000])
    func lengths(frames: Int) throws {
        let channels = 2
        let samples = IMA4Fixtures.sines(frames: frames, channels: channels)
        let converted = try convert(IMA4Fixtures.wave(samples, channels: channels), options: IMA4Fixtures.options)
        let file = converted.file
        let packets = (frames + 63) / 64
        #expect(converted.result.frames == Int64(frames))
        #expect(converted.result.formatOut == "ima4")
        #expect(converted.result.samples == .ima4Encoded)
        let desc = file.audioDescription
        #expect(desc.formatID == .ima4 && desc.formatFlags == 0 && desc.bitsPerChannel == 0)
        #expect(desc.bytesPerPacket == 68 && desc.framesPerPacket == 64 && desc.channelsPerFrame == 2)
        let pakt = try #require(file.packetTableHeader)
        #expect(pakt.numberValidFrames == Int64(frames))
        #expect(pakt.primingFrames == 0)
        #expect(Int(pakt.remainderFrames) == packets * 64 - frames)
        #expect(file.audioOffset == 4096)
        #expect(file.audioBytes == UInt64(packets * 68))
        #expect(file.fileLength == 4096 + UInt64(packets * 68))
        #expect(CAFValidator.validate(file).isEmpty)
        // The proof: same length, SNR reported and above the floor.
        let proof = try #require(converted.result.proof)
        #expect(proof.comparison == "snr" && proof.rule == "ima4" && proof.outputDecoder == "cafkit")
        #expect(proof.snrFloor == IMA4Proof.defaultFloor)
        let snr = try #require(proof.snr)
        #expect(snr > 30, "SNR \(snr) dB")
        // Our decoder, trimmed by pakt, gives exactly the source's frames.
        let decoded = try IMA4Stream(file).decodeAll(from: MemoryByteSource(converted.bytes))
        #expect(decoded.count == frames * channels)
    }

    // A condition trait, not a test that returns early: without ffmpeg this is reported as
    // skipped, never as passed.
    @Test(
        "lengths 1, 63, 64, 65 and 100000 frames: ffmpeg decodes every packet (it ignores pakt) to the same samples",
        .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed"), arguments: [1, 63, 64, 65, 100_000])
    func lengthsAgainstFFmpeg(frames: Int) throws {
        let channels = 2
        let samples = IMA4Fixtures.sines(frames: frames, channels: channels)
        let converted = try convert(IMA4Fixtures.wave(samples, channels: channels), options: IMA4Fixtures.options)
        let packets = (frames + 63) / 64
        let decoded = try IMA4Stream(converted.file).decodeAll(from: MemoryByteSource(converted.bytes))
        let reference = try #require(try IMA4Fixtures.ffmpegDecode(converted.path))
        #expect(reference.count == packets * 64 * channels)
        #expect(IMA4Fixtures.firstDifference(Array(reference.prefix(decoded.count)), decoded) == nil)
    }

    @Test("mono, stereo and 6 channels: the file is byte for byte CAFKit's IMA4 file of the same samples", arguments: [1, 2, 6])
    func packetLayout(channels: Int) throws {
        let frames = 1000
        let samples = IMA4Fixtures.sines(frames: frames, channels: channels, rate: 22050)
        var options = IMA4Fixtures.options
        options.blockSamples = 300  // blocks that split packets and frames
        let converted = try convert(IMA4Fixtures.wave(samples, channels: channels, rate: 22050), options: options)
        let expected = try CAFWriter.ima4Bytes(
            sampleRate: 22050, channels: channels, samples: samples.map { Int16($0) })
        #expect(converted.bytes.count == expected.count)
        let first = zip(converted.bytes, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(first == nil, "first different byte at \(first ?? -1)")
        // Each 34-byte slice of a packet belongs to its channel: its preamble is within one
        // step of that channel's first sample of the packet.
        let audio = converted.bytes[4096...]
        for packet in 0..<(frames + 63) / 64 {
            for channel in 0..<channels {
                let at = audio.startIndex + packet * 34 * channels + channel * 34
                let (predictor, _) = IMA4.parsePreamble(audio[at], audio[at + 1])
                let frame = packet * 64
                let sample = samples[frame * channels + channel]
                // The preamble holds the state before the packet: the previous packet's last
                // decoded sample, close to the source's sample just before this packet's first.
                let before = frame == 0 ? sample : samples[(frame - 1) * channels + channel]
                #expect(abs(predictor - before) < 1500, "packet \(packet), channel \(channel): \(predictor) vs \(before)")
            }
        }
    }

    @Test("24-bit and float sources are encoded from their samples rounded to 16 bits, floats clipped")
    func wideAndFloatSources() throws {
        let frames = 5000
        let sixteen = IMA4Fixtures.sines(frames: frames, channels: 1)
        let wide = sixteen.map { $0 << 8 | 0x7F }  // rounds down to the same 16-bit values
        let floats = sixteen.map { Double($0) / 32768 }
        for fixture in [
            WAVFixture(encoding: .int24, channels: 1, integers: wide),
            WAVFixture(encoding: .float32, channels: 1, floats: floats),
        ] {
            let converted = try convert(fixture.bytes(order: .little), options: IMA4Fixtures.options)
            let expected = try CAFWriter.ima4Bytes(sampleRate: 44100, channels: 1, samples: sixteen.map { Int16($0) })
            #expect(converted.bytes == expected, "\(fixture.encoding)")
        }
        // Beyond full scale: clipped, and the proof measures against the clipped source.
        let loud = (0..<frames).map { 1.5 * sin(Double($0) / 20) }
        let converted = try convert(
            WAVFixture(encoding: .float64, channels: 1, floats: loud).bytes(order: .little), options: IMA4Fixtures.options)
        #expect((converted.result.proof?.snr ?? 0) > 20)
    }

    @Test("an output below the SNR floor fails with code proof and leaves nothing at the output path")
    func floorFails() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", IMA4Fixtures.wave(IMA4Fixtures.sines(frames: 3000, channels: 2), channels: 2))
        var options = IMA4Fixtures.options
        options.ima4MinimumSNR = 90
        let report = Engine.convert(inputs: [input], output: folder.file("out.caf"), options: options)
        let result = try #require(report.files.first)
        #expect(result.status == .failed)
        #expect(result.code == .proof)
        #expect(result.reason?.contains("below the floor of 90.0 dB") == true, "\(result.reason ?? "")")
        #expect(!exists(folder.file("out.caf")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "in.wav" && !$0.hasPrefix(".cafconv-manifest") }.isEmpty)
    }

    @Test("the proof catches broken encodings: swapped channels, a lost packet, another length")
    func proofCatchesFaults() throws {
        let frames = 6400
        let samples = IMA4Fixtures.sines(frames: frames, channels: 2)
        let folder = TempDirectory()
        let source = folder.write("in.wav", IMA4Fixtures.wave(samples, channels: 2))
        func measure(_ encoded: [Int16], frames: Int) throws -> IMA4Proof.Measurement {
            let bytes = try CAFWriter.ima4Bytes(sampleRate: 44100, channels: 2, samples: encoded)
            let file = try CAFFile(reading: MemoryByteSource(bytes))
            return try IMA4Proof.measure(file, bytes: MemoryByteSource(bytes), against: try SourceAudio.open(source))
        }
        let good = try measure(samples.map { Int16($0) }, frames: frames)
        #expect(good.passes(floor: IMA4Proof.defaultFloor))
        #expect((good.snr ?? 0) > 30)
        var swapped = samples.map { Int16($0) }
        for frame in 0..<frames { swapped.swapAt(frame * 2, frame * 2 + 1) }
        let bad = try measure(swapped, frames: frames)
        #expect(!bad.passes(floor: IMA4Proof.defaultFloor), "swapped channels: \(bad.snr ?? 0) dB")
        #expect((bad.snr ?? 99) < 3)
        // A packet lost (every later sample one packet early).
        let shifted = Array(samples.map { Int16($0) }.dropFirst(128)) + [Int16](repeating: 0, count: 128)
        let lost = try measure(shifted, frames: frames)
        #expect(!lost.passes(floor: IMA4Proof.defaultFloor), "lost packet: \(lost.snr ?? 0) dB")
        let short = try measure(Array(samples.map { Int16($0) }.dropLast(2)), frames: frames - 1)
        #expect(short.outputFrames == Int64(frames - 1) && short.sourceFrames == Int64(frames))
        #expect(!short.passes(floor: 0))
        if case .failure(let error) = IMA4Proof.proof(short, floor: 10, sourceDecoder: "cafconv") {
            #expect(error.message.contains("decodes to \(frames - 1) frames, the source to \(frames)"))
        } else {
            Issue.record("a short output passed")
        }
    }

    @Test("near-silent sources pass on the error's level, not their SNR")
    func quietSources() throws {
        var generator = SplitMix64(seed: 9)
        let quiet = (0..<4000).map { _ in Int32(generator.next() % 5) - 2 }
        let converted = try convert(IMA4Fixtures.wave(quiet, channels: 1), options: IMA4Fixtures.options)
        #expect(converted.result.status == .converted)
        let silent = try convert(IMA4Fixtures.wave([Int32](repeating: 0, count: 700), channels: 1), options: IMA4Fixtures.options)
        #expect(silent.result.proof?.comparison == "exact")
    }

    @Test("the fingerprint covers the encoder: its revision, search width, code range and the floor")
    func fingerprint() throws {
        let base = IMA4Fixtures.options
        var wider = base
        wider.ima4Search = IMA4Encoder.Options(searchWidth: 16)
        var range = base
        range.ima4Search = IMA4Encoder.Options(searchWidth: 12, codeRange: 2)
        var floor = base
        floor.ima4MinimumSNR = 20
        let prints = [base, wider, range, floor].map(\.fingerprint)
        #expect(Set(prints).count == 4, "\(prints)")
        #expect(base.fingerprint.contains("enc=\(IMA4Stage.encoderRevision)"))
        // Other formats do not change with the IMA4 settings.
        var pcm = ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1)
        let before = pcm.fingerprint
        pcm.ima4Search = IMA4Encoder.Options(searchWidth: 3)
        #expect(pcm.fingerprint == before)
    }

    @Test("verify --against measures IMA4 outputs like the proof, with --min-snr")
    func verifyAgainst() throws {
        let samples = IMA4Fixtures.sines(frames: 5000, channels: 2)
        let converted = try convert(IMA4Fixtures.wave(samples, channels: 2), options: IMA4Fixtures.options)
        let source = converted.folder.file("in.wav")
        let passed = Verifier.verify(paths: [converted.path], options: VerifyOptions(against: source))
        let result = try #require(passed.files.first)
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.comparison?.comparison == "snr")
        #expect(result.comparison?.snr == converted.result.proof?.snr)
        var strict = VerifyOptions(against: source)
        strict.minimumSNR = 90
        let failed = try #require(Verifier.verify(paths: [converted.path], options: strict).files.first)
        #expect(failed.failures.map(\.code) == ["against"])
        #expect(failed.failures.first?.expected.contains("at least 90.0 dB") == true)
    }

    @Test("verify --against takes an IMA4 source as the reference, decoded as convert decodes it")
    func verifyAgainstIMA4Source() throws {
        let samples = IMA4Fixtures.sines(frames: 5000, channels: 2)
        let ima4 = try convert(IMA4Fixtures.wave(samples, channels: 2), options: IMA4Fixtures.options)
        let decoded = try convert(ima4.bytes, name: "in.caf", options: ConversionOptions(jobs: 1))
        let source = decoded.folder.file("in.caf")
        let result = try #require(Verifier.verify(paths: [decoded.path], options: VerifyOptions(against: source)).files.first)
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.comparison?.comparison == "exact")
        // Another IMA4 file as the reference: the samples differ, and that is what fails.
        let other = try convert(
            IMA4Fixtures.wave(IMA4Fixtures.sines(frames: 5000, channels: 2).map { $0 / 2 }, channels: 2),
            options: IMA4Fixtures.options)
        let failed = try #require(
            Verifier.verify(paths: [decoded.path], options: VerifyOptions(against: other.path)).files.first)
        #expect(failed.failures.map(\.code) == ["against"])
        #expect(failed.failures.first?.found.contains("IMA4 decoder") == false)
    }

    @Test("an IMA4 source without a whole packet says 'no audio frames' on both roads", arguments: ["LEI16", "ima4"])
    func emptyIMA4Source(_ format: String) throws {
        let folder = TempDirectory()
        let input = folder.write("in.aifc", Self.aifc(packets: [][...], channels: 2, sampleSize: 16, declaredPackets: 3))
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1)
        let report = Engine.convert(inputs: [input], output: folder.file("out.caf"), options: options)
        let file = try #require(report.files.first)
        #expect(file.status == .converted && file.frames == 0, "\(file.reason ?? "")")
        // The LEI16 road's warning comes from the IMA4 source (still a sentence there).
        #expect(file.warnings.contains { $0.message.contains("no audio frames") }, "\(file.warnings)")
    }

    @Test("refusals of IMA4 and AAC sources say what cafconv does with them (not 'no IMA4 decoder')")
    func refusalsTellTheTruth() throws {
        let samples = IMA4Fixtures.sines(frames: 3000, channels: 1)
        let ima4 = try convert(IMA4Fixtures.wave(samples, channels: 1), options: IMA4Fixtures.options)
        let folder = TempDirectory()
        let input = folder.write("in.caf", ima4.bytes)
        let aac = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1)
        let report = Engine.convert(inputs: [input], output: folder.file("out.caf"), options: aac)
        let file = try #require(report.files.first)
        #expect(file.status == .failed && file.code == .unsupported)
        #expect(file.reason?.contains("no IMA4 decoder") == false, "\(file.reason ?? "")")
        #expect(file.reason?.contains("linear PCM or ima4") == true, "\(file.reason ?? "")")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.caf")))
    }

    // A condition trait, not a test that returns early: without libavcodec this is reported as
    // skipped, never as passed.
    @Test(
        "verify --against an AAC CAF source never says it has no AAC decoder",
        .enabled(if: libavcodecPresent, "libavcodec cannot be loaded"))
    func verifyAgainstAAC() throws {
        let samples = IMA4Fixtures.sines(frames: 3000, channels: 1)
        let aac = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1)
        let encoded = try convert(IMA4Fixtures.wave(samples, channels: 1), options: aac)
        let pcm = try convert(IMA4Fixtures.wave(samples, channels: 1))
        let verified = try #require(
            Verifier.verify(paths: [pcm.path], options: VerifyOptions(against: encoded.path)).files.first)
        // verify --against decodes an AAC CAF source as convert does (issue 30): whatever it finds,
        // it is never that it has no decoder.
        let found = verified.failures.map(\.found).joined(separator: " ")
        #expect(!found.contains("no AAC decoder") && !found.contains("decoded only by convert"), "\(found)")
    }

    @Test(
        "verify: ffmpeg's IMA4 CAF (4 bits per channel, no pakt) fails compressed-bits, and --against its whole-packet length",
        .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed"))
    func ffmpegFiles() throws {
        let folder = TempDirectory()
        let source = folder.write("in.wav", IMA4Fixtures.wave(IMA4Fixtures.sines(frames: 2205, channels: 1), channels: 1))
        let output = folder.file("ff.caf")
        let ffmpeg = try #require(which("ffmpeg"))
        let made = try run(ffmpeg, ["-v", "error", "-i", source, "-c:a", "adpcm_ima_qt", output])
        try #require(made.status == 0, "\(made.stderr)")
        let file = try #require(Verifier.verify(paths: [output], options: VerifyOptions(against: source)).files.first)
        let codes = file.failures.map(\.code)
        #expect(codes.contains("compressed-bits"), "\(codes)")
        #expect(codes.contains("against-frames"), "\(codes)")
        #expect(file.failures.first { $0.code == "against-frames" }?.found == "2240 frames")
        #expect(file.warnings.contains { $0.contains("IMA4 without a 'pakt' chunk") }, "\(file.warnings)")
        // Apple's layout (cafconv's) has its pakt: no such warning.
        let ours = try convert(IMA4Fixtures.wave(IMA4Fixtures.sines(frames: 2205, channels: 1), channels: 1), options: IMA4Fixtures.options)
        let clean = try #require(Verifier.verify(paths: [ours.path], options: VerifyOptions()).files.first)
        #expect(clean.warnings.isEmpty && clean.failures.isEmpty, "\(clean.warnings) \(clean.failures)")
        // Decoded with ffmpeg's own preamble rule, since ffmpeg wrote it.
        let document = try CAFFile(reading: try FileByteSource(path: output))
        #expect(IMA4Proof.rule(for: document) == .continueWhenClose)
    }

    @Test(
        "IMA4 CAF sources: ffmpeg's decoded with ffmpeg's rule (bit-exact with ffmpeg), others with the reload rule, cut by pakt",
        .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed"))
    func ima4Sources() throws {
        let folder = TempDirectory()
        let samples = IMA4Fixtures.sines(frames: 2205, channels: 2)
        let source = folder.write("in.wav", IMA4Fixtures.wave(samples, channels: 2))
        let ffmpegFile = folder.file("ff.caf")
        let ffmpeg = try #require(which("ffmpeg"))
        let made = try run(ffmpeg, ["-v", "error", "-i", source, "-c:a", "adpcm_ima_qt", ffmpegFile])
        try #require(made.status == 0, "\(made.stderr)")
        let ours = folder.write(
            "ours.caf", try CAFWriter.ima4Bytes(sampleRate: 44100, channels: 2, samples: samples.map { Int16($0) }))
        for (input, rule) in [(ffmpegFile, IMA4Decoder.PreambleRule.continueWhenClose), (ours, .reload)] {
            let output = input + ".pcm.caf"
            let report = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1))
            let result = try #require(report.files.first)
            #expect(result.status == .converted, "\(result.reason ?? "")")
            #expect(result.formatIn == "ima4" && result.proof?.sourceDecoder == "cafkit-ima4")
            let bytes = try #require(readFile(output))
            let file = try CAFFile(reading: MemoryByteSource(bytes))
            let pcm = PCMLayout(file.audioDescription).map {
                $0.decodeIntegers(bytes[Int(file.audioOffset)..<Int(file.audioOffset + file.audioBytes)]).map { Int16($0) }
            } ?? []
            let sourceFile = try CAFFile(reading: try FileByteSource(path: input))
            let expected = try IMA4Stream(sourceFile).decodeAll(from: try FileByteSource(path: input), rule: rule)
            #expect(IMA4Fixtures.firstDifference(pcm, expected) == nil, "\(input)")
            if input == ffmpegFile {
                #expect(IMA4Fixtures.firstDifference(pcm, try IMA4Fixtures.ffmpegDecode(input) ?? []) == nil)
                #expect(pcm.count == 2240 * 2)  // no pakt: whole packets
            } else {
                #expect(pcm.count == 2205 * 2)
            }
        }
    }

    /// An AIFF-C of `ima4` packets, `COMM` counting packets, sample size `sampleSize`.
    static func aifc(packets: ArraySlice<UInt8>, channels: Int, sampleSize: Int16, declaredPackets: UInt32? = nil) -> [UInt8] {
        var comm = ByteWriter()
        comm.write(UInt16(channels), .big)
        comm.write(declaredPackets ?? UInt32(packets.count / (34 * channels)), .big)
        comm.write(UInt16(bitPattern: sampleSize), .big)
        comm.write(bytes: [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0])  // 44100 as an 80-bit float
        comm.write(bytes: Array("ima4".utf8) + [0, 0])
        var body = ByteWriter()
        body.write(bytes: Array("AIFC".utf8))
        body.write(bytes: Array("COMM".utf8))
        body.write(UInt32(comm.bytes.count), .big)
        body.write(bytes: comm.bytes)
        body.write(bytes: Array("SSND".utf8))
        body.write(UInt32(8 + packets.count), .big)
        body.write(UInt32(0), .big)
        body.write(UInt32(0), .big)
        body.write(bytes: Array(packets))
        var file = ByteWriter()
        file.write(bytes: Array("FORM".utf8))
        file.write(UInt32(body.bytes.count), .big)
        file.write(bytes: body.bytes)
        return file.bytes
    }

    @Test("IMA4 AIFF-C sources: COMM counts packets; sample size 4 (ffmpeg) decodes with ffmpeg's rule, others reload")
    func aifcSources() throws {
        let folder = TempDirectory()
        let samples = IMA4Fixtures.sines(frames: 3000, channels: 2)
        let caf = try CAFWriter.ima4Bytes(sampleRate: 44100, channels: 2, samples: samples.map { Int16($0) })
        let file = try CAFFile(reading: MemoryByteSource(caf))
        let packets = caf[Int(file.audioOffset)..<Int(file.audioOffset + file.audioBytes)]
        for (size, rule) in [(Int16(16), IMA4Decoder.PreambleRule.reload), (4, .continueWhenClose)] {
            let input = folder.write("in\(size).aifc", Self.aifc(packets: packets, channels: 2, sampleSize: size))
            let output = folder.file("out\(size).caf")
            let result = try #require(Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1)).files.first)
            #expect(result.status == .converted, "\(result.reason ?? "")")
            #expect(result.frames == Int64(47 * 64))  // whole packets: AIFF-C has no pakt
            let bytes = try #require(readFile(output))
            let written = try CAFFile(reading: MemoryByteSource(bytes))
            let pcm = try #require(PCMLayout(written.audioDescription)).decodeIntegers(
                bytes[Int(written.audioOffset)..<Int(written.audioOffset + written.audioBytes)]
            ).map { Int16($0) }
            var decoder = IMA4Decoder(channels: 2, rule: rule)
            var expected: [Int16] = []
            decoder.decode(packets, appendingTo: &expected)
            #expect(IMA4Fixtures.firstDifference(pcm, expected) == nil)
        }
        // ffmpeg's own AIFF-C (sample size 4): bit-exact with ffmpeg's decoder, which the reload
        // rule is not (ffmpeg's encoder continues from its full-precision predictor).
        if let ffmpeg = which("ffmpeg") {
            let source = folder.write("src.wav", IMA4Fixtures.wave(samples, channels: 2))
            let made = try run(ffmpeg, ["-v", "error", "-i", source, "-c:a", "adpcm_ima_qt", folder.file("ff.aiff")])
            try #require(made.status == 0, "\(made.stderr)")
            let output = folder.file("ff.caf")
            let result = try #require(
                Engine.convert(inputs: [folder.file("ff.aiff")], output: output, options: ConversionOptions(jobs: 1)).files.first)
            #expect(result.status == .converted, "\(result.reason ?? "")")
            let decoded = try #require(try IMA4Fixtures.ffmpegDecode(output))
            #expect(IMA4Fixtures.firstDifference(decoded, try #require(try IMA4Fixtures.ffmpegDecode(folder.file("ff.aiff")))) == nil)
        }
        // COMM promising more packets than SSND holds: the packets present, with a warning.
        let short = folder.write("short.aifc", Self.aifc(packets: packets, channels: 2, sampleSize: 16, declaredPackets: 60))
        let result = try #require(
            Engine.convert(inputs: [short], output: folder.file("short.caf"), options: ConversionOptions(jobs: 1)).files.first)
        #expect(result.frames == Int64(47 * 64))
        #expect(result.warnings.contains(.source(.ima4PacketsMissing(declared: 60, held: 47, frames: 47 * 64))), "\(result.warnings)")
    }

    /// `caf` with the `desc` rate (bytes 20-27: after the 8-byte file header and the 12-byte
    /// chunk header) replaced.
    static func withRate(_ caf: [UInt8], _ rate: Double) -> [UInt8] {
        var bytes = caf
        var writer = ByteWriter()
        writer.write(rate, .big)
        bytes.replaceSubrange(20..<28, with: writer.bytes)
        return bytes
    }

    @Test("hostile IMA4 sources fail with a reason naming what is wrong, and write nothing")
    func hostileSources() throws {
        let folder = TempDirectory()
        let samples = IMA4Fixtures.sines(frames: 3000, channels: 2)
        let caf = try CAFWriter.ima4Bytes(sampleRate: 44100, channels: 2, samples: samples.map { Int16($0) })
        // Cut: the pakt promises more frames than the packets present hold.
        // (The data chunk's size still says the full length: the reader clamps it to the file.)
        let cut = Array(caf.dropLast(68 * 5))
        let cases: [(String, [UInt8], String)] = [
            ("cut.caf", cut, "'pakt' declares"),
            ("zero.aifc", Self.aifc(packets: [][...], channels: 0, sampleSize: 16, declaredPackets: 1), "channels"),
            ("rate.caf", Self.withRate(caf, 1e30), "sample rate"),
            ("half.caf", Self.withRate(caf, 22050.5), "sample rate"),
        ]
        for (name, bytes, reason) in cases {
            let input = folder.write(name, bytes)
            let output = folder.file(name + ".out.caf")
            let result = try #require(Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1)).files.first)
            #expect(result.status == .failed, "\(name)")
            #expect(
                result.code == (name.hasSuffix("rate.caf") || name == "half.caf" ? .unsupported : .notAudio),
                "\(name): \(result.code.map(\.rawValue) ?? "nil")")
            #expect(result.reason?.contains(reason) == true, "\(name): \(result.reason ?? "")")
            #expect(!exists(output))
        }
    }
}

import BinaryIO
import CAFKit
@testable import ConversionModel
@testable import IncrementalState
import Inspection
@testable import OutputFiles
@testable import Rules
import SndFile
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification
import WAVEKit

@testable import Conversion

/// WAV files built from bytes for the cases libsndfile reads differently from the header.
enum OddWAV {
    /// A plain PCM (tag 1) WAV whose 24-bit samples each sit in a 4-byte slot (block align 4 x
    /// channels), as ALSA's arecord writes S24_LE: the sample in the low 3 bytes, the top byte
    /// `0` or, with `signExtended`, the sign. With `highJustified` the sample sits in the top 3
    /// bytes and the low byte is 0.
    static func slotted24(_ values: [Int32], channels: Int, signExtended: Bool = false, highJustified: Bool = false) -> [UInt8] {
        var fmt = ByteWriter()
        fmt.write(UInt16(1), .little)
        fmt.write(UInt16(channels), .little)
        fmt.write(UInt32(44100), .little)
        fmt.write(UInt32(44100 * 4 * channels), .little)
        fmt.write(UInt16(4 * channels), .little)
        fmt.write(UInt16(24), .little)
        var data = ByteWriter()
        for value in values {
            let raw = UInt32(bitPattern: value)
            if highJustified {
                data.write(raw << 8, .little)
            } else {
                let top: UInt32 = signExtended ? raw & 0xFF00_0000 : 0
                data.write(raw & 0x00FF_FFFF | top, .little)
            }
        }
        return WAVFixture.riff(chunks: [("fmt ", fmt.bytes), ("data", data.bytes)])
    }

    /// The issue's samples first, then a deterministic 24-bit signal.
    static func values24(frames: Int, channels: Int) -> [Int32] {
        var generator = SplitMix64(seed: 24)
        let head: [Int32] = [-96, 23052, 8_388_607, -8_360_672, -8_388_608, -1, 0, 1]
        return (0..<frames * channels).map { index in
            index < head.count ? head[index] : Int32(truncatingIfNeeded: Int64(generator.next() % (1 << 24)) - (1 << 23))
        }
    }

    /// An IMA ADPCM WAV: mono, 256-byte blocks of 505 frames, `blocks` blocks of deterministic
    /// nibbles, and a `fact` of `fact` frames when given.
    static func imaADPCM(blocks: Int, fact: UInt32?) -> [UInt8] {
        var fmt = ByteWriter()
        for value: UInt16 in [0x11, 1] { fmt.write(value, .little) }
        fmt.write(UInt32(8000), .little)
        fmt.write(UInt32(4055), .little)
        for value: UInt16 in [256, 4, 2, 505] { fmt.write(value, .little) }
        var generator = SplitMix64(seed: 11)
        var data: [UInt8] = []
        for _ in 0..<blocks {
            data += [0, 0, 0, 0]  // predictor 0, step index 0
            data += (0..<252).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }
        var chunks: [(String, [UInt8])] = [("fmt ", fmt.bytes)]
        if let fact { chunks.append(("fact", le32(fact))) }
        chunks.append(("data", data))
        return WAVFixture.riff(chunks: chunks)
    }

    /// An MS ADPCM WAV: mono, 256-byte blocks of 500 frames, `blocks` whole blocks of
    /// deterministic nibbles then `partial` bytes of one more block, and a `fact` of `fact` frames.
    static func msADPCM(blocks: Int, partial: Int, fact: UInt32) -> [UInt8] {
        var fmt = ByteWriter()
        for value: UInt16 in [2, 1] { fmt.write(value, .little) }
        fmt.write(UInt32(8000), .little)
        fmt.write(UInt32(4096), .little)
        for value: UInt16 in [256, 4, 32, 500, 7] { fmt.write(value, .little) }
        let coefficients: [(Int16, Int16)] = [(256, 0), (512, -256), (0, 0), (192, 64), (240, 0), (460, -208), (392, -232)]
        for (first, second) in coefficients {
            fmt.write(UInt16(bitPattern: first), .little)
            fmt.write(UInt16(bitPattern: second), .little)
        }
        var generator = SplitMix64(seed: 2)
        var data: [UInt8] = []
        for index in 0...blocks {
            // Predictor 0, delta 16, two zero samples, then 249 bytes of nibbles.
            var block: [UInt8] = [0, 16, 0, 0, 0, 0, 0]
            block += (0..<249).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            data += index < blocks ? block : Array(block.prefix(partial))
        }
        return WAVFixture.riff(chunks: [("fmt ", fmt.bytes), ("fact", le32(fact)), ("data", data)])
    }

    /// A GSM 6.10 WAV: mono, 65-byte blocks of 320 frames.
    static func gsm(blocks: Int, fact: UInt32?) -> [UInt8] {
        var fmt = ByteWriter()
        for value: UInt16 in [0x31, 1] { fmt.write(value, .little) }
        fmt.write(UInt32(8000), .little)
        fmt.write(UInt32(1625), .little)
        for value: UInt16 in [65, 0, 2, 320] { fmt.write(value, .little) }
        var generator = SplitMix64(seed: 31)
        let data = (0..<65 * blocks).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var chunks: [(String, [UInt8])] = [("fmt ", fmt.bytes)]
        if let fact { chunks.append(("fact", le32(fact))) }
        chunks.append(("data", data))
        return WAVFixture.riff(chunks: chunks)
    }

    static func le32(_ value: UInt32) -> [UInt8] {
        var w = ByteWriter()
        w.write(value, .little)
        return w.bytes
    }
}

@Suite("Independent proof: our own reader against libsndfile's, and against every output")
struct IndependentProofTests {
    func run(_ bytes: [UInt8], _ format: String? = nil, folder: TempDirectory = TempDirectory()) throws -> FileResult {
        let input = folder.write("in.wav", bytes)
        let options = ConversionOptions(dataFormat: try format.map { try DataFormat(parsing: $0) }, jobs: 1)
        let report = Engine.convert(inputs: [input], output: folder.file("out.caf"), options: options)
        return try #require(report.files.first)
    }

    @Test(
        "24-bit samples in 4-byte slots (block align 8) convert to the right samples, decoded by cafconv",
        arguments: [(false, false), (true, false), (false, true)])
    func slotted24(signExtended: Bool, highJustified: Bool) throws {
        let values = OddWAV.values24(frames: 3000, channels: 2)
        let bytes = OddWAV.slotted24(values, channels: 2, signExtended: signExtended, highJustified: highJustified)
        let converted = try convert(bytes)
        #expect(converted.result.formatOut == "LEI24")
        #expect(converted.result.frames == 3000)
        expectSameSamples(try decodedIntegers(converted), values)
        #expect(Array(try decodedIntegers(converted).prefix(4)) == [-96, 23052, 8_388_607, -8_360_672])
        #expect(converted.result.samples == .cafconv)
        #expect(converted.result.warnings.contains { if case .source(.wideSlots(bits: 24, slotBytes: 4, _, _)) = $0 { true } else { false } })
        let proof = try #require(converted.result.proof)
        #expect(proof.comparison == "exact" && proof.sourceDecoder == "cafconv" && proof.extent == "every-frame")
        expectCleanLayout(converted.file)
    }

    @Test("24-bit slots narrowed to 16 bits keep the top bits, and the proof names the rule")
    func slotted24To16() throws {
        let values = OddWAV.values24(frames: 500, channels: 2)
        let converted = try convert(
            OddWAV.slotted24(values, channels: 2),
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1))
        expectSameSamples(try decodedIntegers(converted), values.map { $0 >> 8 })
        #expect(converted.result.proof?.comparison == "exact-after-rule")
        #expect(converted.result.proof?.rule == "24-to-16-bit")
    }

    @Test("slots whose padding is neither sign nor zero fail with a reason; nothing is written")
    func garbageSlots() throws {
        var bytes = OddWAV.slotted24(OddWAV.values24(frames: 100, channels: 2), channels: 2)
        // Frame 50, channel 1: a top byte that is not the sign, and a low byte that is not 0.
        let at = bytes.count - 50 * 8
        bytes[at] = 0x11
        bytes[at + 3] = 0x5A
        let folder = TempDirectory()
        let result = try run(bytes, folder: folder)
        #expect(result.status == .failed)
        #expect(result.reason?.contains("cannot tell where the samples are") == true, "\(result.reason ?? "")")
        #expect(!exists(folder.file("out.caf")))
    }

    /// A plain PCM `fmt ` with any block align and the given sample bytes.
    static func pcm(channels: UInt16, bits: UInt16, blockAlign: UInt16, tag: UInt16 = 1, data: [UInt8]) -> [UInt8] {
        var fmt = ByteWriter()
        fmt.write(tag, .little)
        fmt.write(channels, .little)
        fmt.write(UInt32(8000), .little)
        fmt.write(UInt32(8000) * UInt32(blockAlign), .little)
        fmt.write(blockAlign, .little)
        fmt.write(bits, .little)
        return WAVFixture.riff(chunks: [("fmt ", fmt.bytes), ("data", data)])
    }

    @Test("a block align too small for the samples is a header mistake: packed frames, with a warning, as libsndfile reads")
    func blockAlignTooSmall() throws {
        let values = (0..<200).map { Int32($0 * 97 - 9000) }
        var data = ByteWriter()
        for value in values { data.write(Int16(value), .little) }
        let converted = try convert(Self.pcm(channels: 2, bits: 16, blockAlign: 2, data: data.bytes))
        #expect(converted.result.frames == 100)
        expectSameSamples(try decodedIntegers(converted), values)
        #expect(converted.result.warnings.contains { $0.message.contains("block align is 2, too small") }, "\(converted.result.warnings)")
        #expect(Inspector.inspect(path: converted.folder.file("in.wav")).frames == 100)
    }

    @Test(
        "linear PCM that cafconv's reader cannot decode is refused, never converted on libsndfile's word",
        arguments: [(UInt16(2), UInt16(16), UInt16(5), UInt16(1)), (1, 8, 2, 1), (1, 32, 8, 3)])
    func undecodableLayouts(channels: UInt16, bits: UInt16, blockAlign: UInt16, tag: UInt16) throws {
        let folder = TempDirectory()
        let result = try run(
            Self.pcm(channels: channels, bits: bits, blockAlign: blockAlign, tag: tag, data: [UInt8](repeating: 1, count: 400)),
            folder: folder)
        #expect(result.status == .failed)
        #expect(result.reason?.contains("cannot decode") == true, "\(result.reason ?? "")")
        #expect(!exists(folder.file("out.caf")))
    }

    @Test("an empty 'data' chunk that libsndfile reads as 245 frames of the bytes after it is refused")
    func emptyDataDisagreement() throws {
        // RIFF size 8, 'data' size 0, then 490 bytes: libsndfile takes them for audio.
        var w = ByteWriter()
        w.write(bytes: Array("RIFF".utf8))
        w.write(UInt32(8), .little)
        w.write(bytes: Array("WAVEfmt ".utf8))
        w.write(UInt32(16), .little)
        for value: UInt16 in [1, 1] { w.write(value, .little) }
        w.write(UInt32(8000), .little)
        w.write(UInt32(16000), .little)
        for value: UInt16 in [2, 16] { w.write(value, .little) }
        w.write(bytes: Array("data".utf8))
        w.write(UInt32(0), .little)
        w.write(bytes: [UInt8](repeating: 0x31, count: 490))
        let folder = TempDirectory()
        let result = try run(w.bytes, folder: folder)
        #expect(result.status == .failed)
        let reason = result.reason ?? ""
        #expect(
            reason.contains("disagree") && reason.contains("245 frames") && reason.contains("'data' chunk is empty"), "\(reason)")
        #expect(!exists(folder.file("out.caf")))
    }

    @Test("an empty 'data' chunk of a compressed WAV gives 0 frames, whatever libsndfile makes of the bytes after it")
    func emptyCompressedData() throws {
        // RIFF size 8 ("not closed properly" to libsndfile), 'data' size 0, then two IMA blocks.
        var fmt = ByteWriter()
        for value: UInt16 in [0x11, 1] { fmt.write(value, .little) }
        fmt.write(UInt32(8000), .little)
        fmt.write(UInt32(4055), .little)
        for value: UInt16 in [256, 4, 2, 505] { fmt.write(value, .little) }
        var w = ByteWriter()
        w.write(bytes: Array("RIFF".utf8))
        w.write(UInt32(8), .little)
        w.write(bytes: Array("WAVEfmt ".utf8))
        w.write(UInt32(fmt.bytes.count), .little)
        w.write(bytes: fmt.bytes)
        w.write(bytes: Array("data".utf8))
        w.write(UInt32(0), .little)
        for _ in 0..<2 { w.write(bytes: [0, 0, 0, 0] + [UInt8](repeating: 0x37, count: 252)) }
        let converted = try convert(w.bytes)
        #expect(converted.result.frames == 0)
        #expect(converted.file.audioBytes == 0)
        #expect(
            converted.result.warnings.contains { $0.message.contains("libsndfile reads 1010 frames") }, "\(converted.result.warnings)")
    }

    @Test("the cross-check finds a sample the two readers decode differently and names it")
    func crossCheckNamesTheSample() throws {
        let folder = TempDirectory()
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 5000)
        let path = folder.write("in.wav", fixture.bytes)
        let source = try FileByteSource(path: path)
        let wave = try WAVEFile(reading: source)
        var samples = try #require(WAVESamples(wave: wave))
        let reader = try SoundFile.open(readingFrom: path)
        try reader.setNormalisation(false)
        guard case .agree = try SourceStage.crossCheck(samples, content: .wave(wave), reader: reader, input: source) else {
            Issue.record("the readers should agree on a plain file")
            return
        }
        // The same bytes read in the other byte order: a reader that got the layout wrong.
        samples.byteOrder = .big
        try reader.seek(toFrame: 0)
        #expect {
            _ = try SourceStage.crossCheck(samples, content: .wave(wave), reader: reader, input: source)
        } throws: { error in
            let message = (error as? ConversionError)?.message ?? ""
            return message.contains("disagree") && message.contains("frame 0, channel 1")
                && message.contains("libsndfile decodes \(fixture.integers[0])")
        }
    }

    @Test("the proof reads the whole output: a changed sample or a missing frame is caught")
    func proofCatchesChanges() throws {
        let fixture = WAVFixture.signal(.int24, channels: 2, frames: 20000)
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1)
        let converted = try convert(fixture.bytes, options: options)
        let folder = converted.folder
        let wavePath = folder.file("in.wav")
        let target = TargetFormat(encoding: .pcm16, byteOrder: .little)
        func prove(_ bytes: [UInt8]) throws -> Proof {
            let path = folder.write("changed.caf", bytes)
            let document = try CAFDocument(reading: try FileByteSource(path: path))
            let input = try FileByteSource(path: wavePath)
            let samples = try #require(WAVESamples(wave: try WAVEFile(reading: input)))
            let source = SourceAudio(samples: samples, source: input, sampleRate: 44100)
            return try ProofStage.prove(
                path, document: document, target: target, source: source, blockSamples: 4096, isCancelled: { false })
        }
        #expect(try prove(converted.bytes).rule == "24-to-16-bit")
        // Frame 10000 (the middle, far from both ends), channel 2.
        var changed = converted.bytes
        changed[Int(converted.file.audioOffset) + 10000 * 4 + 2] ^= 0x01
        #expect {
            _ = try prove(changed)
        } throws: { error in
            if case .proof(.sampleDiffers(frame: 10000, channel: 2, _, _, _, _))? = error as? ConversionError { true } else { false }
        }
        // One frame short: the 'data' chunk and the file lose the last 4 bytes.
        var short = Array(converted.bytes.dropLast(4))
        let dataSize = converted.file.chunks.last.map { Int($0.offset) + 4 } ?? 0
        var size = ByteWriter()
        size.write(UInt64(converted.file.audioBytes), .big)  // edit count (4) + audio - 4
        short.replaceSubrange(dataSize..<dataSize + 8, with: size.bytes)
        #expect {
            _ = try prove(short)
        } throws: { error in
            if case .proof(.frameCount(found: 19999, expected: 20000, _))? = error as? ConversionError { true } else { false }
        }
    }

    @Test(
        "each output names its proof: exact, or exact after the rule that maps the samples",
        arguments: [
            (WAVFixture.Encoding.int24, nil, "exact", nil, "ends"),
            (.unsigned8, nil, "exact", nil, "ends"),
            (.int24, "LEI16", "exact-after-rule", "24-to-16-bit", "every-frame"),
            (.int24, "I8", "exact-after-rule", "24-to-8-bit", "every-frame"),
            (.int16, "BEI24", "exact-after-rule", "16-to-24-bit", "every-frame"),
            (.int16, "F32", "exact-after-rule", "int-to-float", "every-frame"),
            (.float32, "I16", "exact-after-rule", "float-to-16-bit", "every-frame"),
            (.float64, "F32", "exact-after-rule", "float64-to-float32", "every-frame"),
            (.float32, "F64", "exact", nil, "every-frame"),
            (.int16, "BEI16", "exact", nil, "ends"),
            (.int16, "alac", "exact", nil, "every-frame"),
            (.unsigned8, "alac", "exact-after-rule", "8-to-16-bit", "every-frame"),
            (.int16, "ulaw", "exact-after-rule", "g711-ulaw", "every-frame"),
            (.float32, "alaw", "exact-after-rule", "g711-alaw", "every-frame"),
        ] as [(WAVFixture.Encoding, String?, String, String?, String)])
    func proofNames(encoding: WAVFixture.Encoding, format: String?, comparison: String, rule: String?, extent: String) throws {
        let fixture = WAVFixture.signal(encoding, channels: 2, frames: 3000)
        let options = ConversionOptions(dataFormat: try format.map { try DataFormat(parsing: $0) }, jobs: 1)
        let result = try convert(fixture.bytes, options: options).result
        let proof = try #require(result.proof)
        #expect(proof.comparison == comparison)
        #expect(proof.rule == rule)
        #expect(proof.extent == extent)
        #expect(proof.sourceDecoder == "cafconv")
        #expect(proof.outputDecoder == (format == "alac" ? "libsndfile" : "cafkit"))
    }

    @Test(
        "compressed WAVs convert to exactly fact's frames, proven against libsndfile's decoding trimmed alike",
        arguments: [("ima", 2, UInt32(600), Int64(600)), ("ima", 2, nil, 1010), ("gsm", 3, 700, 700), ("gsm", 3, nil, 960)])
    func compressedFrames(codec: String, blocks: Int, fact: UInt32?, frames: Int64) throws {
        let bytes = codec == "ima" ? OddWAV.imaADPCM(blocks: blocks, fact: fact) : OddWAV.gsm(blocks: blocks, fact: fact)
        let converted = try convert(bytes)
        #expect(converted.result.frames == frames)
        #expect(converted.file.linearPCMFrames == UInt64(frames))
        #expect(converted.result.formatOut == "LEI16")
        let proof = try #require(converted.result.proof)
        #expect(proof.sourceDecoder == "libsndfile" && proof.comparison == "exact" && proof.extent == "every-frame")
        // The same decoding, trimmed the same way, is what verify compares with.
        let report = Verifier.verify(paths: [converted.path], options: VerifyOptions(against: converted.folder.file("in.wav")))
        #expect(report.succeeded, "\(report.files.flatMap(\.failures))")
        #expect(report.files.first?.comparison?.sourceDecoder == "libsndfile")
        // And info reads the same count from the header.
        let info = Inspector.inspect(path: converted.folder.file("in.wav"))
        #expect(info.frames == UInt64(frames))
        #expect(info.framesPerPacket == (codec == "ima" ? 505 : 320))
    }

    @Test("a compressed source that decodes fewer frames than its header promises: verify accepts what convert wrote")
    func shortCompressedSource() throws {
        // Three whole MS ADPCM blocks and 100 bytes of a fourth, 'fact' 2000: the header counts
        // 2000 frames, libsndfile decodes 1500. convert writes those (with a warning); verify --against must
        // compare the same decoding, not the header's count.
        let converted = try convert(OddWAV.msADPCM(blocks: 3, partial: 100, fact: 2000))
        #expect(converted.result.status == .converted)
        let frames = try #require(converted.result.frames)
        #expect(frames > 0 && frames < 2000)
        let report = Verifier.verify(paths: [converted.path], options: VerifyOptions(against: converted.folder.file("in.wav")))
        #expect(report.succeeded, "\(report.files.flatMap(\.failures))")
        // One frame too few is still caught, by the sample comparison.
        var short = converted.bytes
        short.removeLast(2)
        let cut = converted.folder.write("short.caf", short)
        let failed = Verifier.verify(paths: [cut], options: VerifyOptions(against: converted.folder.file("in.wav")))
        #expect(!failed.succeeded)
    }

    @Test("a RIFX WAVE_FORMAT_EXTENSIBLE file converts as big-endian PCM")
    func rifxExtensible() throws {
        let fixture = WAVFixture.signal(.int24, channels: 2, frames: 700, extensible: true)
        let converted = try convert(fixture.bytes(order: .big))
        #expect(converted.result.formatIn == "BEI24")
        expectSameSamples(try decodedIntegers(converted), fixture.integers)
        let info = Inspector.inspect(path: converted.folder.file("in.wav"))
        #expect(info.format == "lpcm" && info.byteOrder == "big")
    }

    @Test("AIFF-C ima4: info counts 64 frames per COMM packet")
    func aiffIMA4Info() throws {
        var comm = ByteWriter()
        comm.write(Int16(1), .big)
        comm.write(UInt32(5), .big)
        comm.write(Int16(16), .big)
        comm.write(bytes: [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0])  // 44100 as an 80-bit float
        comm.write(bytes: Array("ima4".utf8) + [0, 0])
        var ssnd = ByteWriter()
        ssnd.write(UInt64(0), .big)
        ssnd.write(bytes: [UInt8](repeating: 0, count: 34 * 5))
        var form = ByteWriter()
        form.write(bytes: Array("AIFC".utf8))
        for (id, body) in [("COMM", comm.bytes), ("SSND", ssnd.bytes)] {
            form.write(bytes: Array(id.utf8))
            form.write(UInt32(body.count), .big)
            form.write(bytes: body)
        }
        var file = ByteWriter()
        file.write(bytes: Array("FORM".utf8))
        file.write(UInt32(form.bytes.count), .big)
        file.write(bytes: form.bytes)
        let folder = TempDirectory()
        let info = Inspector.inspect(path: folder.write("a.aifc", file.bytes))
        #expect(info.frames == 320)
        #expect(info.framesPerPacket == 64 && info.packets == 5)
        // Its compression name is empty: no "()" after the type.
        #expect(info.formatDescription == "'ima4'", "\(info.formatDescription ?? "nil")")
        #expect(info.sampleRate == 44100)
    }
}

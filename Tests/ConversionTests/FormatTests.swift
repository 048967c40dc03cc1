import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import SndFile
import TestSupport
import Testing
import Transcoding
import Verification

@Suite("Data formats: the -d grammar and codecs")
struct FormatTests {
    @Test(
        "afconvert-style names parse",
        arguments: [
            ("LEI16", DataFormat.Kind.linearPCM(bits: 16, isFloat: false), ByteOrder?.some(.little)),
            ("BEI24", .linearPCM(bits: 24, isFloat: false), .big),
            ("LEI32", .linearPCM(bits: 32, isFloat: false), .little),
            ("BEF32", .linearPCM(bits: 32, isFloat: true), .big),
            ("LEF64", .linearPCM(bits: 64, isFloat: true), .little),
            ("I8", .linearPCM(bits: 8, isFloat: false), nil),
            ("F32", .linearPCM(bits: 32, isFloat: true), nil),
            ("ulaw", .ulaw, nil), ("alaw", .alaw, nil), ("alac", .alac, nil), ("aac", .aac, nil),
        ])
    func parses(text: String, kind: DataFormat.Kind, order: ByteOrder?) throws {
        let format = try DataFormat(parsing: text)
        #expect(format.kind == kind)
        #expect(format.byteOrder == order)
    }

    @Test(
        "bad formats are usage errors that say why",
        arguments: [
            ("LEI16@44100", "resampling"), ("alac@48000", "resampling"), ("UI8", "signed"), ("aacl", "cannot encode"),
            ("LEI12", "not 12"), ("LEF16", "not 16"), ("LEX16", "not a data format"), ("LEI", "bit depth"), ("LEI16/0", "flags"),
        ])
    func rejects(text: String, phrase: String) {
        #expect {
            try DataFormat(parsing: text)
        } throws: { error in
            (error as? DataFormatError)?.message.contains(phrase) == true
        }
    }

    @Test("-d byte order contradicting --endian is a usage error")
    func contradiction() throws {
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), endian: .big)
        #expect(throws: DataFormatError.self) { try options.validate() }
        #expect(throws: Never.self) {
            try ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), endian: .little).validate()
        }
        #expect(throws: Never.self) { try ConversionOptions(dataFormat: try DataFormat(parsing: "I16"), endian: .big).validate() }
    }

    @Test("default target keeps the source format; what CAF cannot hold becomes 16-bit")
    func defaults() {
        let cases: [(Encoding, Encoding)] = [
            (.pcmU8, .pcmS8), (.pcm16, .pcm16), (.pcm24, .pcm24), (.pcm32, .pcm32), (.float32, .float32),
            (.float64, .float64), (.ulaw, .ulaw), (.alaw, .alaw), (.imaADPCM, .pcm16), (.msADPCM, .pcm16), (.gsm610, .pcm16),
        ]
        for (source, expected) in cases {
            let target = TargetFormat.resolve(source: source, sourceOrder: .little, dataFormat: nil, endian: nil)
            #expect(target.encoding == expected, "\(source)")
            #expect(target.byteOrder == .little)
        }
        #expect(TargetFormat.resolve(source: .pcm16, sourceOrder: .big, dataFormat: nil, endian: .source).byteOrder == .big)
        #expect(TargetFormat.resolve(source: .pcm16, sourceOrder: .little, dataFormat: nil, endian: .native).byteOrder == .host)
    }

    @Test(
        "ALAC keeps the source bit depth and is lossless",
        arguments: [
            (WAVFixture.Encoding.int16, UInt32(16)), (.int24, 24), (.int32, 32),
        ])
    func alac(encoding: WAVFixture.Encoding, bits: UInt32) throws {
        // Noise at 1/8 scale: libsndfile 1.2 mangles full-range stereo noise (see alacRefusesCorruption).
        var fixture = WAVFixture.signal(encoding, channels: 2, frames: 5000)
        fixture.integers = fixture.integers.map { $0 / 8 }
        let converted = try convert(
            fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: "alac"), jobs: 1))
        #expect(converted.file.audioDescription.formatID == .alac)
        #expect(converted.file.chunks.first?.type == .desc)
        #expect(converted.file.chunks.filter { $0.type == .data }.count == 1)
        #expect(converted.file.chunks.contains { $0.type == .pakt })
        #expect(converted.file.chunks.last?.end == converted.file.fileLength)
        // ALAC is decoded by libsndfile here: CAFKit does not decode ALAC.
        let reader = try SoundFile.open(readingFrom: converted.path)
        #expect(reader.info.encoding.bits == Int(bits))
        #expect(reader.info.frames == 5000)
        var samples = [Int32](repeating: 0, count: 5000 * 2)
        let got = try reader.read(into: &samples, frames: 5000)
        #expect(got == 5000)
        let shift = Int32(32 - encoding.bits)
        expectSameSamples(samples, fixture.integers.map { $0 << shift })
    }

    @Test("ALAC that libsndfile cannot encode faithfully fails clearly instead of shipping wrong audio")
    func alacRefusesCorruption() throws {
        // Full-range 24-bit stereo where left and right sit at opposite extremes: libsndfile 1.2's
        // encoder overflows on it (ffmpeg decodes the same wrong samples from its output).
        let frames = (0..<400).flatMap { index -> [Int32] in index % 2 == 0 ? [8_388_607, -8_388_608] : [-8_388_608, 8_388_607] }
        let fixture = WAVFixture(encoding: .int24, channels: 2, integers: frames)
        let folder = TempDirectory()
        let input = folder.write("wide.wav", fixture.bytes)
        let output = folder.file("wide.caf")
        let report = Engine.convert(
            inputs: [input], output: output,
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "alac"), jobs: 1))
        let result = try #require(report.files.first)
        if result.status == .failed {
            #expect(
                { if case .encoding(.notReproduced(target: _, frame: _, channel: _, version: _))? = result.error { true } else { false } }(),
                "\(result.reason ?? "")")
            #expect(!exists(output))
        } else {
            // A libsndfile with a fixed encoder: then the audio must really be lossless.
            let reader = try SoundFile.open(readingFrom: output)
            var samples = [Int32](repeating: 0, count: 800)
            _ = try reader.read(into: &samples, frames: 400)
            expectSameSamples(samples, frames.map { $0 << 8 })
        }
    }

    @Test("µ-law and A-law outputs", arguments: ["ulaw", "alaw"])
    func companded(name: String) throws {
        let fixture = WAVFixture.signal(.int16, channels: 1, frames: 801)
        let converted = try convert(fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: name), jobs: 1))
        #expect(converted.file.audioDescription.formatID.description == name)
        #expect(converted.file.audioDescription.bytesPerPacket == 1)
        #expect(converted.file.audioBytes == 801)
        #expect(converted.file.chunks.last?.end == converted.file.fileLength)
        #expect(converted.result.formatOut == name)
    }
}

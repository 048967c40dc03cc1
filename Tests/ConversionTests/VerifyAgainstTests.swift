import BinaryIO
import CAFKit
@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// `verify --against` compares rate, channels, frames and samples for every format `convert`
/// writes, and says what kind of comparison it made.
@Suite("verify --against: rate, frames, every format, the kind of comparison")
struct VerifyAgainstTests {
    static let fixture = WAVFixture.signal(.int24, channels: 2, frames: 4410, sampleRate: 44100)

    /// Converts the fixture with `-d format` and returns the output's bytes, its path and the source.
    func converted(_ format: String? = nil, fixture: WAVFixture = Self.fixture, in folder: TempDirectory) throws -> (
        bytes: [UInt8], caf: String, wav: String
    ) {
        let wav = folder.write("src.wav", fixture.bytes)
        let caf = folder.file("out.caf")
        let options = ConversionOptions(dataFormat: try format.map { try DataFormat(parsing: $0) }, jobs: 1)
        let report = Engine.convert(inputs: [wav], output: caf, options: options)
        try #require(report.succeeded, "\(report.files.first?.reason ?? "")")
        return (try #require(readFile(caf)), caf, wav)
    }

    func verify(_ caf: String, against wav: String) -> VerifyResult? {
        Verifier.verify(paths: [caf], options: VerifyOptions(against: wav)).files.first
    }

    @Test(
        "a file convert resampled and mixed (-d LEI16@22050 -c 1, -d ima4@16000) passes against its source, exact after the transform; other settings (-r hq) fail, saying what was assumed"
    )
    func transformedOutputs() throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        let wav = folder.write("src.wav", Self.fixture.bytes)
        func convert(_ name: String, _ options: ConversionOptions) throws -> String {
            let caf = folder.file(name)
            let report = Engine.convert(inputs: [wav], output: caf, options: options)
            try #require(report.succeeded, "\(report.files.first?.reason ?? "")")
            return caf
        }
        let lei16 = try DataFormat(parsing: "LEI16")
        let mono = try convert("mono.caf", ConversionOptions(dataFormat: lei16, jobs: 1, sampleRate: 22050, channels: 1))
        let passed = try #require(verify(mono, against: wav))
        #expect(passed.failures.isEmpty, "\(passed.failures)")
        #expect(passed.comparison?.comparison == "exact-after-rule")
        #expect(passed.comparison?.rule?.contains("mixed 2→1; resampled 44100→22050 with soxr VHQ") == true)
        let ima4 = try convert(
            "ima4.caf", ConversionOptions(dataFormat: try DataFormat(parsing: "ima4"), jobs: 1, sampleRate: 16000))
        let lossy = try #require(verify(ima4, against: wav))
        #expect(lossy.failures.isEmpty, "\(lossy.failures)")
        #expect(lossy.comparison?.rule?.contains("resampled 44100→16000") == true)
        let other = try convert(
            "hq.caf", ConversionOptions(dataFormat: lei16, jobs: 1, sampleRate: 22050, channels: 1, srcQuality: .hq))
        let failed = try #require(verify(other, against: wav))
        #expect(failed.failures.map(\.code).first == "against-rate", "\(failed.failures)")
        #expect(failed.failures.last?.expected.contains("as convert does by default (soxr VHQ, --mix, no dither)") == true)
    }

    @Test("a CAF whose desc says 8000 Hz for a 44100 Hz source fails against-rate")
    func wrongRate() throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        var (bytes, caf, wav) = try converted(in: folder)
        // 'desc' body at byte 20: the rate as a big-endian Float64.
        var rate = ByteWriter()
        rate.write(Double(8000), .big)
        bytes.replaceSubrange(20..<28, with: rate.bytes)
        writeFile(caf, bytes)
        let result = try #require(verify(caf, against: wav))
        // Then: the source resampled to 8000 Hz as convert would have made it does not match either.
        #expect(result.failures.map(\.code) == ["against-rate", "against"], "\(result.failures)")
        #expect(result.failures.last?.expected.contains("resampled 44100→8000 with soxr VHQ") == true)
        #expect(result.failures.first?.expected.contains("44100 Hz") == true)
        #expect(result.failures.first?.found == "8000 Hz")
        #expect(result.comparison == nil)
    }

    @Test("a consistent pakt that calls the first 1000 frames priming fails against-frames")
    func paktPriming() throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (bytes, _, wav) = try converted("LEI24", in: folder)
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let audio = Array(bytes[Int(file.audioOffset)..<Int(file.audioOffset + file.audioBytes)])
        let table = PacketTable(
            header: PacketTableHeader(numberPackets: 4410, numberValidFrames: 3410, primingFrames: 1000, remainderFrames: 0))
        let contents = CAFContents(chunks: [
            .description(file.audioDescription), .packetTable(table), .audioData(AudioDataChunk(audio: .bytes(audio))),
        ])
        let caf = folder.write("primed.caf", try CAFWriter.bytes(of: contents))
        let document = try CAFDocument(reading: try FileByteSource(path: caf))
        #expect(CAFValidator.validate(document).isEmpty, "the file is consistent: \(CAFValidator.validate(document))")
        #expect(document.file.validFrames == 3410)
        let result = try #require(verify(caf, against: wav))
        #expect(result.failures.map(\.code) == ["against-frames"], "\(result.failures)")
        #expect(result.failures.first?.expected.hasPrefix("4410 frames") == true)
        #expect(result.failures.first?.found == "3410 frames")
    }

    @Test("priming frames of a pakt are skipped: the valid frames after them are what is compared")
    func primingSkipped() throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (bytes, _, wav) = try converted("LEI24", in: folder)
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let audio = Array(bytes[Int(file.audioOffset)..<Int(file.audioOffset + file.audioBytes)])
        // 1000 frames of something else first, called priming by the packet table.
        let priming = (0..<1000 * 6).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        func primed(_ audio: [UInt8]) throws -> String {
            let table = PacketTable(
                header: PacketTableHeader(numberPackets: 5410, numberValidFrames: 4410, primingFrames: 1000, remainderFrames: 0))
            let contents = CAFContents(chunks: [
                .description(file.audioDescription), .packetTable(table),
                .audioData(AudioDataChunk(audio: .bytes(priming + audio))),
            ])
            return folder.write("primed.caf", try CAFWriter.bytes(of: contents))
        }
        let good = try #require(verify(try primed(audio), against: wav))
        #expect(good.passed, "\(good.failures)")
        var changed = audio
        changed[0] ^= 1
        let bad = try #require(verify(try primed(changed), against: wav))
        #expect(bad.failures.first?.expected.contains("at frame 0, channel 1") == true, "\(bad.failures)")
    }

    @Test(
        "every PCM and ALAC output passes and names its comparison; a narrowed one is never called exact",
        arguments: [
            (nil, "exact", nil, "cafkit"), ("LEI16", "exact-after-rule", "24-to-16-bit", "cafkit"),
            ("I8", "exact-after-rule", "24-to-8-bit", "cafkit"), ("BEF32", "exact-after-rule", "int-to-float", "cafkit"),
            ("LEI32", "exact-after-rule", "24-to-32-bit", "cafkit"),
        ] as [(String?, String, String?, String)])
    func comparisonKinds(format: String?, comparison: String, rule: String?, decoder: String) throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (_, caf, wav) = try converted(format, in: folder)
        let result = try #require(verify(caf, against: wav))
        #expect(result.passed, "\(result.failures)")
        let proof = try #require(result.comparison)
        #expect(proof.comparison == comparison)
        #expect(proof.rule == rule)
        #expect(proof.outputDecoder == decoder)
        #expect(proof.sourceDecoder == "cafconv")
    }

    @Test("ALAC outputs are decoded by libsndfile and compared with the source; a changed packet fails")
    func alac() throws {
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 9000)
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        let (bytes, caf, wav) = try converted("alac", fixture: fixture, in: folder)
        let result = try #require(verify(caf, against: wav))
        #expect(result.passed, "\(result.failures)")
        #expect(result.comparison?.outputDecoder == "libsndfile" && result.comparison?.comparison == "exact")
        // A changed byte in the middle of the audio: libsndfile decodes other samples.
        var changed = bytes
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        changed[Int(file.audioOffset + file.audioBytes / 2)] ^= 0x10
        writeFile(caf, changed)
        let broken = try #require(verify(caf, against: wav))
        #expect(!broken.passed)
    }

    @Test("an output of a compressed source is compared with the decoding convert used, trimmed to fact")
    func compressedSource() throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        let wav = folder.write("gsm.wav", OddWAV.gsm(blocks: 4, fact: 1000))
        let caf = folder.file("gsm.caf")
        #expect(Engine.convert(inputs: [wav], output: caf, options: ConversionOptions(jobs: 1)).succeeded)
        let result = try #require(verify(caf, against: wav))
        #expect(result.passed, "\(result.failures)")
        #expect(result.frames == 1000)
        #expect(result.comparison?.sourceDecoder == "libsndfile")
    }

    @Test(
        "µ-law and A-law outputs are compared code by code and name the G.711 rule; a changed code fails",
        arguments: [("ulaw", "g711-ulaw"), ("alaw", "g711-alaw")])
    func g711Compared(format: String, rule: String) throws {
        let folder = TempDirectory()
        defer { withExtendedLifetime(folder) {} }
        var (bytes, caf, wav) = try converted(format, in: folder)
        let result = try #require(verify(caf, against: wav))
        #expect(result.passed, "\(result.failures)")
        let comparison = try #require(result.comparison)
        #expect(comparison.comparison == "exact-after-rule")
        #expect(comparison.rule == rule)
        #expect(comparison.sourceDecoder == "cafconv" && comparison.outputDecoder == "cafkit")
        #expect(comparison.extent == "every-frame")
        // Frame 3000, channel 2: the code's sign bit flipped.
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let at = Int(file.audioOffset) + 3000 * 2 + 1
        bytes[at] ^= 0x80
        writeFile(caf, bytes)
        let failed = try #require(verify(caf, against: wav))
        let failure = try #require(failed.failures.first)
        #expect(failed.comparison == nil)
        #expect(failure.code == "against")
        #expect(
            failure.expected.contains("frame 3000, channel 2") && failure.expected.contains("after rule \(rule)"), "\(failure)")
        #expect(failure.offset == UInt64(at))
    }
}

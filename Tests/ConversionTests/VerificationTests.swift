import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

@Suite("cafconv verify: rules, expectations, --against")
struct VerificationTests {
    static let fixture = WAVFixture.signal(.int16, channels: 2, frames: 2000)

    /// Converts the fixture into `folder/out.caf` and returns its path and the source path.
    func converted(_ folder: TempDirectory, endian: EndianChoice = .little, format: String? = nil) throws -> (
        caf: String, wav: String
    ) {
        let wav = folder.write("src.wav", Self.fixture.bytes)
        let caf = folder.file("out.caf")
        let options = ConversionOptions(dataFormat: try format.map { try DataFormat(parsing: $0) }, endian: endian, jobs: 1)
        let report = Engine.convert(inputs: [wav], output: caf, options: options)
        try #require(report.succeeded)
        return (caf, wav)
    }

    func rules(_ path: String, _ options: VerifyOptions) -> [String] {
        Verifier.verify(paths: [path], options: options).files.flatMap(\.failures).map(\.code)
    }

    @Test("a converted file passes every check, including --against its source")
    func passes() throws {
        let folder = TempDirectory()
        let (caf, wav) = try converted(folder)
        let options = VerifyOptions(
            byteOrder: .little, dataFormat: try DataFormat(parsing: "LEI16"), sampleRate: 44100,
            channels: 2, maxDuration: 1, against: wav, profile: .iosNotification)
        let report = Verifier.verify(paths: [caf], options: options)
        #expect(report.succeeded, "\(report.files.flatMap(\.failures))")
        #expect(report.files.first?.frames == 2000)
    }

    @Test("--against catches one flipped sample byte and names the frame and channel")
    func flippedByte() throws {
        let folder = TempDirectory()
        let (caf, wav) = try converted(folder)
        var bytes = try #require(readFile(caf))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        // Frame 1234, channel 2, low byte of the 16-bit sample.
        let position = Int(file.audioOffset) + 1234 * 4 + 2
        bytes[position] ^= 0x01
        writeFile(caf, bytes)
        let report = Verifier.verify(paths: [caf], options: VerifyOptions(against: wav))
        let failure = try #require(report.files.first?.failures.first)
        #expect(failure.code == "against")
        #expect(failure.expected.contains("frame 1234, channel 2"), "\(failure)")
        #expect(failure.offset == UInt64(position))
        #expect(!report.succeeded)
    }

    @Test("--against compares float output with the documented mapping")
    func againstFloat() throws {
        let folder = TempDirectory()
        let (caf, wav) = try converted(folder, format: "BEF32")
        #expect(rules(caf, VerifyOptions(against: wav)).isEmpty)
        #expect(rules(caf, VerifyOptions(byteOrder: .little)) == ["byte-order"])
    }

    @Test("--against a mirrored folder finds each source by its relative path")
    func againstFolder() throws {
        let folder = TempDirectory()
        folder.write("src/ui/a.wav", Self.fixture.bytes)
        folder.write("src/ui/b.WAV", WAVFixture.signal(.int24, channels: 1, frames: 99).bytes)
        #expect(
            Engine.convert(inputs: [folder.file("src")], output: folder.file("out"), options: ConversionOptions(jobs: 1))
                .succeeded)
        let report = Verifier.verify(paths: [folder.file("out")], options: VerifyOptions(against: folder.file("src")))
        #expect(report.files.count == 2)
        #expect(report.succeeded, "\(report.files.flatMap(\.failures))")
        #expect(report.files.map(\.against) == [folder.file("src/ui/a.wav"), folder.file("src/ui/b.WAV")])
        writeFile(folder.file("src/ui/a.wav"), WAVFixture.signal(.int16, channels: 2, frames: 2000, seed: 9).bytes)
        #expect(!Verifier.verify(paths: [folder.file("out")], options: VerifyOptions(against: folder.file("src"))).succeeded)
    }

    @Test("a big-endian file fails --endian little")
    func bigEndianFails() throws {
        let folder = TempDirectory()
        let (caf, _) = try converted(folder, endian: .big)
        let report = Verifier.verify(paths: [caf], options: VerifyOptions(byteOrder: .little))
        let failure = try #require(report.files.first?.failures.first)
        #expect(failure.code == "byte-order")
        #expect(failure.expected == "little" && failure.found == "big")
    }

    @Test(
        "each expectation has a failing case",
        arguments: [
            ("format", VerifyOptions(dataFormat: try? DataFormat(parsing: "alac"))),
            ("bits", VerifyOptions(dataFormat: try? DataFormat(parsing: "I24"))),
            ("float", VerifyOptions(dataFormat: try? DataFormat(parsing: "F32"))),
            ("sample-rate", VerifyOptions(sampleRate: 48000)),
            ("channels", VerifyOptions(channels: 1)),
            ("max-duration", VerifyOptions(maxDuration: 0.01)),
            ("profile-format", VerifyOptions(profile: .iosNotification)),
            ("against-frames", VerifyOptions(against: "short.wav")),
            ("against-channels", VerifyOptions(against: "mono.wav")),
        ])
    func expectation(rule: String, options: VerifyOptions) throws {
        let folder = TempDirectory()
        var (caf, _) = try converted(folder)
        var options = options
        if options.against == "short.wav" {
            options.against = folder.write("short.wav", WAVFixture.signal(.int16, channels: 2, frames: 1999).bytes)
        } else if options.against == "mono.wav" {
            options.against = folder.write("mono.wav", WAVFixture.signal(.int16, channels: 1, frames: 2000).bytes)
        }
        if rule == "profile-format" {
            (caf, _) = try converted(folder, format: "alac")
        }
        #expect(rules(caf, options).contains(rule), "\(rules(caf, options))")
    }

    @Test("a stereo output against a mono source says '1 channel', not '1 channels'")
    func oneChannel() throws {
        let folder = TempDirectory()
        let (caf, _) = try converted(folder)
        let mono = folder.write("mono.wav", WAVFixture.signal(.int16, channels: 1, frames: 2000).bytes)
        let failure = try #require(
            Verifier.verify(paths: [caf], options: VerifyOptions(against: mono)).files.first?.failures.first)
        #expect(failure.code == "against-channels")
        #expect(failure.expected.hasPrefix("1 channel as in "), "\(failure.expected)")
    }

    @Test("not CAF, missing and malformed files fail with a reason, never crash")
    func unreadable() throws {
        let folder = TempDirectory()
        let wav = folder.write("x.caf", Self.fixture.bytes)
        #expect(rules(wav, VerifyOptions()) == ["caf"])
        #expect(
            Verifier.verify(paths: [wav], options: VerifyOptions()).files.first?.failures.first?.found.contains("WAV") == true)
        #expect(rules(folder.file("nothing.caf"), VerifyOptions()) == ["readable"])
        let empty = folder.write("empty.caf", [])
        #expect(rules(empty, VerifyOptions()) == ["caf"])
        let (caf, _) = try converted(folder)
        var bytes = try #require(readFile(caf))
        bytes.append(contentsOf: [1, 2, 3])
        writeFile(caf, bytes)
        #expect(rules(caf, VerifyOptions()) == ["file-ends-with-chunk"])
    }

    /// The real CAF files pass or fail as their oracle notes predict.
    @Test("real corpus", .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func corpus() throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let oracle = try RepositoryPaths.oracle()
        let cafNamed = oracle.keys.filter { $0.hasSuffix(".caf") }.sorted()
        for name in cafNamed {
            let notes = (oracle[name]?["notes"] as? [String]) ?? []
            let container = oracle[name]?["container"] as? String
            let failures = Verifier.verify(paths: [corpus + "/" + name], options: VerifyOptions()).files.flatMap(\.failures)
            if container != "caf" {
                #expect(failures.map(\.code) == ["caf"], "\(name) is not CAF")
            } else if notes.contains(where: { $0.hasPrefix("MALFORMED") }) {
                #expect(failures.map(\.code) == ["file-ends-with-chunk"], "\(name): \(failures)")
            } else if oracle[name]?["format"] as? String == "opus", notes.contains(where: { $0.hasPrefix("Written by FFmpeg") }) {
                #expect(failures.map(\.code) == ["opus-priming"], "\(name): \(failures)")
            } else {
                #expect(failures.isEmpty, "\(name): \(failures)")
            }
        }
        // iOS notification sounds: AAC and Opus are not allowed, and neither is 45 s of audio.
        let opus = Verifier.verify(
            paths: [corpus + "/kunstmusik_decodeAudioDataTest__test.caf"],
            options: VerifyOptions(profile: .iosNotification)
        ).files.flatMap(\.failures).map(\.code)
        #expect(opus == ["opus-priming", "profile-format", "max-duration"])
        let ima4 = Verifier.verify(
            paths: [corpus + "/CocoaMiners_AppSoundEngine__touch.caf"],
            options: VerifyOptions(profile: .iosNotification))
        #expect(ima4.succeeded)
    }
}

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

@Suite("AAC: loading and other tools", .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
struct AACToolTests {
    /// Runs the cafconv executable with LD_DEBUG=libs (glibc's loader lists every library it
    /// maps on stderr) and returns that list.
    func loadedLibraries(_ arguments: [String]) throws -> String {
        let result = try run(RepositoryPaths.executable, arguments, environment: ["LD_DEBUG": "libs"])
        #expect(result.status == 0, "\(arguments): \(result.stderr.suffix(2000))")
        return result.stderr
    }

    @Test("a PCM conversion does not map libavcodec; an AAC conversion does")
    func pcmDoesNotLoadLibavcodec() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", toneFixture(frames: 4410, channels: 2, sampleRate: 44100).bytes(order: .little))
        let pcm = try loadedLibraries(["convert", "-q", "-d", "BEI16", input, "-o", folder.file("pcm.caf")])
        try #require(pcm.contains("libsndfile"), "LD_DEBUG=libs lists nothing here (not glibc?)")
        #expect(!pcm.contains("libavcodec") && !pcm.contains("libavutil"), "a PCM conversion mapped libavcodec")
        let aac = try loadedLibraries(["convert", "-q", "-d", "aac", input, "-o", folder.file("aac.caf")])
        #expect(aac.contains(LibAVCodec.libraryName), "the AAC conversion did not load \(LibAVCodec.libraryName)")
    }

    @Test(
        "ffprobe reads cafconv's AAC CAFs without a warning and ffmpeg decodes the same samples as cafconv",
        .enabled(if: which("ffmpeg") != nil && which("ffprobe") != nil, "ffmpeg/ffprobe are not installed"))
    func ffmpegAgrees() throws {
        for (channels, rate, frames) in [(1, 22050, 1025), (2, 44100, 30000), (2, 48000, 1)] {
            let folder = TempDirectory()
            let fixture = toneFixture(frames: frames, channels: channels, sampleRate: rate)
            let converted = try convert(
                fixture.bytes(order: .little), options: ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1),
                in: folder)
            let probe = try run(
                try #require(which("ffprobe")),
                ["-v", "warning", "-show_entries", "stream=codec_name,profile,channels,sample_rate", "-of", "csv=p=0", converted.path])
            #expect(probe.status == 0)
            #expect(probe.stderr.isEmpty, "ffprobe warned: \(probe.stderr)")
            #expect(probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "aac,LC,\(rate),\(channels)", "\(probe.text)")

            let ffmpeg = try run(
                try #require(which("ffmpeg")), ["-v", "warning", "-i", converted.path, "-f", "f32le", "-c:a", "pcm_f32le", "-"])
            #expect(ffmpeg.stderr.isEmpty, "ffmpeg warned: \(ffmpeg.stderr)")
            let theirs: [Float] = ffmpeg.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            // ffmpeg's CAF reader ignores the pakt priming and remainder: it gives every decoded frame.
            let header = try #require(converted.file.packetTableHeader)
            #expect(theirs.count == Int(header.numberPackets) * 1024 * channels)

            let source = try FileByteSource(path: converted.path)
            let decoder = try AACFileDecoder(file: try CAFFile(reading: source), source: source)
            var ours: [Float] = []
            var block: [Float] = []
            while true {
                let got = try decoder.read(into: &block, frames: 4096)
                if got == 0 { break }
                ours += block[0..<got * channels]
            }
            #expect(ours.count == frames * channels)
            let start = Int(header.primingFrames) * channels
            try #require(theirs.count >= start + ours.count)
            #expect(Array(theirs[start..<start + ours.count]) == ours, "\(channels) ch \(rate) Hz: ffmpeg decodes other samples")
        }
    }
}

@Suite("AAC: verify --against", .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
struct AACVerifyTests {
    @Test("our AAC CAF passes against its source, fails against a delayed or longer one")
    func ours() throws {
        let folder = TempDirectory()
        let fixture = noiseFixture(frames: 30000, channels: 2, sampleRate: 44100)
        let converted = try convert(
            fixture.bytes(order: .little), options: ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1),
            in: folder)
        let good = Verifier.verify(paths: [converted.path], options: VerifyOptions(against: folder.file("in.wav")))
        let verdict = try #require(good.files.first)
        #expect(verdict.passed, "\(verdict.failures)")
        #expect(verdict.comparison?.peakLag == 0)
        #expect((verdict.comparison?.snr ?? 0) > 3, "noise-like audio at 128 kb/s stereo")

        // The same audio 300 frames later, same length: the peak moves to lag -300.
        var delayed = fixture
        delayed.integers = [Int32](repeating: 0, count: 300 * 2) + fixture.integers.dropLast(300 * 2)
        let late = folder.write("late.wav", delayed.bytes(order: .little))
        let shifted = Verifier.verify(paths: [converted.path], options: VerifyOptions(against: late))
        #expect(shifted.files.first?.passed == false)
        #expect(shifted.files.first?.failures.contains { $0.found.contains("lag") } == true, "\(shifted.files.first?.failures ?? [])")

        var longer = fixture
        longer.integers += [Int32](repeating: 0, count: 2048 * 2)
        let long = folder.write("long.wav", longer.bytes(order: .little))
        let frames = Verifier.verify(paths: [converted.path], options: VerifyOptions(against: long))
        #expect(frames.files.first?.failures.contains { $0.code == VerifyRule.againstFrames.code } == true)
    }

    @Test(
        "Apple's AAC CAF passes against ffmpeg's decoding cut at its pakt priming, fails uncut",
        .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed"),
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func apple() throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let path = corpus + "/kstenerud_ObjectAL-for-iPhone__ColdFunk-Intro.caf"
        let file = try CAFFile(reading: try FileByteSource(path: path))
        let header = try #require(file.packetTableHeader)
        let folder = TempDirectory()
        func decoded(from start: Int64, name: String) throws -> String {
            let output = folder.file(name)
            let result = try run(
                try #require(which("ffmpeg")),
                [
                    "-v", "error", "-i", path, "-af",
                    "atrim=start_sample=\(start):end_sample=\(start + header.numberValidFrames)", "-c:a", "pcm_f32le", output,
                ])
            try #require(result.status == 0, "\(result.stderr)")
            return output
        }
        let cut = Verifier.verify(
            paths: [path], options: VerifyOptions(against: try decoded(from: Int64(header.primingFrames), name: "cut.wav")))
        let verdict = try #require(cut.files.first)
        #expect(verdict.passed, "\(verdict.failures)")
        #expect(verdict.comparison?.peakLag == 0 && verdict.comparison?.primingFrames == 2112)
        let uncut = Verifier.verify(paths: [path], options: VerifyOptions(against: try decoded(from: 0, name: "uncut.wav")))
        #expect(uncut.files.first?.passed == false)
    }
}

@Suite("AAC CAF sources in convert", .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
struct AACSourceTests {
    @Test("an AAC CAF source becomes linear PCM holding its decoded valid frames")
    func decodesToPCM() throws {
        let folder = TempDirectory()
        let aac = try convert(
            toneFixture(frames: 5000, channels: 2, sampleRate: 48000).bytes(order: .little),
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1), in: folder)
        let pcmPath = folder.file("pcm.caf")
        let report = Engine.convert(
            inputs: [aac.path], output: pcmPath, options: ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1))
        let result = try #require(report.files.first)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.frames == 5000 && result.proof?.rule == "float-to-16-bit")
        let bytes = try #require(readFile(pcmPath))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let layout = try #require(PCMLayout(file.audioDescription))
        #expect(layout.bits == 16 && layout.byteOrder == .little && file.validFrames == 5000)
        // Independently: the decoder's valid frames, rounded to 16 bits.
        let decoded = try independentDecode(aac.bytes)
        let start = Int(decoded.header.primingFrames) * 2
        let expected = decoded.samples[start..<start + 10000].map { Int32(max(-32768, min(32767, ($0 * 32768).rounded(.toNearestOrEven)))) }
        let found = layout.decodeIntegers(bytes[Int(file.audioOffset)..<Int(file.audioOffset + file.audioBytes)])
        expectSameSamples(found, expected)

        let again = Engine.convert(
            inputs: [aac.path], output: folder.file("again.caf"),
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1))
        #expect(again.files.first?.status == .failed)
        #expect(again.files.first?.reason?.contains("not encoded to AAC again") == true)
    }

    @Test("verify --against an AAC CAF source checks what convert made of it, and catches a changed sample")
    func verifyAgainstAACSource() throws {
        let folder = TempDirectory()
        let aac = try convert(
            noiseFixture(frames: 20000, channels: 2, sampleRate: 44100).bytes(order: .little),
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1), in: folder)
        for format in ["LEI16", "LEI24", "LEF32"] {
            let pcmPath = folder.file("pcm-\(format).caf")
            let report = Engine.convert(
                inputs: [aac.path], output: pcmPath, options: ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1))
            #expect(report.files.first?.status == .converted, "\(report.files.first?.reason ?? "")")
            let verdict = try #require(Verifier.verify(paths: [pcmPath], options: VerifyOptions(against: aac.path)).files.first)
            #expect(verdict.passed, "\(format): \(verdict.failures)")
            #expect(verdict.comparison?.sourceDecoder.hasPrefix("libavcodec") == true, "\(verdict.comparison.map { "\($0)" } ?? "")")
        }
        // One sample changed: verify fails.
        var bytes = try #require(readFile(folder.file("pcm-LEI16.caf")))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        bytes[Int(file.audioOffset) + 4000] ^= 0x40
        let changed = folder.write("changed.caf", bytes)
        let verdict = try #require(Verifier.verify(paths: [changed], options: VerifyOptions(against: aac.path)).files.first)
        #expect(!verdict.passed)
    }

    @Test(
        "verify --against Apple's AAC CAFs checks convert's LEI16 outputs of them",
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func verifyAgainstAppleAAC() throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let oracle = try RepositoryPaths.oracle()
        let folder = TempDirectory()
        var checked = 0
        for (name, entry) in oracle.sorted(by: { $0.key < $1.key }) {
            guard entry["container"] as? String == "caf", let format = entry["format"] as? String,
                format == "aac" || format == "aacl"
            else { continue }
            let output = folder.file("\(checked).caf")
            let report = Engine.convert(
                inputs: [corpus + "/" + name], output: output,
                options: ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1))
            #expect(report.files.first?.status == .converted, "\(name): \(report.files.first?.reason ?? "")")
            let verdict = try #require(Verifier.verify(paths: [output], options: VerifyOptions(against: corpus + "/" + name)).files.first)
            #expect(verdict.passed, "\(name): \(verdict.failures)")
            checked += 1
        }
        #expect(checked >= 4, "the corpus has four AAC CAFs")
    }

    @Test("Apple's AAC CAF converts to float with its pakt's valid frames", .enabled(if: RepositoryPaths.realCorpus != nil))
    func apple() throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let folder = TempDirectory()
        let report = Engine.convert(
            inputs: [corpus + "/kstenerud_ObjectAL-for-iPhone__ColdFunk-Intro.caf"], output: folder.file("cold.caf"),
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "LEF32"), jobs: 1))
        let result = try #require(report.files.first)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.frames == 448_877)
    }
}

@Suite("AAC: hostile AAC CAFs", .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
struct AACHostileTests {
    @Test("lying pakt counts, packet sizes past the data, a cut file and a broken kuki fail with a reason")
    func hostile() throws {
        let folder = TempDirectory()
        let good = try convert(
            toneFixture(frames: 9000, channels: 2, sampleRate: 44100).bytes(order: .little),
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1), in: folder)
        let pakt = try #require(good.file.packetTableChunk)
        let kuki = try #require(good.file.chunks.first { $0.type == .kuki })
        func patched(_ at: Int, _ bytes: [UInt8]) -> [UInt8] {
            var copy = good.bytes
            copy.replaceSubrange(at..<at + bytes.count, with: bytes)
            return copy
        }
        let body = Int(pakt.bodyOffset)
        let cases: [(String, [UInt8])] = [
            ("packets", patched(body, [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0])),
            ("valid", patched(body + 8, [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0])),
            ("first-size", patched(body + 24, [0xFF, 0xFF, 0x7F])),
            ("cut", Array(good.bytes[0..<good.bytes.count - 700])),
            ("kuki", patched(Int(kuki.bodyOffset), [0x05])),
        ]
        for (name, bytes) in cases {
            let path = folder.write("\(name).caf", bytes)
            let report = Engine.convert(
                inputs: [path], output: folder.file("out-\(name).caf"), options: ConversionOptions(jobs: 1))
            let result = try #require(report.files.first)
            #expect(result.status == .failed, "\(name): converted")
            #expect(result.reason?.isEmpty == false, "\(name)")
            #expect(!exists(folder.file("out-\(name).caf")), "\(name): an output was left")
            let verdict = Verifier.verify(paths: [path], options: VerifyOptions(against: folder.file("in.wav")))
            #expect(verdict.files.first?.passed == false, "\(name): verify passed")
        }
    }
}

@Suite("AAC: what the decoder produces must be what the container says", .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
struct AACContainerAgreementTests {
    /// An AudioSpecificConfig written bit by bit.
    static func asc(_ fields: [(value: Int, bits: Int)]) -> [UInt8] {
        var bits: [UInt8] = []
        for field in fields { for shift in stride(from: field.bits - 1, through: 0, by: -1) { bits.append(UInt8(field.value >> shift & 1)) } }
        while bits.count % 8 != 0 { bits.append(0) }
        return stride(from: 0, to: bits.count, by: 8).map { start in bits[start..<start + 8].reduce(0) { $0 << 1 | $1 } }
    }

    /// `good` (an AAC CAF cafconv wrote) with its kuki's AudioSpecificConfig replaced by `config`;
    /// the `free` chunk after it absorbs the size change.
    static func rewritten(_ good: Converted, config: [UInt8]) throws -> [UInt8] {
        let kuki = try #require(good.file.chunks.first { $0.type == .kuki })
        let free = try #require(good.file.chunks.first { $0.type == .free })
        let old = try MPEG4ESDescriptor(parsing: Array(good.bytes[Int(kuki.bodyOffset)..<Int(kuki.bodyOffset + kuki.size)]))
        let body = MPEG4ESDescriptor(
            bufferSize: old.bufferSize, maxBitRate: old.maxBitRate, averageBitRate: old.averageBitRate, audioSpecificConfig: config
        ).bytes
        let delta = body.count - Int(kuki.size)
        var bytes = good.bytes
        var freeSize = ByteWriter()
        freeSize.write(Int64(free.size) - Int64(delta), .big)
        bytes.replaceSubrange(Int(free.bodyOffset) - 8..<Int(free.bodyOffset), with: freeSize.bytes)
        var kukiSize = ByteWriter()
        kukiSize.write(Int64(body.count), .big)
        bytes.replaceSubrange(Int(kuki.bodyOffset)..<Int(kuki.bodyOffset + kuki.size), with: body)
        bytes.replaceSubrange(Int(kuki.bodyOffset) - 8..<Int(kuki.bodyOffset), with: kukiSize.bytes)
        // The free chunk changed by `delta` bytes at its end so that `data` stays where it was.
        let freeEnd = Int(free.bodyOffset + free.size) + delta
        if delta >= 0 {
            bytes.removeSubrange(freeEnd - delta..<freeEnd)
        } else {
            bytes.insert(contentsOf: [UInt8](repeating: 0, count: -delta), at: freeEnd)
        }
        return bytes
    }

    @Test("an 'aac ' CAF whose kuki signals HE-AAC (SBR: core 22050 Hz, output 44100 Hz) is refused naming both rates; an ASC rate or channel count that disagrees with desc is refused")
    func heAACIsRefused() throws {
        let folder = TempDirectory()
        let good = try convert(
            toneFixture(frames: 22050, channels: 2, sampleRate: 22050).bytes(order: .little),
            options: ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1), in: folder)
        // audioObjectType 5 (SBR), core rate index 7 (22050), 2 channels, extension rate index 4
        // (44100), then AAC-LC (2) and its GASpecificConfig (3 zero bits).
        let sbr = Self.asc([(5, 5), (7, 4), (2, 4), (4, 4), (2, 5), (0, 3)])
        let lc44100 = Self.asc([(2, 5), (4, 4), (2, 4), (0, 3)])
        let mono = Self.asc([(2, 5), (7, 4), (1, 4), (0, 3)])
        for (name, config, words) in [
            ("sbr", sbr, ["HE-AAC", "22050 Hz", "44100 Hz"]), ("rate", lc44100, ["44100 Hz", "22050.0 Hz"]),
            ("mono", mono, ["1 channels", "'desc' 2"]),
        ] {
            let path = folder.write("\(name).caf", try Self.rewritten(good, config: config))
            let report = Engine.convert(inputs: [path], output: folder.file("out-\(name).caf"), options: ConversionOptions(jobs: 1))
            let result = try #require(report.files.first)
            #expect(result.status == .failed, "\(name): converted")
            for word in words { #expect(result.reason?.contains(word) == true, "\(name): \(result.reason ?? "")") }
            #expect(!exists(folder.file("out-\(name).caf")))
        }
        // The decoder's own output is checked too: libavcodec opened on the SBR config at the
        // desc's 22050 Hz decodes 44100 Hz, and says so.
        let decoder = try AACDecoder(config: sbr, sampleRate: 22050, channels: 2)
        let source = try FileByteSource(path: good.path)
        var reader = try CAFPacketReader(file: good.file, source: source)
        let packet = try #require(try reader.next())
        var output: [Float] = []
        let error = #expect(throws: AACCodecError.self) {
            try decoder.decode(try source.readExactly(at: packet.offset, count: packet.size), into: &output)
            try decoder.finish(into: &output)
        }
        #expect(error?.message.contains("44100 Hz") == true, "\(error?.message ?? "")")
    }
}

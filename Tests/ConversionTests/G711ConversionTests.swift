import BinaryIO
import CAFKit
@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import Synchronization
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// µ-law and A-law sources and outputs: fixtures built here, expectations from `G711Referee`.
enum G711Fixtures {
    /// Every 16-bit value once, in ascending order.
    static let sixteenBit: [Int32] = (-32768...32767).map { Int32($0) }

    /// Every 16-bit value once in the top 16 bits, with varying low 8 bits (ties included), then
    /// every decision threshold of both laws, a 24-bit step either side, both signs.
    static let twentyFourBit: [Int32] = {
        var values = sixteenBit.enumerated().map { index, value in value << 8 | Int32(index * 0x9D & 0xFF) }
        for law in G711Law.allCases {
            for index in 1..<128 {
                let threshold = Int32(law.levelMagnitude(index - 1) + law.levelMagnitude(index)) * 128  // x256 / 2
                for offset: Int32 in [-1, 0, 1] { values += [threshold + offset, -(threshold + offset)] }
            }
        }
        return values
    }()

    /// Every 16-bit value once as a float (`s / 32768`) with a fraction of 1/256 LSB steps, then
    /// values beyond full scale, NaN and -0.
    static let float: [Double] =
        sixteenBit.enumerated().map { index, value in (Double(value) + Double(index * 0x9D & 0xFF) / 256) / 32768 }
        + [1.0, -1.0, 1.5, -1.5, .nan, -0.0, 0.0, -1.0 / 32768, 1.0 / 32768, 126.0 / 32768, -126.0 / 32768]

    /// A WAV (RIFF, or RIFX when `order` is `.big`) of G.711 codes: format 7 (µ-law) or 6 (A-law).
    static func wave(_ law: G711Law, codes: [UInt8], channels: Int, order: ByteOrder = .little) -> [UInt8] {
        var fmt = ByteWriter()
        fmt.write(UInt16(law == .muLaw ? 7 : 6), order)
        fmt.write(UInt16(channels), order)
        fmt.write(UInt32(8000), order)
        fmt.write(UInt32(8000 * channels), order)
        fmt.write(UInt16(channels), order)
        fmt.write(UInt16(8), order)
        fmt.write(UInt16(0), order)
        return WAVFixture.riff(chunks: [("fmt ", fmt.bytes), ("data", codes)], order: order)
    }

    /// All 256 codes three times, then -0 / +8 (and +0 / -8) once more: 770 samples.
    static let everyCode: [UInt8] =
        Array((0...255).map { UInt8($0) }) + (0...255).map { UInt8($0) }
        + (0...255).map { UInt8(255 - $0) } + [0x7F, 0xFF]
}

@Suite("µ-law and A-law: cafconv's G.711 codes, sign kept, every code proven")
struct G711ConversionTests {
    static let orders: [ByteOrder] = [.little, .big]

    /// A fixture of the given PCM source encoding, and the 16-bit-scale value of each sample.
    static func source(_ encoding: WAVFixture.Encoding) -> (fixture: WAVFixture, values: [Double]) {
        switch encoding {
        case .int24:
            return (
                WAVFixture(encoding: .int24, channels: 2, integers: G711Fixtures.twentyFourBit),
                G711Fixtures.twentyFourBit.map { Double($0) / 256 }
            )
        case .float32:
            return (
                WAVFixture(encoding: .float32, channels: 1, floats: G711Fixtures.float),
                G711Fixtures.float.map { Double(Float($0)) * 32768 }
            )
        default:
            return (
                WAVFixture(encoding: .int16, channels: 1, integers: G711Fixtures.sixteenBit),
                G711Fixtures.sixteenBit.map { Double($0) }
            )
        }
    }

    func dataFormat(_ law: G711Law) throws -> ConversionOptions {
        ConversionOptions(dataFormat: try DataFormat(parsing: law.rawValue), jobs: 1)
    }

    @Test(
        "every sample codes to the nearest level of its sign, -32768 included (16-bit, 24-bit, float; RIFF and RIFX)",
        arguments: [WAVFixture.Encoding.int16, .int24, .float32], G711Law.allCases)
    func everyValue(encoding: WAVFixture.Encoding, law: G711Law) throws {
        let (fixture, values) = Self.source(encoding)
        let expected = values.map { G711Referee.code(law, $0) }
        for order in Self.orders {
            let converted = try convert(fixture.bytes(order: order), options: try dataFormat(law))
            expectCleanLayout(converted.file)
            #expect(converted.file.audioDescription.formatID == law.formatID)
            #expect(converted.file.audioDescription.bytesPerPacket == UInt32(fixture.channels))
            #expect(converted.result.samples == .g711Encoded)
            #expect(converted.result.frames == Int64(values.count / fixture.channels))
            let codes = Array(audio(converted))
            expectSameSamples(codes, expected, "\(law) codes from \(encoding) \(order)")
            // Spelled out: the most negative sample is the most negative level, not the most positive.
            let first = try #require(codes.first)
            #expect(
                law.decode(first) == (law == .muLaw ? -32124 : -32256), "\(encoding) \(order): -32768 became \(law.decode(first))"
            )
        }
    }

    @Test(
        "µ-law and A-law sources kept as they are: byte for byte (RIFF and RIFX, 1 and 2 channels)", arguments: G711Law.allCases)
    func sameLawCopied(law: G711Law) throws {
        for order in Self.orders {
            for channels in [1, 2] {
                let wave = G711Fixtures.wave(law, codes: G711Fixtures.everyCode, channels: channels, order: order)
                for options in [ConversionOptions(jobs: 1), try dataFormat(law)] {
                    let converted = try convert(wave, options: options)
                    expectCleanLayout(converted.file)
                    #expect(converted.file.audioDescription.formatID == law.formatID)
                    #expect(converted.result.samples == .copied)
                    expectSameSamples(Array(audio(converted)), G711Fixtures.everyCode, "\(law) \(order) \(channels) ch")
                }
            }
        }
    }

    @Test("µ-law to A-law and back: the nearest level of the source's level, sign kept", arguments: G711Law.allCases)
    func otherLaw(law: G711Law) throws {
        let other: G711Law = law == .muLaw ? .aLaw : .muLaw
        let wave = G711Fixtures.wave(other, codes: G711Fixtures.everyCode, channels: 1, order: .big)
        let converted = try convert(wave, options: try dataFormat(law))
        #expect(converted.result.samples == .g711Encoded)
        let expected = G711Fixtures.everyCode.map { G711Referee.code(law, Double(other.decode($0))) }
        expectSameSamples(Array(audio(converted)), expected)
    }

    /// Runs `convert`'s proof on the µ-law CAF at `path` against the WAV at `source`.
    func prove(_ path: String, source: String, codesCopied: Bool = false) throws -> Proof {
        try ProofStage.prove(
            path, document: try CAFDocument(reading: try FileByteSource(path: path)),
            target: TargetFormat(encoding: .ulaw, byteOrder: .little), source: try SourceAudio.open(source),
            codesCopied: codesCopied, blockSamples: 1 << 16, isCancelled: { false })
    }

    @Test(
        "µ-law and A-law sources are decoded by cafconv; every output names its proof, and verify --against names the same",
        arguments: G711Law.allCases)
    func sourcesNameTheirProof(law: G711Law) throws {
        let other: G711Law = law == .muLaw ? .aLaw : .muLaw
        let wave = G711Fixtures.wave(law, codes: G711Fixtures.everyCode, channels: 2, order: .big)
        for (format, comparison, rule) in [
            (nil, "exact", nil), (law.rawValue, "exact", nil), (other.rawValue, "exact-after-rule", "g711-\(other.rawValue)"),
            ("LEI16", "exact", nil), ("BEI24", "exact-after-rule", "16-to-24-bit"), ("F32", "exact-after-rule", "int-to-float"),
        ] as [(String?, String, String?)] {
            let options = ConversionOptions(dataFormat: try format.map { try DataFormat(parsing: $0) }, jobs: 1)
            let converted = try convert(wave, options: options)
            let proof = try #require(converted.result.proof, "\(format ?? "default")")
            #expect(proof.comparison == comparison && proof.rule == rule, "\(format ?? "default"): \(proof)")
            #expect(proof.sourceDecoder == "cafconv" && proof.outputDecoder == "cafkit" && proof.extent == "every-frame")
            let verified = Verifier.verify(
                paths: [converted.path], options: VerifyOptions(against: converted.folder.file("in.wav")))
            #expect(verified.succeeded, "\(format ?? "default"): \(verified.files.flatMap(\.failures))")
            #expect(verified.files.first?.comparison?.rule == rule)
            #expect(verified.files.first?.comparison?.comparison == comparison)
        }
    }

    @Test("the proof checks every code: one wrong code anywhere fails the file, naming frame and channel")
    func proofChecksEveryCode() throws {
        let folder = TempDirectory()
        let (fixture, _) = Self.source(.int24)
        let converted = try convert(fixture.bytes(order: .big), options: try dataFormat(.muLaw), in: folder)
        #expect(try prove(converted.path, source: folder.file("in.wav")).rule == "g711-ulaw")
        // Frame 33000 of 33530 (in the proof's second block of 32768 frames), channel 2: its sign bit flipped.
        var bytes = converted.bytes
        let position = Int(converted.file.audioOffset) + 33000 * 2 + 1
        bytes[position] ^= 0x80
        writeFile(converted.path, bytes)
        #expect {
            try prove(converted.path, source: folder.file("in.wav"))
        } throws: { error in
            guard case .proof(.sampleDiffers(frame: 33000, channel: 2, _, let expected, _, _))? = error as? ConversionError
            else { return false }
            return expected.contains("G.711 rule")
        }
        // A copied source is compared byte for byte: µ-law -0 turned into +0 is caught too.
        let wave = G711Fixtures.wave(.muLaw, codes: G711Fixtures.everyCode, channels: 1)
        let copied = try convert(wave, options: ConversionOptions(jobs: 1))
        var copy = copied.bytes
        let last = Int(copied.file.audioOffset) + G711Fixtures.everyCode.count - 2
        #expect(copy[last] == 0x7F)
        copy[last] = 0xFF
        writeFile(copied.path, copy)
        #expect {
            try prove(copied.path, source: copied.folder.file("in.wav"), codesCopied: true)
        } throws: { error in
            guard case .proof(.sampleDiffers(frame: 768, channel: 1, let found, let expected, _, _))? = error as? ConversionError
            else { return false }
            return "\(found) \(expected)".contains("0x7F")
        }
        // Compared level by level (not a copy), the same file passes: -0 and +0 are both 0.
        #expect(try prove(copied.path, source: copied.folder.file("in.wav")).comparison == "exact")
    }

    /// Flips the top bit of the byte at `position` of the temporary output in `folder` once it
    /// is `size` bytes long: the codes are all written, libsndfile has not closed it yet.
    final class Saboteur: Sendable {
        let done = Atomic<Bool>(false)
        let folder: String
        let size: Int
        let position: Int

        init(folder: String, size: Int, position: Int) {
            self.folder = folder
            self.size = size
            self.position = position
        }

        /// The temporary output: a named one in the folder, or the unnamed one (`O_TMPFILE`) this
        /// process holds open, found through /proc/self/fd.
        func temporary() -> String? {
            if let name = temporaryFiles(under: folder).first { return folder + "/" + name }
            guard let listing = opendir("/proc/self/fd") else { return nil }
            defer { closedir(listing) }
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                let link = "/proc/self/fd/" + name
                var buffer = [CChar](repeating: 0, count: 4096)
                let count = readlink(link, &buffer, buffer.count - 1)
                guard count > 0 else { continue }
                let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if target.hasPrefix(folder + "/#") && target.hasSuffix(" (deleted)") { return link }
            }
            return nil
        }

        func strike() -> Bool {
            guard !done.load(ordering: .relaxed), let path = temporary() else { return false }
            var status = stat()
            guard stat(path, &status) == 0, Int(status.st_size) == size else { return false }
            let fd = open(path, O_RDWR)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var byte: UInt8 = 0
            guard pread(fd, &byte, 1, off_t(position)) == 1 else { return false }
            byte ^= 0x80
            guard pwrite(fd, &byte, 1, off_t(position)) == 1 else { return false }
            done.store(true, ordering: .relaxed)
            return false
        }
    }

    @Test("convert runs the proof: a code changed after writing fails the file, which is not put in place")
    func convertRunsTheProof() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture(encoding: .int16, channels: 1, integers: G711Fixtures.sixteenBit).bytes)
        let output = folder.file("out.caf")
        // libsndfile puts the audio of a CAF it writes at byte 4096 (after a 'free' chunk).
        let saboteur = Saboteur(folder: folder.path, size: 4096 + 65536, position: 4096 + 50000)
        let report = Engine.run(
            inputs: [input], output: output, options: try dataFormat(.muLaw),
            cancellation: Cancellation(also: { saboteur.strike() }))
        let struck = saboteur.done.load(ordering: .relaxed)
        #expect(struck, "the output was never seen complete")
        let result = try #require(report.files.first)
        #expect(result.status == .failed)
        #expect(
            { if case .proof(.sampleDiffers(frame: 50000, channel: 1, _, _, _, _))? = result.error { true } else { false } }(),
            "\(result.reason ?? "")")
        #expect(!exists(output))
        #expect(temporaryFiles(under: folder.path).isEmpty)
    }

    @Test("convert's proof of a copy is byte for byte: µ-law -0 turned into +0 on disk fails the file")
    func convertProvesTheCopy() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", G711Fixtures.wave(.muLaw, codes: G711Fixtures.everyCode, channels: 1))
        let output = folder.file("out.caf")
        // Code 768 is -0 (0x7F); its top bit flipped makes it +0 (0xFF), the same level.
        let saboteur = Saboteur(folder: folder.path, size: 4096 + G711Fixtures.everyCode.count, position: 4096 + 768)
        let report = Engine.run(
            inputs: [input], output: output, options: try dataFormat(.muLaw),
            cancellation: Cancellation(also: { saboteur.strike() }))
        let struck = saboteur.done.load(ordering: .relaxed)
        #expect(struck, "the output was never seen complete")
        let result = try #require(report.files.first)
        #expect(result.status == .failed)
        #expect(
            {
                guard case .proof(.sampleDiffers(frame: 768, channel: 1, let found, let expected, _, _))? = result.error else {
                    return false
                }
                return "\(found) \(expected)".contains("0x7F")
            }(), "\(result.reason ?? "")")
        #expect(!exists(output))
    }

    @Test("the proof decodes the source with cafconv's own readers when WAVEKit knows the format")
    func independentReference() throws {
        let folder = TempDirectory()
        let pcm = folder.write("pcm.wav", WAVFixture.signal(.int24, channels: 2, frames: 10).bytes(order: .big))
        let law = folder.write("law.wav", G711Fixtures.wave(.aLaw, codes: G711Fixtures.everyCode, channels: 2))
        guard case .cafconv(let samples, _) = try SourceAudio.open(pcm).decoder else {
            Issue.record("a 24-bit RIFX source must be decoded by cafconv's WAV reader")
            return
        }
        #expect(samples.bits == 24 && samples.byteOrder == .big && samples.channels == 2 && samples.law == nil)
        let codes = try SourceAudio.open(law)
        #expect(codes.decoderName == "cafconv" && codes.law == .aLaw)
        // Its levels, left-justified as libsndfile gives integers.
        var ints = [Int32](repeating: 0, count: 8)
        var doubles = [Double](repeating: 0, count: 8)
        #expect(try codes.read(ints: &ints, doubles: &doubles, frames: 4) == 4)
        #expect(ints == G711Fixtures.everyCode[0..<8].map { Int32(G711Law.aLaw.decode($0)) << 16 })
    }

    @Test(
        "verify --against passes cafconv's µ-law and A-law outputs and says which rule a wrong code breaks",
        arguments: G711Law.allCases)
    func verifyAgainst(law: G711Law) throws {
        let folder = TempDirectory()
        for (name, bytes) in [
            ("i16", Self.source(.int16).fixture.bytes), ("i24", Self.source(.int24).fixture.bytes(order: .big)),
            ("f32", Self.source(.float32).fixture.bytes),
            ("same", G711Fixtures.wave(law, codes: G711Fixtures.everyCode, channels: 2)),
        ] {
            folder.write("src/\(name).wav", bytes)
        }
        let report = Engine.convert(inputs: [folder.file("src")], output: folder.file("out"), options: try dataFormat(law))
        #expect(report.succeeded, "\(report.files.compactMap(\.reason))")
        let verified = Verifier.verify(paths: [folder.file("out")], options: VerifyOptions(against: folder.file("src")))
        #expect(verified.files.count == 4)
        #expect(verified.succeeded, "\(verified.files.flatMap(\.failures))")

        // The old libsndfile output: -32768 (frame 0) coded as positive full scale.
        let output = folder.file("out/i16.caf")
        var bytes = try #require(readFile(output))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        bytes[Int(file.audioOffset)] ^= 0x80
        writeFile(output, bytes)
        let failure = try #require(
            Verifier.verify(paths: [output], options: VerifyOptions(against: folder.file("src/i16.wav"))).files.first?.failures
                .first)
        #expect(failure.code == "against")
        #expect(failure.expected.contains("frame 0, channel 1"), "\(failure)")
        #expect(failure.expected.contains("G.711 rule"), "\(failure)")
        #expect(failure.expected.contains("-32768"), "\(failure)")
        #expect(failure.offset == file.audioOffset)

        // A same-law source is compared level by level: µ-law's -0 re-coded as +0 still passes.
        let same = folder.file("out/same.caf")
        var copy = try #require(readFile(same))
        let copyFile = try CAFFile(reading: MemoryByteSource(copy))
        let zero = Int(copyFile.audioOffset) + G711Fixtures.everyCode.count - 2
        copy[zero] = law == .muLaw ? 0xFF : 0x55
        writeFile(same, copy)
        let sameSource = VerifyOptions(against: folder.file("src/same.wav"))
        #expect(Verifier.verify(paths: [same], options: sameSource).succeeded == (law == .muLaw))
        copy[Int(copyFile.audioOffset) + 5] ^= 0x01
        writeFile(same, copy)
        #expect(!Verifier.verify(paths: [same], options: sameSource).succeeded)
    }
}

/// An independent reference: ffmpeg's pcm_mulaw and pcm_alaw codecs.
@Suite("G.711 against ffmpeg", .enabled(if: which("ffmpeg") != nil, "ffmpeg is not installed: skipping the G.711 cross-check"))
struct G711FFmpegTests {
    func ffmpeg(_ arguments: [String]) throws -> [UInt8] {
        let result = try run(try #require(which("ffmpeg")), ["-v", "error"] + arguments)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("ffmpeg decodes every code to the same level", arguments: G711Law.allCases)
    func decoder(law: G711Law) throws {
        let folder = TempDirectory()
        let input = folder.write("codes.wav", G711Fixtures.wave(law, codes: G711Fixtures.everyCode, channels: 1))
        let decoded = PCMLayout(bits: 16, isFloat: false, byteOrder: .little, channels: 1)
            .decodeIntegers(try ffmpeg(["-i", input, "-f", "s16le", "-"])[...])
        expectSameSamples(decoded, G711Fixtures.everyCode.map { Int32(law.decode($0)) })
    }

    @Test(
        "ffmpeg's encoder agrees once its 14-bit input is taken into account: code(x) = ours(4 * floor(x / 4))",
        arguments: G711Law.allCases)
    func encoder(law: G711Law) throws {
        let folder = TempDirectory()
        let input = folder.write("all.wav", WAVFixture(encoding: .int16, channels: 1, integers: G711Fixtures.sixteenBit).bytes)
        let theirs = try ffmpeg([
            "-i", input, "-f", law == .muLaw ? "mulaw" : "alaw", "-c:a", "pcm_\(law == .muLaw ? "mulaw" : "alaw")", "-",
        ])
        try #require(theirs.count == 65536)
        var disagreements = 0
        var nearer = 0
        for (index, value) in G711Fixtures.sixteenBit.enumerated() {
            // ffmpeg drops the low two bits by an arithmetic shift (towards minus infinity) first.
            if theirs[index] != law.encode(Int16(4 * (Int(value) >> 2))) { disagreements += 1 }
            let ours = law.encode(Int16(value))
            if (Double(value) - Double(law.decode(theirs[index]))).magnitude
                < (Double(value) - Double(law.decode(ours))).magnitude
            {
                nearer += 1
            }
        }
        #expect(disagreements == 0)
        #expect(nearer == 0, "ffmpeg found a nearer level than cafconv for \(nearer) values")
    }

    @Test("ffmpeg reads cafconv's µ-law and A-law CAF as the nearest levels of the source", arguments: G711Law.allCases)
    func readsOurCAF(law: G711Law) throws {
        let fixture = WAVFixture(encoding: .int16, channels: 1, integers: G711Fixtures.sixteenBit)
        let converted = try convert(
            fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: law.rawValue), jobs: 1))
        let decoded = PCMLayout(bits: 16, isFloat: false, byteOrder: .little, channels: 1)
            .decodeIntegers(try ffmpeg(["-i", converted.path, "-f", "s16le", "-"])[...])
        expectSameSamples(decoded, G711Fixtures.sixteenBit.map { Int32(law.decode(G711Referee.code(law, Double($0)))) })
    }
}

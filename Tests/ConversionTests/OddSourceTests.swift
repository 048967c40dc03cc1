import BinaryIO
import CAFKit
@testable import ConversionModel
import Foundation
@testable import IncrementalState
import Inspection
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// Sources and outputs at the edges (issue 30): RIFX WAVE_FORMAT_EXTENSIBLE in both GUID
/// layouts, ALAC compared at its own depth, 0-frame sources, a full disk, a lying `info` count.
@Suite("Odd sources: RIFX EXTENSIBLE GUID layouts, ALAC depths in verify, 0 frames, a full disk, a lying info count")
struct OddSourceTests {
    static let frames = 2000

    /// A triangle per channel, on the 24-bit scale.
    static func samples(channels: Int) -> [Int32] {
        (0..<frames * channels).map { index in
            let phase = (index / channels * (53 + 17 * (index % channels))) % 8000
            return Int32(phase < 4000 ? phase * 1000 - 2_000_000 : 6_000_000 - phase * 1000)
        }
    }

    /// A RIFX (big-endian) WAVE_FORMAT_EXTENSIBLE file of 24-bit PCM, stereo, 44100 Hz. The
    /// KSDATAFORMAT_SUBTYPE_PCM GUID 00000001-0000-0010-8000-00AA00389B71 has its first three
    /// fields big-endian (`riffLayout` false, as libsndfile writes it) or little-endian, the 16
    /// bytes a RIFF file holds (`riffLayout` true, as other writers copy them).
    static func rifxExtensible(riffLayout: Bool) -> [UInt8] {
        let channels = 2
        var fmt = ByteWriter()
        fmt.write(UInt16(0xFFFE), .big)
        fmt.write(UInt16(channels), .big)
        fmt.write(UInt32(44100), .big)
        fmt.write(UInt32(44100 * 3 * channels), .big)
        fmt.write(UInt16(3 * channels), .big)
        fmt.write(UInt16(24), .big)
        fmt.write(UInt16(22), .big)
        fmt.write(UInt16(24), .big)
        fmt.write(UInt32(3), .big)
        let order: ByteOrder = riffLayout ? .little : .big
        fmt.write(UInt32(1), order)
        fmt.write(UInt16(0), order)
        fmt.write(UInt16(0x10), order)
        fmt.write(bytes: [0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        var data = ByteWriter()
        for sample in samples(channels: channels) {
            let bits = UInt32(bitPattern: sample)
            data.write(bytes: [UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits)])
        }
        var body = ByteWriter()
        body.write(bytes: Array("WAVE".utf8))
        for (id, chunk) in [("fmt ", fmt.bytes), ("data", data.bytes)] {
            body.write(bytes: Array(id.utf8))
            body.write(UInt32(chunk.count), .big)
            body.write(bytes: chunk)
        }
        var file = ByteWriter()
        file.write(bytes: Array("RIFX".utf8))
        file.write(UInt32(body.bytes.count), .big)
        file.write(bytes: body.bytes)
        return file.bytes
    }

    @Test("RIFX WAVE_FORMAT_EXTENSIBLE in both GUID layouts: info says big-endian lpcm, convert decodes it exactly, verify passes", arguments: [false, true])
    func rifxExtensible(riffLayout: Bool) throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", Self.rifxExtensible(riffLayout: riffLayout))
        let info = Inspector.inspect(path: input)
        #expect(info.format == "lpcm" && info.byteOrder == "big" && info.isFloat == false, "\(info)")
        #expect(info.bitsPerChannel == 24 && info.frames == UInt64(Self.frames), "\(info)")
        let output = folder.file("out.caf")
        let report = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1))
        let result = try #require(report.files.first)
        try #require(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.formatIn == "BEI24", "\(String(describing: result.formatIn))")
        let bytes = try #require(readFile(output))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let layout = try #require(PCMLayout(file.audioDescription))
        #expect(layout.bits == 24 && file.validFrames == UInt64(Self.frames))
        let start = Int(file.audioOffset)
        let decoded = layout.decodeIntegers(bytes[start..<start + Int(file.audioBytes)])
        expectSameSamples(decoded, Self.samples(channels: 2))
        let verified = try #require(Verifier.verify(paths: [output], options: VerifyOptions(against: input)).files.first)
        #expect(verified.failures.isEmpty, "\(verified.failures)")
    }

    @Test("verify --against compares convert's ALAC at the depth it was encoded from, after a resampling or a mix too", arguments: ["alac16", "alac20", "alac24", "alac32"])
    func alacDepths(format: String) throws {
        let folder = TempDirectory()
        // 16-bit triangles (libsndfile's ALAC encoder fails on some full-scale noise).
        let fixture = WAVFixture(encoding: .int16, channels: 2, integers: Self.samples(channels: 2).map { $0 >> 8 })
        let input = folder.write("in.wav", fixture.bytes)
        for (name, rate, channels) in [("plain", nil, nil), ("rate", 48000, nil), ("mono", nil, 1)] as [(String, Int?, Int?)] {
            let output = folder.file("\(name).caf")
            let options = ConversionOptions(
                dataFormat: try DataFormat(parsing: format), jobs: 1, sampleRate: rate, channels: channels)
            let report = Engine.convert(inputs: [input], output: output, options: options)
            try #require(report.succeeded, "\(format) \(name): \(report.files.first?.reason ?? "")")
            let verified = try #require(Verifier.verify(paths: [output], options: VerifyOptions(against: input)).files.first)
            #expect(verified.failures.isEmpty, "\(format) \(name): \(verified.failures)")
        }
    }

    @Test("a 0-frame source converts to every format: LPCM, ulaw, alaw, alac (all depths), ima4, aac")
    func emptySource() throws {
        let folder = TempDirectory()
        let fixture = WAVFixture(encoding: .int16, channels: 2)
        let input = folder.write("empty.wav", fixture.bytes)
        for format in ["LEI16", "BEF32", "ulaw", "alaw", "alac", "alac16", "alac20", "alac32", "ima4", "aac"] {
            let output = folder.file("\(format).caf")
            let report = Engine.convert(
                inputs: [input], output: output, options: ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1))
            let result = try #require(report.files.first)
            #expect(result.status == .converted, "\(format): \(result.reason ?? "")")
            guard result.status == .converted else { continue }
            let file = try CAFFile(reading: try FileByteSource(path: output))
            #expect(file.validFrames ?? 0 == 0, "\(format)")
            #expect(CAFValidator.validate(file).isEmpty, "\(format): \(CAFValidator.validate(file))")
        }
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, `mount` installed).
    static let canMount: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return false }
        let folder = TempDirectory()
        let point = folder.file("probe")
        try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point]) == 0 else { return false }
        _ = run("/bin/umount", [point])
        return true
    }()

    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        (try? BoundedProcess.run(tool, arguments, timeout: 120))?.status ?? -1
    }

    @Test(
        "on a full disk every road, ALAC included, names 'No space left on device' (a 64 KiB tmpfs)",
        .enabled(if: canMount, "needs root and mount(8) to make a 64 KiB tmpfs"))
    func fullDisk() throws {
        let folder = TempDirectory()
        let fixture = WAVFixture(
            encoding: .int16, channels: 2, integers: (0..<40).flatMap { _ in Self.samples(channels: 2).map { $0 >> 8 } })
        let input = folder.write("big.wav", fixture.bytes)
        let point = folder.file("small")
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        try #require(Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point]) == 0)
        defer { _ = Self.run("/bin/umount", [point]) }
        for format in ["alac", "alac24", "LEI16", "ima4"] {
            let report = Engine.convert(
                inputs: [input], output: point + "/\(format).caf",
                options: ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1))
            let result = try #require(report.files.first)
            #expect(result.status == .failed, "\(format)")
            #expect(result.code == .io, "\(format): \(String(describing: result.code)) \(result.reason ?? "")")
            #expect(result.reason?.contains("No space left on device") == true, "\(format): \(result.reason ?? "")")
        }
    }

    @Test("a CAF source whose info count says more pairs than it holds: the output gets the pairs present, the true count, a warning")
    func lyingInfoCount() throws {
        let folder = TempDirectory()
        var audio = ByteWriter()
        for sample in Self.samples(channels: 1) { audio.write(Int16(truncatingIfNeeded: sample >> 8), .little) }
        let desc = AudioDescription(
            sampleRate: 44100, formatID: .lpcm, formatFlags: 2, bytesPerPacket: 2, framesPerPacket: 1, channelsPerFrame: 1,
            bitsPerChannel: 16)
        var info = InfoStrings([InfoEntry(key: "title", value: "Lies"), InfoEntry(key: "artist", value: "Someone")])
        info.declaredCount = 5
        let bytes = try CAFWriter.bytes(
            of: CAFContents(chunks: [
                .description(desc), .info(info), .audioData(AudioDataChunk(editCount: 0, audio: .bytes(audio.bytes))),
            ]))
        let input = folder.write("liar.caf", bytes)
        for format in ["LEI16", "BEI24", "ima4"] {
            let output = folder.file("\(format).caf")
            let report = Engine.convert(
                inputs: [input], output: output, options: ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1))
            let result = try #require(report.files.first)
            try #require(result.status == .converted, "\(format): \(result.reason ?? "")")
            #expect(
                result.warnings.contains {
                    if case .metadata(.infoCount("info", declared: 5, held: 2, _)) = $0 { true } else { false }
                }, "\(result.warnings)")
            let document = try CAFDocument(reading: try FileByteSource(path: output))
            let written = document.contents.chunks.compactMap { chunk -> InfoStrings? in
                if case .info(let value) = chunk { return value }
                return nil
            }
            #expect(written.first?.declaredCount == 2 && written.first?.entries.count == 2, "\(written)")
            #expect(CAFValidator.validate(document).isEmpty, "\(CAFValidator.validate(document))")
            let verified = try #require(Verifier.verify(paths: [output], options: VerifyOptions(against: input)).files.first)
            #expect(verified.failures.isEmpty, "\(format): \(verified.failures)")
        }
    }
}

import BinaryIO
import CAFKit
import ConversionModel
import Conversion
import Foundation
import Opus
import TestSupport
import Testing

@testable import Transcoding

/// `-d opus` through the engine: the codec table line, the rate rule (`@RATE`, else 48000 unless
/// the source's rate is Opus's), `-b`, `-s 0`, refusals, and an Ogg Opus source's packets moved.
@Suite("Opus conversions", .enabled(if: (try? LibOpus.load()) != nil, "libopus is absent"))
struct OpusConversionTests {
    static func options(_ format: String, rate: Int? = nil, bitRate: Int? = nil, strategy: Int? = nil) throws -> ConversionOptions {
        var options = ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1)
        options.sampleRate = rate
        options.bitRate = bitRate
        options.bitRateStrategy = strategy
        return options
    }

    @Test(
        "the coded rate: 44100 becomes 48000, 16000 stays, @24000 is asked; exact length and lag 0 each time",
        arguments: [(44_100, nil, 48_000), (16_000, nil, 16_000), (44_100, 24_000, 24_000), (48_000, 8000, 8000)] as [(Int, Int?, Int)])
    func rates(source: Int, asked: Int?, coded: Int) throws {
        let fixture = noiseFixture(frames: source / 2 + 333, channels: 2, sampleRate: source)
        let converted = try convert(fixture.bytes(order: .little), options: try Self.options("opus", rate: asked))
        let desc = converted.file.audioDescription
        #expect(desc.formatID == .opus && desc.sampleRate == Double(coded) && Int(desc.framesPerPacket) == coded / 50)
        let header = try #require(converted.file.packetTableHeader)
        #expect(Int(header.primingFrames) == 312 * coded / 48_000)
        let proof = try #require(converted.result.proof)
        #expect(proof.comparison == "lossy" && proof.peakLag == 0, "\(proof)")
        #expect(converted.result.samples == .opusEncoded)
        // The valid frames are the transformed source's: every source frame at the coded rate.
        #expect(converted.result.frames == header.numberValidFrames)
        if source == coded { #expect(header.numberValidFrames == Int64(source / 2 + 333)) }
        #expect(CAFValidator.validate(converted.file).isEmpty)
        #expect(converted.file.chunks.map(\.type) == [.desc, .kuki, .chan, .pakt, .free, .data])
    }

    @Test("-s 0 with -b: every packet the same size (CBR), and the cookie says the bit rate")
    func constantBitRate() throws {
        let fixture = noiseFixture(frames: 48_000, channels: 1, sampleRate: 48_000)
        let converted = try convert(fixture.bytes(order: .little), options: try Self.options("opus", bitRate: 64_000, strategy: 0))
        let document = try CAFDocument(reading: MemoryByteSource(converted.bytes))
        let table = try #require(document.contents.packetTable)
        #expect(Set(table.entries.compactMap(\.byteSize)) == [160])
        let cookie = try OpusCookie(parsing: try #require(document.contents.magicCookie).bytes)
        #expect(cookie.bitRate == 64_000 && cookie.application == 2049)
        #expect(converted.result.proof?.bitRate == 64_000)
    }

    @Test("refusals: a rate Opus has not, three channels, a bit rate out of range")
    func refusals() throws {
        let folder = TempDirectory()
        let wav = folder.write("in.wav", noiseFixture(frames: 4800, channels: 3, sampleRate: 48_000).bytes(order: .little))
        let three = Engine.convert(inputs: [wav], output: folder.file("a.caf"), options: try Self.options("opus"))
        #expect(three.files.first?.reason?.contains("1 or 2 channels, not 3") == true, "\(three.files.first?.reason ?? "")")
        let mono = folder.write("mono.wav", noiseFixture(frames: 4800, channels: 1, sampleRate: 48_000).bytes(order: .little))
        let rate = Engine.convert(inputs: [mono], output: folder.file("b.caf"), options: try Self.options("opus", rate: 44_100))
        #expect(rate.files.first?.reason?.contains("not 44100") == true, "\(rate.files.first?.reason ?? "")")
        let bits = Engine.convert(inputs: [mono], output: folder.file("c.caf"), options: try Self.options("opus", bitRate: 1000))
        #expect(bits.files.first?.reason?.contains("6000 to 256000") == true, "\(bits.files.first?.reason ?? "")")
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.caf")))
    }

    @Test(
        "an Ogg Opus source asked -d opus has its packets moved, not encoded again; -b forces a re-encode",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg is absent"))
    func moved() throws {
        let folder = TempDirectory()
        let wav = folder.write("s.wav", toneFixture(frames: 48_000 + 100, channels: 2, sampleRate: 48_000).bytes(order: .little))
        let ogg = folder.file("s.opus")
        let made = try runMerged("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libopus", "-b:a", "96k", ogg])
        try #require(made.status == 0, "\(made.text)")
        let report = Engine.convert(inputs: [ogg], output: folder.file("moved.caf"), options: try Self.options("opus"))
        let result = try #require(report.files.first)
        #expect(result.status == .converted, "reason: \(result.reason ?? "none")")
        #expect(result.samples == .opusMoved)
        #expect(result.proof?.extent == "every-packet" && result.proof?.primingFrames == 312)
        #expect(result.frames == 48_100)
        let file = try CAFFile(reading: try FileByteSource(path: folder.file("moved.caf")))
        #expect(file.packetTableHeader?.numberValidFrames == 48_100)
        let again = Engine.convert(inputs: [ogg], output: folder.file("encoded.caf"), options: try Self.options("opus", bitRate: 64_000))
        #expect(again.files.first?.samples == .opusEncoded, "\(again.files.first?.reason ?? "")")
    }
}

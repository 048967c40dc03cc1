import BinaryIO
import CAFKit
import ConversionModel
import Foundation
import Opus
import OutputFiles
import TestSupport
import Testing

@testable import Transcoding

/// Frames held in memory as doubles: a source for the Opus stage without a file.
final class MemoryFrames: FrameSource {
    let channels: Int
    let sampleRate: Int
    var exactSampleRate: Double { Double(sampleRate) }
    let isFloat = true
    let bits = 32
    let decoderName = "memory"
    let law: G711Law? = nil
    private let samples: [Double]
    private var position = 0

    init(_ samples: [Double], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    func codes(from start: Int64, count: Int) throws(SourceError) -> [UInt8]? { nil }

    func read(ints: inout [Int32], doubles: inout [Double], frames: Int) throws(SourceError) -> Int {
        let count = min(frames, (samples.count - position) / channels)
        for index in 0..<(count * channels) { doubles[index] = samples[position + index] }
        position += count * channels
        return count
    }
}

/// `-d opus`'s Encoder, Container and Proof stages, checked by readers that are not the writer:
/// CAFKit's validator and packet reader, libopus's reference decoder, and ffmpeg's own Opus
/// decoder (libavcodec's native one, a different implementation) for the alignment.
@Suite("Opus output")
struct OpusOutputTests {
    static let available = (try? LibOpus.load()) != nil
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let appleFile: String = {
        URL(fileURLWithPath: RepositoryPaths.root).deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/apple-opus/jt274_ogg_caf_converter__test.caf").standardizedFileURL.path
    }()
    static let applePresent = FileManager.default.fileExists(atPath: appleFile)

    /// Broadband audio: a chord plus swelling noise, a different mix per channel.
    static func music(frames: Int, channels: Int, rate: Int) -> [Double] {
        var samples = [Double](repeating: 0, count: frames * channels)
        var state: UInt64 = 7
        for frame in 0..<frames {
            let t = Double(frame) / Double(rate)
            for channel in 0..<channels {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Double(Int64(bitPattern: state)) / Double(Int64.max) * 0.1 * (1 + sin(t * 3))
                let tones = 0.25 * sin(2 * .pi * 220 * t + Double(channel)) + 0.15 * sin(2 * .pi * 330 * t) + 0.1 * sin(2 * .pi * 1250 * t)
                samples[frame * channels + channel] = tones + noise
            }
        }
        return samples
    }

    /// Writes `samples` through the stage into a file of `folder`; returns its path and what was written.
    static func write(
        _ samples: [Double], channels: Int, settings: OpusStage.Settings, in folder: TempDirectory, name: String = "out.caf"
    ) throws -> (path: String, written: OpusStage.Written) {
        let path = folder.file(name)
        let descriptor = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let spoolFolder = try FileSystem.Folder.open(folder.path)
        let source = MemoryFrames(samples, channels: channels, sampleRate: settings.sampleRate)
        let written = try #require(
            try OpusStage.write(source, settings: settings, to: descriptor, folder: spoolFolder, blockSamples: 4096) { false })
        return (path, written)
    }

    @Test(
        "the output's pakt says the source's exact frames, the pre-skip as priming, and the proof passes at lag 0",
        .enabled(if: available, "libopus is absent"),
        arguments: [(48_000, 2, 96_000, false), (24_000, 1, 32_000, false), (16_000, 1, 24_000, true), (8000, 2, 24_000, false)])
    func exactLength(rate: Int, channels: Int, bitRate: Int, cbr: Bool) throws {
        let folder = TempDirectory()
        let frames = rate + 777
        let samples = Self.music(frames: frames, channels: channels, rate: rate)
        let settings = try OpusStage.settings(asked: bitRate, channels: channels, sampleRate: rate, constantBitRate: cbr)
        let (path, written) = try Self.write(samples, channels: channels, settings: settings, in: folder)
        let per = rate / 50
        let lookahead = rate == 48_000 ? 312 : 312 * rate / 48_000
        #expect(written.frames == Int64(frames))
        #expect(written.priming == lookahead)
        #expect(written.packets == Int64((frames + lookahead + per - 1) / per))
        #expect(Int64(written.priming + written.remainder) + written.frames == written.packets * Int64(per))
        // CAFKit reads back exactly that accounting, and the layout is valid.
        let document = try CAFDocument(reading: try FileByteSource(path: path))
        let header = try #require(document.file.packetTableHeader)
        #expect(header.numberValidFrames == Int64(frames) && Int(header.primingFrames) == lookahead)
        #expect(document.file.audioOffset == 4096)
        #expect(CAFValidator.validate(document).isEmpty)
        // The proof: libopus's decoder, exact length, lag 0, SNR over the floor.
        let proof = try #require(
            try OpusStage.prove(
                path, source: MemoryFrames(samples, channels: channels, sampleRate: rate), written: written, blockSamples: 4096) { false })
        #expect(proof.peakLag == 0)
        #expect((proof.snr ?? -99) > OpusStage.snrFloor(bitRate: bitRate, channels: channels))
        #expect(proof.primingFrames == lookahead)
    }

    @Test(
        "ffmpeg's native Opus decoder, not the writer's library, finds the audio at lag 0 after the priming",
        .enabled(if: available && ffmpeg != nil, "libopus or ffmpeg is absent"))
    func independentDecoder() throws {
        let folder = TempDirectory()
        let frames = 48_000 + 500
        let samples = Self.music(frames: frames, channels: 1, rate: 48_000)
        let settings = try OpusStage.settings(asked: 96_000, channels: 1, sampleRate: 48_000, constantBitRate: false)
        let (path, written) = try Self.write(samples, channels: 1, settings: settings, in: folder)
        let raw = folder.file("ffmpeg.f32")
        let run = try runMerged(
            try #require(Self.ffmpeg), ["-hide_banner", "-loglevel", "error", "-y", "-i", path, "-f", "f32le", "-ac", "1", "-ar", "48000", raw])
        #expect(run.status == 0, "\(run.text)")
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        let decoded = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // ffmpeg 5.1 ignores the pakt trim: it decodes every packet. The priming is at its start.
        #expect(decoded.count >= written.priming + frames)
        func snr(lag: Int) -> Double {
            var signal = 0.0
            var noise = 0.0
            for index in 2000..<(frames - 2000) {
                let a = samples[index]
                let b = Double(decoded[written.priming + index + lag])
                signal += a * a
                noise += (a - b) * (a - b)
            }
            return 10 * log10(signal / noise)
        }
        let atZero = snr(lag: 0)
        #expect(atZero > 3, "SNR \(atZero)")
        for lag in [-3, -2, -1, 1, 2, 3] { #expect(snr(lag: lag) < atZero, "lag \(lag)") }
    }

    @Test(
        "Apple's Opus CAF decodes to exactly its pakt frames, and cafconv's Opus CAF of that audio has Apple's layout and kuki",
        .enabled(if: available && applePresent, "libopus or ../shared/corpus/apple-opus is absent"))
    func appleLayout() throws {
        let source = try FileByteSource(path: Self.appleFile)
        let apple = try CAFDocument(reading: source)
        let decoder = try OpusFileDecoder(file: apple.file, source: source)
        var samples: [Double] = []
        var buffer: [Float] = []
        while true {
            let got = try decoder.read(into: &buffer, frames: 4096)
            if got == 0 { break }
            samples += buffer[0..<got].map(Double.init)
        }
        #expect(samples.count == 72_000)
        let folder = TempDirectory()
        let settings = try OpusStage.settings(asked: nil, channels: 1, sampleRate: 24_000, constantBitRate: false)
        #expect(settings.application == .voip)
        let (path, written) = try Self.write(samples, channels: 1, settings: settings, in: folder)
        #expect(written.frames == 72_000 && written.priming == 156 && written.packets == 151 && written.remainder == 324)
        let ours = try CAFDocument(reading: try FileByteSource(path: path))
        // Apple's chunks but its 'info' (cafconv writes no invented info strings).
        #expect(ours.file.chunks.map(\.type) == apple.file.chunks.map(\.type).filter { $0 != .info })
        #expect(ours.file.audioOffset == apple.file.audioOffset)
        #expect(ours.file.audioDescription == apple.file.audioDescription)
        func kuki(_ document: CAFDocument) -> [UInt8]? {
            for chunk in document.contents.chunks { if case .magicCookie(let cookie) = chunk { return cookie.bytes } }
            return nil
        }
        #expect(kuki(ours) == kuki(apple))
        func chan(_ document: CAFDocument) -> ChannelLayout? {
            for chunk in document.contents.chunks { if case .channelLayout(let layout) = chunk { return layout } }
            return nil
        }
        #expect(chan(ours) == chan(apple))
    }

    @Test("settings: the rate rule, the application rule, default bit rates and refusals")
    func settingsRules() throws {
        #expect(OpusStage.codedRate(asked: nil, source: 44_100) == 48_000)
        #expect(OpusStage.codedRate(asked: nil, source: 16_000) == 16_000)
        #expect(OpusStage.codedRate(asked: 24_000, source: 44_100) == 24_000)
        #expect(OpusStage.application(sampleRate: 24_000) == .voip)
        #expect(OpusStage.application(sampleRate: 48_000) == .audio)
        #expect(try OpusStage.settings(asked: nil, channels: 2, sampleRate: 48_000, constantBitRate: false).bitRate == 96_000)
        #expect(try OpusStage.settings(asked: nil, channels: 1, sampleRate: 24_000, constantBitRate: false).bitRate == 32_000)
        #expect(throws: ConversionError.encoding(.opusChannels(3))) {
            try OpusStage.settings(asked: nil, channels: 3, sampleRate: 48_000, constantBitRate: false)
        }
        #expect(throws: ConversionError.encoding(.opusBitRate(asked: 1000, channels: 1, lowest: 6000, highest: 256_000))) {
            try OpusStage.settings(asked: 1000, channels: 1, sampleRate: 48_000, constantBitRate: false)
        }
    }

    @Test("a file whose pakt claims more frames than its packets hold is refused by the decoder, never trusted", .enabled(if: available, "libopus is absent"))
    func hostileCounts() throws {
        let folder = TempDirectory()
        let samples = Self.music(frames: 4800, channels: 1, rate: 48_000)
        let settings = try OpusStage.settings(asked: 64_000, channels: 1, sampleRate: 48_000, constantBitRate: false)
        let (path, _) = try Self.write(samples, channels: 1, settings: settings, in: folder)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let document = try CAFDocument(reading: MemoryByteSource(bytes))
        let pakt = try #require(document.file.packetTableChunk)
        // numberValidFrames (bytes 8..<16 of the pakt body) = 10^12.
        let at = Int(pakt.bodyOffset) + 8
        for (index, byte) in withUnsafeBytes(of: Int64(1_000_000_000_000).bigEndian, Array.init).enumerated() { bytes[at + index] = byte }
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        #expect(throws: OpusFormatError.self) { try OpusFileDecoder(file: file, source: MemoryByteSource(bytes)) }
    }
}

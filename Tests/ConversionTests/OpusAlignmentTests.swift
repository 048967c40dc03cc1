import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import Foundation
import Opus
import TestSupport
import Testing
import Verification

@testable import Transcoding

/// The lag rule on Opus's hybrid packets: libopus's SILK layer comes out about 1.5 frames early at
/// 48 kHz, so a short, low-rate source whose energy sits below 8 kHz (the retro coin sound) peaked
/// at lag -1 and failed the proof at 48 kb/s. The decoder states the tolerance for what it decoded.
@Suite("Opus alignment", .enabled(if: (try? LibOpus.load()) != nil, "libopus is absent"))
struct OpusAlignmentTests {
    /// A decaying square wave of `hertz` at 22050 Hz, 16-bit mono, 0.3 s: a coin sound's shape.
    static func squareBurst(_ hertz: Double) -> WAVFixture {
        let rate = 22_050
        let values = (0..<(rate * 3 / 10)).map { frame -> Int32 in
            let t = Double(frame) / Double(rate)
            let sign: Double = sin(2 * .pi * hertz * t) >= 0 ? 1 : -1
            return Int32((0.5 * sign * exp(-3 * t) * 32767).rounded())
        }
        return WAVFixture(encoding: .int16, channels: 1, sampleRate: rate, integers: values)
    }

    /// `-d opus` at the defaults (48 kHz, 48 kb/s) of `fixture`; the record and the output's path.
    static func encode(_ fixture: WAVFixture, in folder: TempDirectory) throws -> (FileResult, String) {
        let wav = folder.write("burst.wav", fixture.bytes(order: .little))
        let output = folder.file("burst.caf")
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "opus"), jobs: 1)
        let result = try #require(Engine.convert(inputs: [wav], output: output, options: options).files.first)
        return (result, output)
    }

    /// Decodes `path` to its end; the decoder afterwards.
    static func decodeAll(_ path: String) throws -> OpusFileDecoder {
        let source = try FileByteSource(path: path)
        let decoder = try OpusFileDecoder(file: try CAFFile(reading: source), source: source)
        var floats: [Float] = []
        while try decoder.read(into: &floats, frames: 4096) > 0 {}
        return decoder
    }

    @Test("a coin-like burst in hybrid packets passes at the default 48 kb/s, its peak within the stated ±2 frames")
    func hybridBurst() throws {
        let folder = TempDirectory()
        let (result, path) = try Self.encode(Self.squareBurst(1760), in: folder)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        let decoder = try Self.decodeAll(path)
        #expect(decoder.hybridPackets > 0 && decoder.lagTolerance == 2)
        // The case the fix is for: the peak is off 0, and the proof says by how much it may be.
        let lag = try #require(result.proof?.peakLag)
        #expect((-2)...(-1) ~= lag, "\(String(describing: result.proof))")
        #expect(result.proof?.rule?.hasSuffix("; lag within Opus's ±2") == true, "\(String(describing: result.proof))")
    }

    @Test("CELT-only packets keep the strict rule: tolerance 0, peak at 0")
    func celtStrict() throws {
        let folder = TempDirectory()
        let (result, path) = try Self.encode(Self.squareBurst(2637), in: folder)
        #expect(result.status == .converted && result.proof?.peakLag == 0, "\(result.reason ?? "")")
        let decoder = try Self.decodeAll(path)
        #expect(decoder.hybridPackets == 0 && decoder.lagTolerance == 0)
    }

    @Test("a hybrid file whose priming is 8 frames short is still found late by verify --against")
    func hybridMisalignmentCaught() throws {
        let folder = TempDirectory()
        let (result, path) = try Self.encode(Self.squareBurst(1760), in: folder)
        try #require(result.status == .converted, "\(result.reason ?? "")")
        var bytes = try #require(readFile(path))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let header = try #require(file.packetTableHeader)
        let pakt = try #require(file.chunks.first { $0.type == .pakt })
        var writer = ByteWriter()
        writer.write(header.primingFrames - 8, .big)
        writer.write(header.remainderFrames + 8, .big)
        let at = Int(pakt.bodyOffset) + 16
        bytes.replaceSubrange(at..<at + 8, with: writer.bytes)
        let shifted = folder.write("shifted.caf", bytes)
        let source = folder.file("burst.wav")
        let (failures, _) = Verifier.compare(
            try CAFFile(reading: try FileByteSource(path: shifted)), byteSource: try FileByteSource(path: shifted),
            path: shifted, with: source)
        #expect(failures.contains { "\($0)".contains("lag") }, "\(failures)")
    }
}

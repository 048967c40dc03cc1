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

/// Rates a container stores that are not whole (an AIFF's 80-bit float, a CAF's `Double`) reach
/// the output's `desc` bit for bit on every road; libsndfile's `SF_INFO.samplerate` is an `Int`.
@Suite("Exact sample rates: 22254.545 Hz AIFF and 22050.5 Hz CAF sources on every road, verify compares bit for bit")
struct ExactRateTests {
    /// 3DO's rate, 244800 / 11 Hz, as an AIFF 80-bit float: exponent 14, the 64-bit mantissa
    /// floor(244800 × 2^49 / 11) (more bits than a `Double` holds).
    static let aiffMantissa: UInt64 = {
        let numerator = (high: UInt64(244_800 >> 15), low: UInt64(244_800) << 49)
        return UInt64(11).dividingFullWidth(numerator).quotient
    }()
    /// The `Double` nearest to that 80-bit value: the mantissa rounded to 53 bits (to nearest,
    /// ties to even, as `Double(UInt64)` rounds), scaled by 2^(14 - 63).
    static let aiffRate: Double = Double(aiffMantissa) * 0x1p-49

    static let frames = 3000

    static func samples(channels: Int) -> [Int16] {
        // Triangles (libsndfile 1.2's ALAC encoder fails on some full-scale noise).
        (0..<frames * channels).map { index in
            let phase = (index / channels * (37 + 11 * (index % channels))) % 4000
            return Int16(phase < 2000 ? phase * 8 - 8000 : 24000 - phase * 8)
        }
    }

    /// A 16-bit big-endian AIFF of `samples` at the 80-bit rate 0x400D, `aiffMantissa`.
    static func aiff(channels: Int) -> [UInt8] {
        let samples = samples(channels: channels)
        var comm = ByteWriter()
        comm.write(UInt16(channels), .big)
        comm.write(UInt32(frames), .big)
        comm.write(UInt16(16), .big)
        comm.write(UInt16(16383 + 14), .big)
        comm.write(aiffMantissa, .big)
        var ssnd = ByteWriter()
        ssnd.write(UInt32(0), .big)
        ssnd.write(UInt32(0), .big)
        for sample in samples { ssnd.write(sample, .big) }
        var body = ByteWriter()
        body.write(bytes: Array("AIFF".utf8))
        for (id, chunk) in [("COMM", comm.bytes), ("SSND", ssnd.bytes)] {
            body.write(bytes: Array(id.utf8))
            body.write(UInt32(chunk.count), .big)
            body.write(bytes: chunk)
        }
        var file = ByteWriter()
        file.write(bytes: Array("FORM".utf8))
        file.write(UInt32(body.bytes.count), .big)
        file.write(bytes: body.bytes)
        return file.bytes
    }

    /// A 16-bit little-endian linear PCM CAF at `rate`.
    static func caf(rate: Double, channels: Int) throws -> [UInt8] {
        var audio = ByteWriter()
        for sample in samples(channels: channels) { audio.write(sample, .little) }
        let desc = AudioDescription(
            sampleRate: rate, formatID: .lpcm, formatFlags: 2, bytesPerPacket: UInt32(2 * channels), framesPerPacket: 1,
            channelsPerFrame: UInt32(channels), bitsPerChannel: 16)
        return try CAFWriter.bytes(
            of: CAFContents(chunks: [
                .description(desc), .audioData(AudioDataChunk(editCount: 0, audio: .bytes(audio.bytes))),
            ]))
    }

    static let formats = ["", "BEI24", "LEF32", "ulaw", "alaw", "alac", "alac24", "ima4"]

    func convertAll(_ source: [UInt8], name: String, expecting rate: Double) throws {
        let folder = TempDirectory()
        let input = folder.write(name, source)
        for format in Self.formats {
            var options = ConversionOptions(jobs: 1)
            if !format.isEmpty { options.dataFormat = try DataFormat(parsing: format) }
            let output = folder.file("out-\(format.isEmpty ? "default" : format).caf")
            let report = Engine.convert(inputs: [input], output: output, options: options)
            let result = try #require(report.files.first)
            try #require(result.status == .converted, "\(name) -d \(format): \(result.reason ?? "")")
            let file = try CAFFile(reading: try FileByteSource(path: output))
            let found = file.audioDescription.sampleRate
            #expect(found.bitPattern == rate.bitPattern, "\(name) -d \(format): desc says \(found) Hz, the source \(rate) Hz")
            #expect(file.validFrames == UInt64(Self.frames), "\(name) -d \(format)")
            let verified = try #require(Verifier.verify(paths: [output], options: VerifyOptions(against: input)).files.first)
            #expect(verified.failures.isEmpty, "\(name) -d \(format): \(verified.failures)")
        }
    }

    @Test("an AIFF at 244800/11 Hz (an 80-bit rate) keeps the nearest Double on the direct, pump, G.711, ALAC and IMA4 roads")
    func aiffRate() throws {
        #expect(Self.aiffMantissa >> 63 == 1)
        #expect(Self.aiffRate != Self.aiffRate.rounded() && abs(Self.aiffRate - 244_800.0 / 11) < 1e-9)
        try convertAll(Self.aiff(channels: 2), name: "3do.aiff", expecting: Self.aiffRate)
    }

    @Test("a CAF at 22050.5 Hz keeps 22050.5 Hz; so does an ALAC CAF made from it, converted again")
    func cafRate() throws {
        try convertAll(try Self.caf(rate: 22050.5, channels: 1), name: "half.caf", expecting: 22050.5)
        // An ALAC CAF source at 22050.5 Hz (libsndfile decodes it) converts to 22050.5 Hz too.
        let folder = TempDirectory()
        let pcm = folder.write("half.caf", try Self.caf(rate: 22050.5, channels: 2))
        let alac = folder.file("alac.caf")
        var options = ConversionOptions(jobs: 1)
        options.dataFormat = try DataFormat(parsing: "alac")
        try #require(Engine.convert(inputs: [pcm], output: alac, options: options).succeeded)
        let back = folder.file("back.caf")
        let report = Engine.convert(inputs: [alac], output: back, options: ConversionOptions(jobs: 1))
        try #require(report.succeeded, "\(report.files.first?.reason ?? "")")
        let file = try CAFFile(reading: try FileByteSource(path: back))
        #expect(file.audioDescription.sampleRate == 22050.5)
    }

    @Test("-d FMT@RATE resamples a fractional source to the asked rate, also when the rate is the source's integer part; AAC refuses a rate it cannot hold")
    func resampleAndAAC() throws {
        let folder = TempDirectory()
        let input = folder.write("half.caf", try Self.caf(rate: 22050.5, channels: 1))
        for (format, rate) in [("LEI16@22050", 22050.0), ("LEI16@44100", 44100), ("aac@22050", 22050)] {
            var options = ConversionOptions(jobs: 1)
            let request = try FormatRequest(parsing: format)
            options.dataFormat = request.format
            options.sampleRate = request.sampleRate
            let output = folder.file("out-\(format).caf")
            let report = Engine.convert(inputs: [input], output: output, options: options)
            try #require(report.succeeded, "\(format): \(report.files.first?.reason ?? "")")
            let file = try CAFFile(reading: try FileByteSource(path: output))
            #expect(file.audioDescription.sampleRate == rate, "\(format)")
            // round(3000 × rate / 22050.5) frames.
            #expect(file.validFrames == UInt64((Double(Self.frames) * rate / 22050.5).rounded()), "\(format)")
            #expect(report.files.first?.proof?.rule?.contains("resampled 22050.5→") == true, "\(String(describing: report.files.first?.proof))")
            let verified = try #require(Verifier.verify(paths: [output], options: VerifyOptions(against: input)).files.first)
            #expect(verified.failures.isEmpty, "\(format): \(verified.failures)")
        }
        var aac = ConversionOptions(jobs: 1)
        aac.dataFormat = try DataFormat(parsing: "aac")
        let refused = Engine.convert(inputs: [input], output: folder.file("aac.caf"), options: aac)
        #expect(refused.files.first?.status == .failed)
        #expect(refused.files.first?.reason?.contains("AAC cannot hold 22050.5 Hz") == true, "\(refused.files)")
    }

    @Test("verify compares the exact rate: --rate 22050 and --against fail a 22050.5 Hz file; a desc rounded to 22050 fails against its source")
    func verifyExact() throws {
        let folder = TempDirectory()
        let input = folder.write("half.caf", try Self.caf(rate: 22050.5, channels: 1))
        let output = folder.file("out.caf")
        try #require(Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1)).succeeded)
        let exact = Verifier.verify(paths: [output], options: VerifyOptions(sampleRate: 22050.5)).files.first
        #expect(exact?.failures.isEmpty == true, "\(String(describing: exact?.failures))")
        let whole = Verifier.verify(paths: [output], options: VerifyOptions(sampleRate: 22050)).files.first
        #expect(whole?.failures.map(\.code) == ["sample-rate"], "\(String(describing: whole?.failures))")
        // The output libsndfile alone would write: its desc says 22050 Hz.
        var bytes = try #require(readFile(output))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        let at = Int(try #require(file.chunks.first { $0.type == .desc }).bodyOffset)
        var rate = ByteWriter()
        rate.write(22050.0, .big)
        bytes.replaceSubrange(at..<at + 8, with: rate.bytes)
        let rounded = folder.write("rounded.caf", bytes)
        let against = try #require(Verifier.verify(paths: [rounded], options: VerifyOptions(against: input)).files.first)
        #expect(against.failures.first?.code == "against-rate", "\(against.failures)")
        #expect(against.failures.first?.expected.hasPrefix("22050.5 Hz") == true, "\(against.failures)")
    }
}

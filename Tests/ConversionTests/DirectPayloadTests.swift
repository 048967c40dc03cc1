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

#if canImport(Glibc)
    import Glibc
#endif

/// The direct route (samples copied by the kernel, byte-swapped or sign-flipped without decoding)
/// must write exactly the bytes libsndfile writes when it decodes and encodes every sample.
@Suite("Direct payload: the same bytes as libsndfile's sample pump")
struct DirectPayloadTests {
    static let encodings: [WAVFixture.Encoding] = [.unsigned8, .int16, .int24, .int32, .float32, .float64]

    /// Converts `bytes` both ways and checks the outputs are identical and sample-exact.
    @discardableResult
    func expectSameBothWays(
        _ bytes: [UInt8], options: ConversionOptions, transfer: FileResult.Transfer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Converted {
        var pumped = options
        pumped.directPayload = false
        let direct = try convert(bytes, options: options)
        let reference = try convert(bytes, options: pumped)
        #expect(direct.result.samples == transfer, sourceLocation: sourceLocation)
        #expect(reference.result.samples == .libsndfile, sourceLocation: sourceLocation)
        #expect(direct.bytes == reference.bytes, "direct and libsndfile outputs differ", sourceLocation: sourceLocation)
        #expect(direct.result.frames == reference.result.frames, sourceLocation: sourceLocation)
        expectCleanLayout(direct.file, sourceLocation: sourceLocation)
        #expect(
            direct.file.audioOffset == 4096, "audio starts at byte 4096, as libsndfile lays it out",
            sourceLocation: sourceLocation)
        return direct
    }

    @Test("every PCM format, both byte orders, awkward frame counts", arguments: encodings, [1, 2, 6])
    func identicalOutputs(encoding: WAVFixture.Encoding, channels: Int) throws {
        // 0 and 1 frame, fewer frames than the probe, and more than two probes (head and tail apart).
        for frames in [0, 1, 1001, 5003] {
            let fixture = WAVFixture.signal(encoding, channels: channels, frames: frames, sampleRate: 44100)
            for order in [EndianChoice.little, .big] {
                let transfer: FileResult.Transfer =
                    encoding == .unsigned8 ? .signFlipped : (order == .little ? .copied : .byteSwapped)
                let converted = try expectSameBothWays(
                    fixture.bytes, options: ConversionOptions(endian: order, jobs: 1), transfer: transfer)
                let flag = converted.file.audioDescription.formatFlags & AudioDescription.flagIsLittleEndian
                #expect(flag == (order == .little ? 2 : 0), "little-endian flag (libsndfile sets it for 8-bit samples too)")
                #expect(converted.file.linearPCMFrames == UInt64(frames))
                try expectSameSamples(converted, fixture)
            }
        }
    }

    @Test("WAVE_FORMAT_EXTENSIBLE sources take the direct route too")
    func extensible() throws {
        var fixture = WAVFixture.signal(.int24, channels: 2, frames: 3000)
        fixture.extensible = true
        try expectSameBothWays(fixture.bytes, options: ConversionOptions(jobs: 1), transfer: .copied)
    }

    @Test(
        "big-endian RIFX sources: swapped to little-endian, copied to big-endian",
        arguments: [WAVFixture.Encoding.int16, .int24, .float32])
    func rifx(encoding: WAVFixture.Encoding) throws {
        let fixture = WAVFixture.signal(encoding, channels: 2, frames: 4500)
        let bytes = fixture.bytes(order: .big)
        let little = try expectSameBothWays(
            bytes, options: ConversionOptions(endian: .little, jobs: 1), transfer: .byteSwapped)
        try expectSameBothWays(bytes, options: ConversionOptions(endian: .source, jobs: 1), transfer: .copied)
        try expectSameSamples(little, fixture)
    }

    @Test(
        "NaN and infinity at both ends of a float file: copied, and the checks accept them",
        arguments: [WAVFixture.Encoding.float32, .float64])
    func nonFinite(encoding: WAVFixture.Encoding) throws {
        var fixture = WAVFixture.signal(encoding, channels: 2, frames: 5000)
        for index in [0, 3, fixture.floats.count - 1] { fixture.floats[index] = .nan }
        fixture.floats[1] = .infinity
        fixture.floats[fixture.floats.count - 2] = -.infinity
        let converted = try expectSameBothWays(fixture.bytes, options: ConversionOptions(jobs: 1), transfer: .copied)
        let decoded = try decodedFloats(converted)
        #expect(decoded[0].isNaN && decoded[1] == .infinity && decoded[decoded.count - 2] == -.infinity)
    }

    @Test("a data chunk that declares more bytes than the file holds: the frames present, both ways")
    func truncatedData() throws {
        var bytes = WAVFixture.signal(.int16, channels: 2, frames: 3000).bytes
        bytes.removeLast(1001)  // 250 whole frames and one odd byte gone
        let converted = try expectSameBothWays(bytes, options: ConversionOptions(jobs: 1), transfer: .copied)
        #expect(converted.result.frames == 2749)
    }

    @Test("format changes go through libsndfile")
    func conversionsArePumped() throws {
        let fixture = WAVFixture.signal(.int16, channels: 1, frames: 100)
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "LEF32"), jobs: 1)
        let converted = try convert(fixture.bytes, options: options)
        #expect(converted.result.samples == .libsndfile)
    }

    @Test(
        "an input on another file system (no kernel copy across them) converts the same",
        .enabled(if: access("/dev/shm", F_OK) == 0, "/dev/shm is absent on this machine"))
    func acrossFileSystems() throws {
        let shm = "/dev/shm"
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 20000)
        let input = "\(shm)/cafconv-test-\(getpid()).wav"
        let fd = open(input, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        let bytes = fixture.bytes
        let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        defer { unlink(input) }
        try #require(wrote == bytes.count)
        let folder = TempDirectory()
        let output = folder.file("out.caf")
        let report = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1))
        let result = try #require(report.files.first)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.samples == .copied)
        let reference = try convert(bytes, options: ConversionOptions(jobs: 1, directPayload: false))
        #expect(readFile(output) == reference.bytes)
    }
}

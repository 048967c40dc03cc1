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

@Suite("Sample-exact PCM conversion, decoded by CAFKit")
struct SampleExactTests {
    static let encodings: [WAVFixture.Encoding] = [.unsigned8, .int16, .int24, .int32, .float32, .float64]
    static let channelCounts = [1, 2, 6]
    static let orders: [EndianChoice] = [.little, .big]

    @Test("keeps the source format in the asked byte order", arguments: encodings, channelCounts)
    func keepsFormat(encoding: WAVFixture.Encoding, channels: Int) throws {
        // Both roads: libsndfile's sample pump, and the direct payload (copy or byte swap).
        for (order, direct) in Self.orders.flatMap({ order in [(order, false), (order, true)] }) {
            let fixture = WAVFixture.signal(encoding, channels: channels, frames: 1001, sampleRate: 48000)
            let options = ConversionOptions(endian: order, jobs: 1, directPayload: direct)
            let converted = try convert(fixture.bytes, options: options)
            let desc = converted.file.audioDescription
            expectCleanLayout(converted.file)
            #expect(desc.formatID == .lpcm)
            #expect(desc.sampleRate == 48000)
            #expect(desc.channelsPerFrame == UInt32(channels))
            #expect(desc.bitsPerChannel == UInt32(encoding.bits))
            #expect(desc.isFloat == encoding.isFloat)
            #expect(desc.framesPerPacket == 1)
            #expect(desc.bytesPerPacket == UInt32(channels * encoding.bits / 8))
            #expect(
                desc.formatFlags & AudioDescription.flagIsLittleEndian == (order == .little ? 2 : 0),
                "little-endian flag for \(order)")
            #expect(converted.file.linearPCMFrames == 1001)
            #expect(converted.result.frames == 1001)
            // Unsigned 8-bit WAV becomes signed I8 with the same waveform: fixture values are signed.
            try expectSameSamples(converted, fixture)
        }
    }

    @Test("signed sources to I8 keep the top 8 bits", arguments: [WAVFixture.Encoding.int16, .int24])
    func signedToI8(encoding: WAVFixture.Encoding) throws {
        let fixture = WAVFixture.signal(encoding, channels: 2, frames: 301)
        let converted = try convert(fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: "I8"), jobs: 1))
        expectCleanLayout(converted.file)
        #expect(converted.file.audioDescription.bitsPerChannel == 8)
        let shift = Int32(encoding.bits - 8)
        expectSameSamples(try decodedIntegers(converted), fixture.integers.map { $0 >> shift })
    }

    @Test(
        "integer to float: s / 2^(N-1), full scale and -1 LSB exactly",
        arguments: [WAVFixture.Encoding.int16, .int24, .unsigned8])
    func integerToFloat(encoding: WAVFixture.Encoding) throws {
        let fixture = WAVFixture.signal(encoding, channels: 1, frames: 500)
        for format in ["LEF32", "BEF64"] {
            let converted = try convert(
                fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1))
            expectCleanLayout(converted.file)
            let scale = Double(1 << (encoding.bits - 1))
            let floats = try decodedFloats(converted)
            expectSameSamples(floats, fixture.integers.map { Double($0) / scale })
            // The fixture starts with max, min, 0, -1: spelled out so a scaling change is obvious.
            #expect(floats[1] == -1.0)
            #expect(floats[0] == 1.0 - 1.0 / scale)
            #expect(floats[3] == -1.0 / scale)
        }
    }

    @Test("float to integer: round(x * 2^(N-1)), clipped at full scale")
    func floatToInteger() throws {
        let values: [Double] = [1.0, -1.0, 0.0, -1.0 / 32768, 0.5, -0.5, 1.5, -1.5, 0.25 / 32768, 0.75 / 32768]
        let fixture = WAVFixture(encoding: .float32, channels: 1, floats: values)
        let converted = try convert(
            fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: "LEI16"), jobs: 1))
        expectCleanLayout(converted.file)
        expectSameSamples(try decodedIntegers(converted), [32767, -32768, 0, -1, 16384, -16384, 32767, -32768, 0, 1])
        let wide = try convert(fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: "BEI24"), jobs: 1))
        expectSameSamples(
            try decodedIntegers(wide), [8_388_607, -8_388_608, 0, -256, 4_194_304, -4_194_304, 8_388_607, -8_388_608, 64, 192])
    }

    @Test("widening integers is exact; narrowing drops the low bits")
    func integerWidths() throws {
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 257)
        let wide = try convert(fixture.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: "LEI32"), jobs: 1))
        expectSameSamples(try decodedIntegers(wide), fixture.integers.map { $0 << 16 })
        let deep = WAVFixture.signal(.int24, channels: 1, frames: 99)
        let narrow = try convert(deep.bytes, options: ConversionOptions(dataFormat: try DataFormat(parsing: "BEI16"), jobs: 1))
        expectSameSamples(try decodedIntegers(narrow), deep.integers.map { $0 >> 8 })
    }

    @Test("WAVE_FORMAT_EXTENSIBLE sources convert like plain ones")
    func extensible() throws {
        let fixture = WAVFixture.signal(.int24, channels: 6, frames: 333, extensible: true)
        let converted = try convert(fixture.bytes)
        #expect(converted.file.audioDescription.bitsPerChannel == 24)
        expectSameSamples(try decodedIntegers(converted), fixture.integers)
        #expect(converted.file.chunks.first?.type == .desc)
        #expect(converted.file.chunks.last?.end == converted.file.fileLength)
    }

    @Test("the same input and options give byte-identical output")
    func deterministic() throws {
        // Through libsndfile's pump, where a header field or padding could vary from run to run.
        let pump = ConversionOptions(jobs: 1, directPayload: false)
        let fixture = WAVFixture.signal(.int24, channels: 1, frames: 4097).bytes
        #expect(try convert(fixture, options: pump).bytes == (try convert(fixture, options: pump).bytes))
        let float = WAVFixture.signal(.float32, channels: 2, frames: 1000).bytes
        #expect(try convert(float, options: pump).bytes == (try convert(float, options: pump).bytes))
    }

    @Test("an empty data chunk gives a valid empty CAF")
    func emptyAudio() throws {
        let fixture = WAVFixture(encoding: .int16, channels: 2, integers: [])
        let converted = try convert(fixture.bytes)
        expectCleanLayout(converted.file)
        #expect(converted.file.audioBytes == 0)
        #expect(converted.result.warnings.contains(.source(.noFrames)))
    }
}

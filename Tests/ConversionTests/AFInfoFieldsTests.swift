import BinaryIO
import Foundation
import Inspection
import TestSupport
import Testing

/// afinfo's fields in `info`'s report (issue 32): bit rate, packet size upper bound, maximum
/// packet size, source bit depth and the Core Audio flags, in the text and the JSON, and
/// afinfo's spelling of each linear PCM layout.
@Suite("afinfo's fields in info")
struct AFInfoFieldsTests {
    static func report(_ fixture: WAVFixture) -> AudioFileInfo {
        Inspector.inspect(MemoryByteSource(fixture.bytes), path: "x.wav")
    }

    @Test("24-bit stereo WAV: bit rate, packet sizes, source depth, and afinfo's long spelling")
    func wav24() throws {
        let report = Self.report(WAVFixture.signal(.int24, channels: 2, frames: 4410))
        #expect(report.bitRate == 2_116_800)
        #expect(report.packetSizeUpperBound == 6)
        #expect(report.maximumPacketSize == 6)
        #expect(report.sourceBitDepth == "I24")
        #expect(report.formatFlags == 0xC)
        #expect(report.fileTypeID == "WAVE")
        #expect(report.optimized == true)
        // The spelling of a published afinfo-style line: "2 ch,  96000 Hz, lpcm (0x0000000C) 24-bit
        // little-endian signed integer" (a decoder's log quoted in a public test, id 59750701554).
        #expect(AFInfoText.dataFormat(report) == " 2 ch,  44100 Hz, lpcm (0x0000000C) 24-bit little-endian signed integer")
        let text = InfoText.block(report)
        #expect(text.contains("Bit rate:        2116800 bits per second"))
        #expect(text.contains("Packet size:     at most 6 bytes, upper bound 6"))
        #expect(text.contains("Source depth:    I24"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        #expect(json["bitRate"] as? Int == 2_116_800)
        #expect(json["packetSizeUpperBound"] as? Int == 6)
        #expect(json["maximumPacketSize"] as? Int == 6)
        #expect(json["sourceBitDepth"] as? String == "I24")
        #expect(json["optimized"] as? Bool == true)
    }

    @Test("afinfo's names: Int16 and Float32 (interleaved when stereo), 8-bit unsigned spelled out")
    func names() {
        #expect(
            AFInfoText.dataFormat(Self.report(WAVFixture.signal(.int16, channels: 1, frames: 10))) == " 1 ch,  44100 Hz, Int16")
        let float = Self.report(WAVFixture.signal(.float32, channels: 2, frames: 10, sampleRate: 48000))
        #expect(AFInfoText.dataFormat(float) == " 2 ch,  48000 Hz, Float32, interleaved")
        #expect(float.sourceBitDepth == "F32")
        let byte = Self.report(WAVFixture.signal(.unsigned8, channels: 1, frames: 10, sampleRate: 8000))
        #expect(AFInfoText.dataFormat(byte) == " 1 ch,   8000 Hz, lpcm (0x00000008) 8-bit unsigned integer")
        #expect(byte.bitRate == 64000)
    }

    @Test("a CAF whose linear PCM packet is 4 GB: no overflow, the fields as declared")
    func hugePacket() {
        var bytes = ByteWriter()
        bytes.write(bytes: Array("caff".utf8))
        bytes.write(UInt16(1), .big)
        bytes.write(UInt16(0), .big)
        bytes.write(bytes: Array("desc".utf8))
        bytes.write(UInt64(32), .big)
        bytes.write(UInt64(44100.0.bitPattern), .big)
        bytes.write(bytes: Array("lpcm".utf8))
        for value: UInt32 in [0, 0xFFFF_FFF8, 1, 1, 16] { bytes.write(value, .big) }
        bytes.write(bytes: Array("data".utf8))
        bytes.write(UInt64(8), .big)
        bytes.write(bytes: [0, 0, 0, 0, 1, 2, 3, 4])
        let report = Inspector.inspect(MemoryByteSource(bytes.bytes), path: "huge.caf")
        #expect(report.container == "caf")
        _ = AFInfoText.block(report)
        _ = InfoText.block(report)
    }

    @Test("numbers as afinfo prints them: %f, %.3f, %6.0f")
    func numbers() {
        #expect(AFInfoText.fixed(1.4924375, 6) == "1.492438")
        #expect(AFInfoText.fixed(9.7, 6) == "9.700000")
        #expect(AFInfoText.fixed(1.4924375, 3) == "1.492")
        #expect(AFInfoText.fixed(44100, 0) == "44100")
        #expect(AFInfoText.fixed(22254.545, 0) == "22255")
        #expect(AFInfoText.right("8000", 6) == "  8000")
    }
}

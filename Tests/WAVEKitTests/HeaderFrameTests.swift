import BinaryIO
import TestSupport
import Testing
import WAVEKit

/// Frame counts come from the header for every container, not from blocks or packets.
@Suite("Frames from the header: fact, AIFF-C packets; RIFX sub-format GUIDs")
struct HeaderFrameTests {
    /// A `fmt ` body of a block codec: tag, channels, rate, block align, bits, then cbSize 2 and
    /// the frames per block.
    static func codecFormat(tag: UInt16, channels: UInt16 = 1, blockAlign: UInt16, bits: UInt16, perBlock: UInt16) -> [UInt8] {
        var w = ByteWriter()
        w.write(tag, .little)
        w.write(channels, .little)
        w.write(UInt32(8000), .little)
        w.write(UInt32(4000), .little)
        w.write(blockAlign, .little)
        w.write(bits, .little)
        w.write(UInt16(2), .little)
        w.write(perBlock, .little)
        return w.bytes
    }

    static func fact(_ frames: UInt32) -> [UInt8] {
        var w = ByteWriter()
        w.write(frames, .little)
        return w.bytes
    }

    @Test("IMA ADPCM: frames are fact's, not blocks (2 blocks of 505 frames, fact 600)")
    func imaFact() throws {
        let format = Self.codecFormat(tag: 0x11, blockAlign: 256, bits: 4, perBlock: 505)
        let file = try readWAVE(
            WAVFixture.riff(chunks: [("fmt ", format), ("fact", Self.fact(600)), ("data", [UInt8](repeating: 0, count: 512))]))
        #expect(file.format.samplesPerBlock == 505)
        #expect(file.frames == 600)
        #expect(file.warnings.isEmpty, "\(file.warnings)")
    }

    @Test("without fact, whole blocks times frames per block; a fact beyond the blocks is clamped with a warning")
    func noFactAndLyingFact() throws {
        let format = Self.codecFormat(tag: 0x31, blockAlign: 65, bits: 0, perBlock: 320)
        let audio = [UInt8](repeating: 0, count: 65 * 3)
        let bare = try readWAVE(WAVFixture.riff(chunks: [("fmt ", format), ("data", audio)]))
        #expect(bare.frames == 960)
        let lying = try readWAVE(WAVFixture.riff(chunks: [("fmt ", format), ("fact", Self.fact(5000)), ("data", audio)]))
        #expect(lying.frames == 960)
        #expect(warns(lying.warnings, "'fact' declares 5000 frames", "960"))
    }

    @Test("MPEG in WAV: fact is the frame count (no frames per block in the header)")
    func mpegFact() throws {
        var w = ByteWriter()
        for value: UInt16 in [0x55, 1] { w.write(value, .little) }
        w.write(UInt32(44100), .little)
        w.write(UInt32(16000), .little)
        w.write(UInt16(1), .little)
        w.write(UInt16(0), .little)
        let file = try readWAVE(
            WAVFixture.riff(chunks: [("fmt ", w.bytes), ("fact", Self.fact(4410)), ("data", [UInt8](repeating: 0, count: 418))]))
        #expect(file.frames == 4410)
        let bare = try readWAVE(WAVFixture.riff(chunks: [("fmt ", w.bytes), ("data", [UInt8](repeating: 0, count: 418))]))
        #expect(bare.frames == nil, "no fact, no frames per block: unknown, not bytes")
    }

    @Test("linear PCM and G.711 count blocks, whatever fact says")
    func pcmIgnoresFact() throws {
        let pcm = try readWAVE(
            WAVFixture.riff(chunks: [("fmt ", fmtBody()), ("fact", Self.fact(3)), ("data", [UInt8](repeating: 0, count: 40))]))
        #expect(pcm.frames == 10)
        let ulaw = try readWAVE(
            WAVFixture.riff(chunks: [
                ("fmt ", fmtBody(tag: 7, channels: 2, bits: 8, cbSize: 0)), ("fact", Self.fact(3)),
                ("data", [UInt8](repeating: 0xFF, count: 40)),
            ]))
        #expect(ulaw.frames == 20)
    }

    @Test("AIFF-C ima4: COMM counts packets of 64 frames; ulaw counts frames")
    func aiffPackets() throws {
        let ima4 = try readAIFF(
            assemble(
                "FORM", "AIFC",
                [
                    Piece("COMM", commBody(channels: 1, frames: 3, bits: 16, compression: "ima4")),
                    Piece("SSND", ssndBody([UInt8](repeating: 0, count: 34 * 3))),
                ], order: .big))
        #expect(ima4.frames == 192)
        #expect(ima4.framesPerPacket == 64)
        let ulaw = try readAIFF(
            assemble(
                "FORM", "AIFC",
                [
                    Piece("COMM", commBody(channels: 1, frames: 9, bits: 16, compression: "ulaw")),
                    Piece("SSND", ssndBody([UInt8](repeating: 0, count: 9))),
                ], order: .big))
        #expect(ulaw.frames == 9)
    }

    @Test(
        "RIFX WAVE_FORMAT_EXTENSIBLE: the sub-format GUID is read big-endian",
        arguments: [(UInt16(1), "lpcm", false), (UInt16(3), "lpcm", true), (UInt16(7), "ulaw", false)])
    func rifxGUID(sub: UInt16, id: String, isFloat: Bool) throws {
        let bits: UInt16 = sub == 3 ? 32 : (sub == 7 ? 8 : 16)
        let format = fmtBody(channels: 2, bits: bits, order: .big, extensible: (bits, 3, sub))
        let file = try readWAVE(
            assemble("RIFX", "WAVE", [Piece("fmt ", format), Piece("data", [UInt8](repeating: 0, count: 16))], order: .big))
        #expect(file.format.effectiveTag == sub)
        #expect(file.formatID == id)
        #expect(file.isFloat == isFloat)
        #expect(file.sampleByteOrder == (id == "lpcm" ? .big : nil))
        // The canonical GUID bytes, whatever the file's byte order.
        #expect(file.format.subFormat?.prefix(8) == [UInt8(sub), 0, 0, 0, 0, 0, 0x10, 0])
    }

    @Test("an EXTENSIBLE sub-format GUID that only starts like a tag is unknown, not PCM; the ambisonic PCM GUID is PCM")
    func foreignGUID() throws {
        var format = fmtBody(channels: 1, bits: 16, extensible: (16, 4, 1))
        // GUID bytes 4... (the fields after the tag): not 0000-0010-8000-00AA00389B71.
        format.replaceSubrange(28..<40, with: [0xAD, 0xDE, 0xEF, 0xBE] + [UInt8](repeating: 0x11, count: 8))
        let unknown = try readWAVE(assemble("RIFF", "WAVE", [Piece("fmt ", format), Piece("data", [0, 0, 0, 0])]))
        #expect(unknown.format.effectiveTag == 0xFFFE)
        #expect(!unknown.format.isLinearPCM)
        #expect(unknown.format.encodingName.contains("unknown sub-format"), "\(unknown.format.encodingName)")
        // KSDATAFORMAT_SUBTYPE_AMBISONIC_B_FORMAT_PCM: 00000001-0721-11D3-8644-C8C1CA000000.
        format.replaceSubrange(28..<40, with: [0x21, 0x07, 0xD3, 0x11, 0x86, 0x44, 0xC8, 0xC1, 0xCA, 0, 0, 0])
        let ambisonic = try readWAVE(assemble("RIFF", "WAVE", [Piece("fmt ", format), Piece("data", [0, 0, 0, 0])]))
        #expect(ambisonic.format.effectiveTag == 1 && ambisonic.format.isLinearPCM)
    }
}

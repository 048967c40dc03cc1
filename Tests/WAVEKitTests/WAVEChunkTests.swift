import BinaryIO
import TestSupport
import Testing
import WAVEKit

@Suite struct WAVEChunkTests {
    @Test func plainPCM() throws {
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 10)
        let file = try readWAVE(fixture.bytes)
        #expect(file.container == .wav)
        #expect(file.formatID == "lpcm")
        #expect(file.bitsPerChannel == 16)
        #expect(file.validBitsPerSample == 16)
        #expect(!file.isFloat)
        #expect(file.sampleByteOrder == .little)
        #expect(file.frames == 10)
        #expect(file.audioOffset == 44)
        #expect(file.audioBytes == 40)
        #expect(file.warnings.isEmpty)
        #expect(file.chunks.map(\.type.description) == ["fmt ", "data"])
    }

    @Test(arguments: [WAVFixture.Encoding.float32, .float64])
    func ieeeFloat(_ encoding: WAVFixture.Encoding) throws {
        let file = try readWAVE(WAVFixture.signal(encoding, channels: 1, frames: 8).bytes)
        #expect(file.formatID == "lpcm")
        #expect(file.isFloat)
        #expect(file.bitsPerChannel == encoding.bits)
        #expect(file.frames == 8)
    }

    @Test func extensibleValidBitsAndMask() throws {
        let fmt = fmtBody(channels: 2, rate: 48000, bits: 32, extensible: (valid: 24, mask: 3, sub: 1))
        let file = try readWAVE(assemble("RIFF", "WAVE", [Piece("fmt ", fmt), Piece("data", [UInt8](repeating: 1, count: 16))]))
        #expect(file.format.formatTag == WAVEFormat.extensible)
        #expect(file.format.effectiveTag == WAVEFormat.pcm)
        #expect(file.format.channelMask == 3)
        #expect(file.bitsPerChannel == 32)
        #expect(file.validBitsPerSample == 24)
        #expect(file.frames == 2)
    }

    @Test(arguments: [
        (UInt16(7), "ulaw", "µ-law"), (6, "alaw", "A-law"), (0x11, "imaadpcm", "IMA ADPCM"),
        (2, "msadpcm", "Microsoft ADPCM"), (0x1234, "0x1234", "format tag 0x1234"),
    ])
    func compressedTags(_ tag: UInt16, _ id: String, _ name: String) throws {
        let file = try readWAVE(
            assemble(
                "RIFF", "WAVE",
                [
                    Piece("fmt ", fmtBody(tag: tag, channels: 1, bits: 8)),
                    Piece("data", [1, 2, 3, 4]),
                ]))
        #expect(file.formatID == id)
        #expect(file.format.encodingName == name)
        #expect(file.bitsPerChannel == nil)
        #expect(file.sampleByteOrder == nil)
    }

    @Test func factChunk() throws {
        var w = ByteWriter()
        w.write(UInt32(12345), .little)
        let file = try readWAVE(wav([Piece("fact", w.bytes)]))
        #expect(file.factSampleLength == 12345)
    }

    @Test func infoList() throws {
        let list =
            ascii("INFO") + ascii("INAM") + [6, 0, 0, 0] + ascii("Title", width: 6)
            + ascii("ISFT") + [5, 0, 0, 0] + ascii("Lavf") + [0, 0] + ascii("ICRD") + [4, 0, 0, 0] + ascii("2024")
        let file = try readWAVE(wav([Piece("LIST", list)]))
        #expect(file.info.map(\.key) == [FourCC("INAM"), FourCC("ISFT"), FourCC("ICRD")])
        #expect(file.infoStrings.map(\.value) == ["Title", "Lavf", "2024"])
        #expect(file.infoStrings.first?.key == "INAM")
        #expect(file.warnings.isEmpty)
    }

    @Test func associatedDataList() throws {
        var w = ByteWriter()
        w.write(bytes: ascii("adtl"))
        w.write(bytes: ascii("labl")); w.write(UInt32(9), .little); w.write(UInt32(1), .little); w.write(bytes: ascii("Intro"))
        w.write(UInt8(0))  // pad
        w.write(bytes: ascii("note")); w.write(UInt32(8), .little); w.write(UInt32(2), .little);
        w.write(bytes: ascii("abc", width: 4))
        w.write(bytes: ascii("ltxt")); w.write(UInt32(22), .little)
        w.write(UInt32(3), .little); w.write(UInt32(4410), .little); w.write(bytes: ascii("rgn "))
        w.write(UInt16(1), .little); w.write(UInt16(9), .little); w.write(UInt16(1), .little); w.write(UInt16(1252), .little)
        w.write(bytes: ascii("R", width: 2))
        let file = try readWAVE(wav([Piece("LIST", w.bytes)]))
        let adtl = file.associatedData
        #expect(adtl.labels == [CueText(cueID: 1, text: "Intro")])
        #expect(adtl.notes == [CueText(cueID: 2, text: "abc")])
        #expect(
            adtl.labeledTexts == [
                LabeledText(
                    cueID: 3, sampleLength: 4410, purpose: FourCC("rgn "), country: 1,
                    language: 9, dialect: 1, codePage: 1252, text: "R")
            ])
        #expect(file.warnings.isEmpty)
    }

    @Test func broadcastExtension() throws {
        var w = ByteWriter()
        w.write(bytes: ascii("A description", width: 256))
        w.write(bytes: ascii("Pro Tools", width: 32))
        w.write(bytes: ascii("REF-1", width: 32))
        w.write(bytes: ascii("2024-05-06"))
        w.write(bytes: ascii("07:08:09"))
        w.write(UInt32(0x0000_0002), .little)
        w.write(UInt32(0x0000_0001), .little)
        w.write(UInt16(2), .little)
        w.write(bytes: [UInt8](repeating: 0xAB, count: 64))
        for value: Int16 in [-2300, 500, -100, -1800, -2000] { w.write(value, .little) }
        w.write(bytes: [UInt8](repeating: 0, count: 180))
        w.write(bytes: ascii("A=PCM,F=48000\r\n"))
        let file = try readWAVE(wav([Piece("bext", w.bytes)]))
        let bext = try #require(file.broadcast)
        #expect(bext.description == "A description")
        #expect(bext.originator == "Pro Tools")
        #expect(bext.originatorReference == "REF-1")
        #expect(bext.originationDate == "2024-05-06")
        #expect(bext.originationTime == "07:08:09")
        #expect(bext.timeReference == 0x1_0000_0002)
        #expect(bext.version == 2)
        #expect(bext.umid == [UInt8](repeating: 0xAB, count: 64))
        #expect(bext.loudnessValue == -2300)
        #expect(bext.maxShortTermLoudness == -2000)
        #expect(bext.codingHistory == "A=PCM,F=48000\r\n")
    }

    @Test func samplerLoops() throws {
        var w = ByteWriter()
        for value: UInt32 in [0x47, 0x10, 22676, 60, 0x8000_0000, 25, 0x0102_0304, 2, 0] { w.write(value, .little) }
        for value: UInt32 in [0x20000, 0, 0, 107_999, 0, 0, 7, 1, 100, 200, 0x4000_0000, 3] { w.write(value, .little) }
        let file = try readWAVE(wav([Piece("smpl", w.bytes)]))
        let smpl = try #require(file.sampler)
        #expect(smpl.manufacturer == 0x47)
        #expect(smpl.product == 0x10)
        #expect(smpl.samplePeriod == 22676)
        #expect(smpl.midiUnityNote == 60)
        #expect(smpl.midiPitchFraction == 0x8000_0000)
        #expect(smpl.smpteFormat == 25)
        #expect(smpl.smpteOffset == 0x0102_0304)
        #expect(
            smpl.loops == [
                SampleLoop(cuePointID: 0x20000, type: 0, start: 0, end: 107_999, fraction: 0, playCount: 0),
                SampleLoop(cuePointID: 7, type: 1, start: 100, end: 200, fraction: 0x4000_0000, playCount: 3),
            ])
        #expect(file.warnings.isEmpty)
    }

    @Test func samplerWithMissingLoopsWarns() throws {
        var w = ByteWriter()
        for value: UInt32 in [0, 0, 0, 60, 0, 0, 0, 3, 0] { w.write(value, .little) }
        for value: UInt32 in [1, 0, 0, 10, 0, 0] { w.write(value, .little) }
        let file = try readWAVE(wav([Piece("smpl", w.bytes)]))
        #expect(file.sampler?.loops.count == 1)
        #expect(warns(file.warnings, "smpl", "3 loops", "holds 1"))
    }

    @Test func cuePoints() throws {
        var w = ByteWriter()
        w.write(UInt32(2), .little)
        for point: [UInt32] in [[1, 0, 0, 0, 0, 0], [2, 4410, 0, 0, 0, 4410]] {
            w.write(point[0], .little); w.write(point[1], .little); w.write(FourCC("data"))
            for value in point[3...] { w.write(value, .little) }
        }
        let file = try readWAVE(wav([Piece("cue ", w.bytes)]))
        #expect(
            file.cuePoints == [
                CuePoint(id: 1, position: 0, chunkID: FourCC("data"), chunkStart: 0, blockStart: 0, sampleOffset: 0),
                CuePoint(id: 2, position: 4410, chunkID: FourCC("data"), chunkStart: 0, blockStart: 0, sampleOffset: 4410),
            ])
    }

    @Test func hugeCueCountDoesNotAllocate() throws {
        var w = ByteWriter()
        w.write(UInt32.max, .little)
        w.write(bytes: [UInt8](repeating: 0, count: 24))
        let file = try readWAVE(wav([Piece("cue ", w.bytes)]))
        #expect(file.cuePoints.count == 1)
        #expect(warns(file.warnings, "cue", "4294967295 points"))
    }

    @Test func unknownChunksAreKept() throws {
        let file = try readWAVE(wav([Piece("JUNK", [UInt8](repeating: 0, count: 28)), Piece("abcd", [1, 2, 3])]))
        #expect(file.unknownChunks.map(\.type) == [FourCC("JUNK"), FourCC("abcd")])
        #expect(file.unknownChunks.map(\.offset) == [36, 72])
        #expect(file.unknownChunks.map(\.declaredSize) == [28, 3])
        #expect(file.warnings.isEmpty)
    }

    @Test func rf64WithDataSize64() throws {
        var ds64 = ByteWriter()
        ds64.write(UInt64(0), .little)  // patched below
        ds64.write(UInt64(32), .little)
        ds64.write(UInt64(8), .little)
        ds64.write(UInt32(0), .little)
        var bytes = assemble(
            "RF64", "WAVE",
            [
                Piece("ds64", ds64.bytes), Piece("fmt ", fmtBody()),
                Piece("data", [UInt8](repeating: 7, count: 32), declared: 0xFFFF_FFFF),
            ],
            formSize: 0xFFFF_FFFF)
        let riff = UInt64(bytes.count - 8)
        for index in 0..<8 { bytes[20 + index] = UInt8(truncatingIfNeeded: riff >> UInt64(8 * index)) }
        let file = try readWAVE(bytes)
        #expect(file.container == .rf64)
        #expect(file.ds64?.dataSize == 32)
        #expect(file.ds64?.sampleCount == 8)
        #expect(file.ds64?.riffSize == riff)
        #expect(file.declaredAudioBytes == 32)
        #expect(file.audioBytes == 32)
        #expect(file.frames == 8)
        #expect(file.warnings.isEmpty, "\(file.warnings)")
        bytes[20] &+= 1
        #expect(warns(try readWAVE(bytes).warnings, "'ds64' RIFF size says"))
    }

    @Test func rf64TableSizesAndBW64() throws {
        var ds64 = ByteWriter()
        ds64.write(UInt64(0), .little)
        ds64.write(UInt64(8), .little)
        ds64.write(UInt64(2), .little)
        ds64.write(UInt32(1), .little)
        ds64.write(FourCC("JUNK"))
        ds64.write(UInt64(6), .little)
        let bytes = assemble(
            "BW64", "WAVE",
            [
                Piece("ds64", ds64.bytes), Piece("fmt ", fmtBody()),
                Piece("JUNK", [1, 2, 3, 4, 5, 6], declared: 0xFFFF_FFFF),
                Piece("data", [UInt8](repeating: 7, count: 8), declared: 0xFFFF_FFFF),
            ])
        let file = try readWAVE(bytes)
        #expect(file.container == .rf64)
        #expect(file.chunks.map(\.declaredSize) == [40, 16, 6, 8])
        #expect(file.frames == 2)
        #expect(file.warnings.isEmpty, "\(file.warnings)")
    }

    @Test func rf64WithoutDataSize64Warns() throws {
        let bytes = assemble("RF64", "WAVE", [Piece("fmt ", fmtBody()), Piece("data", [UInt8](repeating: 0, count: 8))])
        let file = try readWAVE(bytes)
        #expect(file.frames == 2)
        #expect(warns(file.warnings, "without a 'ds64' chunk"))
    }

    @Test func rifxIsBigEndian() throws {
        let list = ascii("INFO") + ascii("ISFT") + [0, 0, 0, 4] + ascii("abc", width: 4)
        let bytes = assemble(
            "RIFX", "WAVE",
            [
                Piece("fmt ", fmtBody(channels: 1, bits: 16, order: .big)),
                Piece("LIST", list), Piece("data", [0, 1, 0, 2, 0, 3]),
            ], order: .big)
        let file = try readWAVE(bytes)
        #expect(file.container == .rifx)
        #expect(file.byteOrder == .big)
        #expect(file.sampleByteOrder == .big)
        #expect(file.format.sampleRate == 44100)
        #expect(file.frames == 3)
        #expect(file.infoStrings.map(\.value) == ["abc"])
        #expect(file.warnings.isEmpty)
    }
}

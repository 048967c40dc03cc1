import BinaryIO
import Testing
import WAVEKit

@Suite struct AIFFTests {
    @Test func plainAIFF() throws {
        let audio = [UInt8](repeating: 0x11, count: 16)
        let file = try readAIFF(
            assemble("FORM", "AIFF", [Piece("COMM", commBody()), Piece("SSND", ssndBody(audio))], order: .big))
        #expect(file.container == .aiff)
        #expect(file.formatID == "lpcm")
        #expect(file.channels == 2)
        #expect(file.sampleRate == 44100)
        #expect(file.bitsPerChannel == 16)
        #expect(file.byteOrder == .big)
        #expect(!file.isFloat)
        #expect(file.frames == 4)
        #expect(file.audioOffset == 12 + 26 + 16)
        #expect(file.audioBytes == 16)
        #expect(file.warnings.isEmpty)
        #expect(file.chunks.map(\.type.description) == ["COMM", "SSND"])
    }

    @Test(arguments: [
        ("sowt", "lpcm", ByteOrder?.some(.little), false, Int?.some(16)),
        ("NONE", "lpcm", .big, false, 16), ("twos", "lpcm", .big, false, 16),
        ("fl32", "lpcm", .big, true, 32), ("FL32", "lpcm", .big, true, 32),
        ("fl64", "lpcm", .big, true, 64), ("ulaw", "ulaw", nil, false, nil),
        ("ULAW", "ulaw", nil, false, nil), ("alaw", "alaw", nil, false, nil),
        ("ALAW", "alaw", nil, false, nil), ("ima4", "ima4", nil, false, nil),
        ("GSM ", "GSM", nil, false, nil),
    ])
    func compressionTypes(_ code: String, _ id: String, _ order: ByteOrder?, _ float: Bool, _ bits: Int?) throws {
        let bytes = assemble(
            "FORM", "AIFC",
            [
                Piece("FVER", [0xA2, 0x80, 0x51, 0x40]),
                Piece("COMM", commBody(frames: 1, compression: code, name: "x")),
                Piece("SSND", ssndBody([UInt8](repeating: 0, count: 16))),
            ], order: .big)
        let file = try readAIFF(bytes)
        #expect(file.container == .aifc)
        #expect(file.compressionType.description == code)
        #expect(file.common.compressionName == "x")
        #expect(file.formatID == id)
        #expect(file.byteOrder == order)
        #expect(file.isFloat == float)
        #expect(file.bitsPerChannel == bits)
        #expect(file.formatVersion == 0xA280_5140)
    }

    @Test func ssndBeforeCOMM() throws {
        let audio: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        let bytes = assemble(
            "FORM", "AIFC",
            [
                Piece("SSND", ssndBody(audio + ascii("yyyyyy"), offset: 5)),
                Piece("COMM", commBody(channels: 1, frames: 9, rate: 8000, compression: "ULAW", name: "mu")),
            ],
            order: .big)
        let file = try readAIFF(bytes)
        #expect(file.chunks.map(\.type.description) == ["SSND", "COMM"])
        #expect(file.soundDataOffset == 5)
        #expect(file.audioOffset == 12 + 8 + 8 + 5)
        #expect(file.audioBytes == 15)
        #expect(file.frames == 9)
        #expect(file.sampleRate == 8000)
        #expect(file.formatID == "ulaw")
    }

    @Test func metadataChunks() throws {
        var mark = ByteWriter()
        mark.write(UInt16(2), .big)
        mark.write(Int16(1), .big); mark.write(UInt32(0), .big); mark.write(UInt8(5)); mark.write(bytes: ascii("start"))
        mark.write(Int16(2), .big); mark.write(UInt32(3), .big); mark.write(UInt8(2)); mark.write(bytes: ascii("up"));
        mark.write(UInt8(0))
        var inst = ByteWriter()
        for value: UInt8 in [60, 0xFB, 0, 127, 1, 127] { inst.write(value) }
        for value: Int16 in [-3, 1, 1, 2, 0, 0, 0] { inst.write(value, .big) }
        var comt = ByteWriter()
        comt.write(UInt16(1), .big); comt.write(UInt32(100), .big); comt.write(Int16(2), .big)
        comt.write(UInt16(3), .big); comt.write(bytes: ascii("hey")); comt.write(UInt8(0))
        let bytes = assemble(
            "FORM", "AIFF",
            [
                Piece("COMM", commBody()), Piece("MARK", mark.bytes), Piece("INST", inst.bytes),
                Piece("NAME", ascii("Kick")), Piece("AUTH", ascii("Me")), Piece("(c) ", ascii("2024 X")),
                Piece("ANNO", ascii("odd")), Piece("COMT", comt.bytes), Piece("ID3 ", [1, 2]),
                Piece("SSND", ssndBody([UInt8](repeating: 0, count: 16))),
            ], order: .big)
        let file = try readAIFF(bytes)
        #expect(file.markers == [AIFFMarker(id: 1, position: 0, name: "start"), AIFFMarker(id: 2, position: 3, name: "up")])
        let instrument = try #require(file.instrument)
        #expect(instrument.baseNote == 60)
        #expect(instrument.detune == -5)
        #expect(instrument.gain == -3)
        #expect(instrument.sustainLoop == AIFFLoop(playMode: 1, beginMarker: 1, endMarker: 2))
        #expect(instrument.releaseLoop == AIFFLoop(playMode: 0, beginMarker: 0, endMarker: 0))
        #expect(
            file.texts == [
                AIFFText(type: FourCC("NAME"), text: "Kick"), AIFFText(type: FourCC("AUTH"), text: "Me"),
                AIFFText(type: FourCC("(c) "), text: "2024 X"), AIFFText(type: FourCC("ANNO"), text: "odd"),
            ])
        #expect(file.comments == [AIFFComment(timeStamp: 100, marker: 2, text: "hey")])
        #expect(file.unknownChunks.map(\.type) == [FourCC("ID3 ")])
        #expect(file.warnings.isEmpty)
    }

    @Test(arguments: [UInt64(8000), 11025, 22050, 44100, 48000, 96000, 192_000, 1, 7_999_999_999])
    func extendedIntegersConvertExactly(_ rate: UInt64) {
        #expect(doubleFromExtended80(extended80(rate)) == Double(rate))
    }

    @Test func extendedKnownBytes() {
        #expect(doubleFromExtended80([0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0]) == 44100)
        #expect(doubleFromExtended80([0x40, 0x0B, 0xFA, 0x00, 0, 0, 0, 0, 0, 0]) == 8000)
        #expect(doubleFromExtended80([0x3F, 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0]) == 0.5)
        #expect(doubleFromExtended80([0xC0, 0x00, 0x80, 0, 0, 0, 0, 0, 0, 0]) == -2)
        #expect(doubleFromExtended80([UInt8](repeating: 0, count: 10)) == 0)
        #expect(doubleFromExtended80([0x7F, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0]) == .infinity)
        #expect(doubleFromExtended80([0x7F, 0xFF, 0xC0, 0, 0, 0, 0, 0, 0, 0]).isNaN)
        #expect(doubleFromExtended80([0x7F, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .infinity)
    }

    @Test func oddChunkWithoutPadIsRecovered() throws {
        let audio = [UInt8](repeating: 0x22, count: 3)
        let bytes = assemble(
            "FORM", "AIFF",
            [
                Piece("COMM", commBody(channels: 1, frames: 1, bits: 24)),
                Piece("SSND", ssndBody(audio), pad: false), Piece("NAME", ascii("ab")),
            ], order: .big)
        let file = try readAIFF(bytes)
        #expect(file.chunks.map(\.type.description) == ["COMM", "SSND", "NAME"])
        #expect(warns(file.warnings, "'SSND'", "no pad byte"))
        #expect(file.texts.first?.text == "ab")
    }

    @Test func framesBeyondSoundDataWarn() throws {
        let file = try readAIFF(
            assemble(
                "FORM", "AIFF",
                [
                    Piece("COMM", commBody(frames: 100)),
                    Piece("SSND", ssndBody([0, 0, 0, 0])),
                ], order: .big))
        #expect(file.frames == 100)
        #expect(warns(file.warnings, "100 frames", "4 audio bytes"))
    }

    @Test func ssndSizeIsClamped() throws {
        let bytes = assemble(
            "FORM", "AIFF",
            [
                Piece("COMM", commBody(frames: 1)),
                Piece("SSND", ssndBody([1, 2, 3, 4]), declared: 0xFFFF_FFFF),
            ], order: .big)
        let file = try readAIFF(bytes)
        #expect(file.audioBytes == 4)
        #expect(warns(file.warnings, "'SSND'", "clamped"))
    }

    @Test func errors() {
        #expect(throws: WAVEError(at: 12, "no 'COMM' chunk")) {
            try readAIFF(assemble("FORM", "AIFF", [Piece("SSND", ssndBody([]))], order: .big))
        }
        #expect(throws: WAVEError(at: 0, "not an AIFF file: the content is WAV")) { try readAIFF(wav()) }
        #expect(throws: WAVEError(at: 0, "truncated FORM header: the file is 6 bytes, a header needs 12")) {
            try readAIFF(ascii("FORM") + [0, 0])
        }
        #expect(throws: WAVEError(at: 20, "'COMM' chunk declares 0 channels")) {
            try readAIFF(assemble("FORM", "AIFF", [Piece("COMM", commBody(channels: 0))], order: .big))
        }
        #expect(throws: WAVEError(at: 28, "'COMM' chunk declares a sample rate of 0.0")) {
            try readAIFF(assemble("FORM", "AIFF", [Piece("COMM", commBody(rate: 0))], order: .big))
        }
        #expect {
            try readAIFF(assemble("FORM", "AIFF", [Piece("COMM", Array(commBody().prefix(10)))], order: .big))
        } throws: { error in
            (error as? WAVEError)?.message.contains("truncated 'COMM' chunk") == true
        }
    }
}

import BinaryIO
import TestSupport
import Testing
import WAVEKit

@Suite struct WAVEMalformedTests {
    @Test func unknownLengthSizesAreClamped() throws {
        let bytes = assemble(
            "RIFF", "WAVE", [Piece("fmt ", fmtBody()), Piece("data", [UInt8](repeating: 0, count: 40), declared: 0xFFFF_FFFF)],
            formSize: 0xFFFF_FFFF)
        let file = try readWAVE(bytes)
        #expect(file.declaredAudioBytes == 0xFFFF_FFFF)
        #expect(file.audioBytes == 40)
        #expect(file.frames == 10)
        #expect(warns(file.warnings, "'data'", "0xFFFFFFFF", "clamped"))
        #expect(warns(file.warnings, "RIFF size is 0xFFFFFFFF"))
    }

    @Test func garbageSizeIsClamped() throws {
        let bytes = assemble(
            "RIFF", "WAVE",
            [Piece("fmt ", fmtBody(channels: 1)), Piece("data", [UInt8](repeating: 0, count: 10), declared: 0xFFFF_FF9B)])
        let file = try readWAVE(bytes)
        #expect(file.audioBytes == 10)
        #expect(file.frames == 5)
        #expect(warns(file.warnings, "4294967195 bytes", "clamped"))
    }

    @Test func oddChunkWithoutPadIsRecovered() throws {
        let bytes = wav([
            Piece("abcd", [1, 2, 3], pad: false),
            Piece("LIST", ascii("INFO") + ascii("INAM") + [2, 0, 0, 0] + ascii("x", width: 2)),
        ])
        let file = try readWAVE(bytes)
        #expect(file.chunks.map(\.type.description) == ["fmt ", "abcd", "LIST", "data"])
        #expect(file.chunks.map(\.offset) == [12, 36, 47, 69])
        #expect(warns(file.warnings, "'abcd'", "no pad byte"))
        #expect(file.infoStrings.map(\.value) == ["x"])
        #expect(file.audioBytes == 16)
    }

    @Test func oddChunkWithPadIsSilent() throws {
        let file = try readWAVE(wav([Piece("abcd", [1, 2, 3])]))
        #expect(file.chunks.map(\.offset) == [12, 36, 48])
        #expect(file.warnings.isEmpty)
    }

    @Test func oddLastChunkWithoutPadAtEOF() throws {
        let bytes = assemble(
            "RIFF", "WAVE", [Piece("fmt ", fmtBody(channels: 1, bits: 8)), Piece("data", [1, 2, 3], pad: false)])
        let file = try readWAVE(bytes)
        #expect(file.frames == 3)
        #expect(warns(file.warnings, "'data'", "without its pad byte"))
    }

    @Test func truncatedHeader() {
        #expect(throws: WAVEError(at: 0, "truncated RIFF header: the file is 8 bytes, a header needs 12")) {
            try readWAVE(ascii("RIFF") + [4, 0, 0, 0])
        }
    }

    @Test func emptyFile() {
        #expect(throws: WAVEError(at: 0, "empty file (0 bytes)")) { try readWAVE([]) }
    }

    @Test func otherContainersAreNamed() {
        #expect(throws: WAVEError(at: 0, "not a RIFF/WAVE file: the content is AIFF")) {
            try readWAVE(assemble("FORM", "AIFF", [], order: .big))
        }
        #expect(throws: WAVEError(at: 0, "not a RIFF/WAVE file (starts with 'OggS')")) {
            try readWAVE(ascii("OggS") + [UInt8](repeating: 0, count: 20))
        }
    }

    @Test func missingFormat() {
        #expect(throws: WAVEError(at: 12, "no 'fmt ' chunk")) {
            try readWAVE(assemble("RIFF", "WAVE", [Piece("data", [0, 0])]))
        }
    }

    @Test func missingData() {
        #expect(throws: WAVEError(at: 12, "no 'data' chunk")) {
            try readWAVE(assemble("RIFF", "WAVE", [Piece("fmt ", fmtBody())]))
        }
    }

    @Test func shortFormat() {
        #expect(throws: WAVEError(at: 12, "'fmt ' chunk is 14 bytes, expected at least 16")) {
            try readWAVE(assemble("RIFF", "WAVE", [Piece("fmt ", Array(fmtBody().prefix(14))), Piece("data", [0, 0])]))
        }
    }

    @Test(arguments: [
        ("channels", "0 channels"), ("rate", "sample rate of 0"), ("bits", "0 bits per sample"),
        ("align", "block align of 0"),
    ])
    func zeroFields(_ field: String, _ message: String) {
        let fmt = fmtBody(
            channels: field == "channels" ? 0 : 2, rate: field == "rate" ? 0 : 44100,
            bits: field == "bits" ? 0 : 16, blockAlign: field == "align" ? 0 : 4)
        #expect {
            try readWAVE(assemble("RIFF", "WAVE", [Piece("fmt ", fmt), Piece("data", [0, 0, 0, 0])]))
        } throws: { error in
            (error as? WAVEError)?.message.contains(message) == true
        }
    }

    @Test func bogusExtensionSizeWarns() throws {
        let file = try readWAVE(
            assemble(
                "RIFF", "WAVE",
                [
                    Piece("fmt ", fmtBody(channels: 1, bits: 8, cbSize: 0x554A)),
                    Piece("data", [1, 2, 3, 4]),
                ]))
        #expect(file.frames == 4)
        #expect(warns(file.warnings, "cbSize", "21834"))
    }

    @Test func truncatedMetadataIsAWarningNotAnError() throws {
        let file = try readWAVE(wav([Piece("bext", [UInt8](repeating: 0x41, count: 100))]))
        #expect(file.broadcast == nil)
        #expect(warns(file.warnings, "'bext'", "too short"))
    }

    @Test func garbageAfterChunksStopsTheWalk() throws {
        let bytes = wav() + [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]
        let file = try readWAVE(bytes)
        #expect(file.chunks.count == 2)
        #expect(warns(file.warnings, "not a chunk"))
    }
}

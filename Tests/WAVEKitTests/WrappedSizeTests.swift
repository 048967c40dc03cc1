import BinaryIO
import TestSupport
import Testing
import WAVEKit

/// A WAV over 4 GiB whose 32-bit sizes wrapped, as sox writes it: the file's bytes are `header`
/// followed by zeros up to `length`, served without storing them (no 4 GiB on disk or in memory).
struct Padded: ByteSource {
    var header: [UInt8]
    var length: UInt64
    func read(at offset: UInt64, count: Int) throws(ByteError) -> [UInt8] {
        guard offset < length else { return [] }
        let end = min(length, offset + UInt64(count))
        return (offset..<end).map { $0 < UInt64(header.count) ? header[Int($0)] : 0 }
    }
}

@Suite struct WrappedSizeTests {
    /// 2 channels of 16-bit samples, 4 GiB + 4000 bytes of audio: the 'data' size says 4000.
    static func wrapped(extra: UInt64 = 4000) -> Padded {
        let audio: UInt64 = (1 << 32) + extra
        let header = assemble(
            "RIFF", "WAVE", [Piece("fmt ", fmtBody(channels: 2)), Piece("data", [], declared: UInt32(truncatingIfNeeded: audio))],
            formSize: UInt32(truncatingIfNeeded: audio + 36))
        return Padded(header: header, length: UInt64(header.count) + audio)
    }

    @Test("a 'data' size that wrapped past 4 GiB is read to the end of the file, with a warning")
    func wrappedDataRunsToTheEnd() throws {
        let source = Self.wrapped()
        let file = try WAVEFile(reading: source)
        #expect(file.declaredAudioBytes == 4000)
        #expect(file.audioBytes == (1 << 32) + 4000)
        #expect(file.frames == ((1 << 32) + 4000) / 4)
        #expect(warns(file.warnings, "'data'", "wrapped", "read to the end"), "\(file.warnings)")
    }

    @Test("a short 'data' size that is not a wrap (the rest is not a multiple of 4 GiB) is kept")
    func otherShortSizesAreKept() throws {
        var source = Self.wrapped()
        source.length += 2
        let file = try WAVEFile(reading: source)
        #expect(file.audioBytes == 4000)
    }
}

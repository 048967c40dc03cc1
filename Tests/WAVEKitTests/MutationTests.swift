import BinaryIO
import TestSupport
import Testing
import WAVEKit

/// A small in-process fuzz pass: random byte, size and truncation mutations of crafted files must
/// make the readers throw or warn, never trap (a trap fails the whole test run).
@Suite struct MutationTests {
    /// Two WAVE files and one AIFF-C, with every metadata chunk the readers parse.
    static let seeds: [[UInt8]] = {
        var smpl = ByteWriter()
        for value: UInt32 in [0, 0, 22676, 60, 0, 0, 0, 1, 0, 1, 0, 0, 100, 0, 0] { smpl.write(value, .little) }
        var cue = ByteWriter()
        cue.write(UInt32(1), .little)
        for value: UInt32 in [1, 0, 0x6461_7461, 0, 0, 0] { cue.write(value, .little) }
        let list = ascii("adtl") + ascii("labl") + [5, 0, 0, 0, 1, 0, 0, 0, 0x41, 0]
        let wave = wav([
            Piece("smpl", smpl.bytes), Piece("cue ", cue.bytes), Piece("LIST", list),
            Piece("bext", [UInt8](repeating: 0x20, count: 610)),
        ])
        let aiff = assemble(
            "FORM", "AIFC",
            [
                Piece("COMM", commBody(compression: "sowt", name: "x")),
                Piece("MARK", [0, 1, 0, 1, 0, 0, 0, 0, 1, 0x41]),
                Piece("COMT", [0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x42, 0]),
                Piece("SSND", ssndBody([UInt8](repeating: 0, count: 16))),
            ], order: .big)
        return [wave, aiff, WAVFixture.signal(.int24, channels: 2, frames: 5, extensible: true).bytes]
    }()

    @Test func mutatedFilesNeverTrap() {
        var random = SplitMix64(seed: 42)
        // Outcomes of each reader on mutations of its own kind of seed: both must occur, or the
        // mutations only ever break the files (or never do).
        var wave = (read: 0, thrown: 0)
        var aiff = (read: 0, thrown: 0)
        for round in 0..<3000 {
            var bytes = Self.seeds[round % Self.seeds.count]
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes[index] = 0xFF
                case 2: bytes.removeSubrange(index...)
                default: bytes[index] = 0
                }
                if bytes.isEmpty { break }
            }
            let source = MemoryByteSource(bytes)
            let isAIFF = round % Self.seeds.count == 1
            do {
                let file = try WAVEFile(reading: source)
                _ = (file.infoStrings, file.associatedData, file.unknownChunks, file.frames, file.formatID)
                if !isAIFF { wave.read += 1 }
            } catch {
                if !isAIFF { wave.thrown += 1 }
            }
            do {
                let file = try AIFFFile(reading: source)
                _ = (file.frames, file.formatID, file.markers, file.comments, file.unknownChunks)
                if isAIFF { aiff.read += 1 }
            } catch {
                if isAIFF { aiff.thrown += 1 }
            }
        }
        #expect(wave.read > 0 && wave.thrown > 0, "\(wave)")
        #expect(aiff.read > 0 && aiff.thrown > 0, "\(aiff)")
    }
}

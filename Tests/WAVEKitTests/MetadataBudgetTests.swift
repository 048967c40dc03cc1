import BinaryIO
import Testing

@testable import WAVEKit

/// Issue 13, item 8: memory follows a budget, not the file's metadata.
@Suite("metadata budget: many large chunks cost bounded memory")
struct MetadataBudgetTests {
    /// A `LIST`/`INFO` chunk holding one `ICMT` text of `size` bytes.
    func list(_ size: Int) -> Piece {
        let text = [UInt8](repeating: 0x78, count: size - 1) + [0]
        return Piece(
            "LIST",
            ascii("INFO") + ascii("ICMT") + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), 0] + text)
    }

    @Test("a WAV with 40 LIST chunks of 1 MiB reads at most the budget, and says how many were not read")
    func manyLists() throws {
        let size = (1 << 20) - 12
        let file = try readWAVE(wav(Array(repeating: list(size), count: 40)))
        let read = file.lists.count
        #expect(read * (1 << 20) <= ChunkWalker.metadataBudget)
        #expect(read >= ChunkWalker.metadataBudget / (1 << 20) - 1)
        #expect(warns(file.warnings, "\(40 - read) metadata chunks", "not read", "budget"), "\(file.warnings)")
    }

    @Test("the same budget holds for AIFF text chunks")
    func manyAIFFTexts() throws {
        let comm = Piece("COMM", commBody())
        let texts = Array(repeating: Piece("NAME", [UInt8](repeating: 0x61, count: 1 << 20)), count: 20)
        let bytes = assemble("FORM", "AIFF", [comm] + texts + [Piece("SSND", ssndBody([0, 0, 0, 0]))], order: .big)
        let file = try readAIFF(bytes)
        #expect(warns(file.warnings, "metadata chunks", "not read", "budget"), "\(file.warnings)")
    }

    @Test("a WAV of more chunks than the reader's limit: the rest is not read, with a warning; a 'data' past it is named")
    func manyEmptyChunks() throws {
        let count = ChunkWalker.maximumChunks + 10
        let junk = Array(repeating: Piece("junk", []), count: count)
        // 'data' first: the file reads, and says what it left out.
        let first = try readWAVE(assemble("RIFF", "WAVE", [Piece("fmt ", fmtBody()), Piece("data", [0, 0, 0, 0])] + junk))
        #expect(first.chunks.count == ChunkWalker.maximumChunks)
        #expect(warns(first.warnings, "more than \(ChunkWalker.maximumChunks) chunks", "not read"), "\(first.warnings)")
        // 'data' after the limit: an error that says why it was not found.
        #expect {
            try readWAVE(wav(junk))
        } throws: { error in
            "\(error)".contains("no 'data' chunk among the first \(ChunkWalker.maximumChunks) chunks")
        }
    }
}

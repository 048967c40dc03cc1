import BinaryIO
import Testing

@testable import CAFKit

/// The tolerant reader: what it accepts, what it warns about and what it refuses.
@Suite("Reader")
struct ReaderTests {
    static let refusedCases: [([UInt8], CAFError.Kind)] = {
        let header = CAFWriter.header()
        let shortDesc = rawChunk(.desc, size: 8, body: [UInt8](repeating: 0, count: 8))
        return [
            ([], .truncated),
            (Array("RIFF\0\0\0\0WAVE".utf8), .notCAF(found: FourCC("RIFF"))),
            (Array("caff".utf8) + [0, 2, 0, 0], .unsupportedVersion(2)),
            (header, .missingDescription),
            (header + CAFWriter.chunkBytes(desc()), .missingData),
            (header + shortDesc + CAFWriter.chunkBytes(data(4)), .malformedChunk(.desc)),
            (header + rawChunk(.free, size: -5, body: []), .malformedChunk(.free)),
        ]
    }()

    @Test("files that are not CAF, or too short, are refused with the offset", arguments: refusedCases)
    func refused(bytes: [UInt8], kind: CAFError.Kind) {
        do {
            _ = try CAFFile(reading: MemoryByteSource(bytes))
            Issue.record("read a file that should be refused")
        } catch {
            #expect(error.kind == kind)
        }
    }

    @Test("a file of more chunks than the reader's limit: the rest is not read, with a warning; a 'data' past it is named")
    func manyEmptyChunks() throws {
        let header = CAFWriter.header()
        let free = rawChunk(.free, size: 0, body: [])
        let junk = Array([[UInt8]](repeating: free, count: CAFFile.maximumChunks + 10).joined())
        let first = try CAFFile(
            reading: MemoryByteSource(header + CAFWriter.chunkBytes(desc()) + CAFWriter.chunkBytes(data(16)) + junk))
        #expect(first.chunks.count == CAFFile.maximumChunks)
        #expect(first.validFrames == 4)
        #expect(first.warnings.contains { $0.message.contains("more than \(CAFFile.maximumChunks) chunks") }, "\(first.warnings)")
        // verify names the limit, not bytes after "the last chunk".
        #expect(CAFValidator.validate(first).map(\.code) == ["chunk-count"])
        do {
            _ = try CAFFile(
                reading: MemoryByteSource(header + CAFWriter.chunkBytes(desc()) + junk + CAFWriter.chunkBytes(data(16))))
            Issue.record("read a file whose 'data' lies past the chunk limit")
        } catch {
            #expect(error.kind == .missingData)
            #expect(error.message.contains("among the first \(CAFFile.maximumChunks) chunks"), "\(error)")
        }
    }

    @Test("a data size that forgot its edit count is read by its declared size, with a warning")
    func forgottenEditCount() throws {
        var bytes = caf([desc(), data(16)])
        // Declare 16 (the audio alone) instead of 20: 4 audio bytes now follow the chunk.
        bytes.replaceSubrange(52 + 4..<52 + 12, with: [0, 0, 0, 0, 0, 0, 0, 16])
        let document = try read(bytes)
        #expect(document.file.audioBytes == 12 && document.file.validFrames == 3)
        #expect(document.warnings.contains { $0.message.contains("leave out the 4-byte edit count") })
        #expect(document.contents.trailing.count == 4)
        #expect(try CAFWriter.bytes(of: document.contents) == bytes)
    }

    @Test("a desc longer than 32 bytes is read, with a warning; stray bytes after the last chunk too")
    func longDescAndStrayBytes() throws {
        let document = try read(caf([.description(basePCM, trailing: [9, 9]), data(16)], trailing: [1, 2, 3, 4, 5]))
        #expect(document.file.audioDescription == basePCM)
        #expect(document.warnings.map(\.offset) == [86, 8])
        #expect(document.warnings.contains { $0.message.contains("longer than 32") })
        #expect(document.warnings.contains { $0.message.contains("5 stray bytes") })
    }

    @Test("a chunk that runs past the end is clamped, with a warning")
    func clamped() throws {
        let bytes = caf([desc()]) + rawChunk(.data, size: 1000, body: [0, 0, 0, 1, 5, 6])
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        #expect(file.audioBytes == 2 && file.editCount == 1)
        #expect(file.warnings.count == 1 && file.warnings[0].offset == 52)
    }

    @Test("size -1 means to the end of the file and is written back as -1")
    func unknownDataSize() throws {
        let bytes = caf([desc()]) + rawChunk(.data, size: -1, body: [0, 0, 0, 3] + [UInt8](repeating: 7, count: 12))
        let document = try read(bytes)
        #expect(document.file.audioBytes == 12 && document.file.editCount == 3)
        #expect(document.warnings.isEmpty)
        #expect(try CAFWriter.bytes(of: document.contents) == bytes)
    }

    @Test("bodies over the limit are not loaded, and the writer copies them from the source")
    func bodyLimit() throws {
        let bytes = caf([desc(), .free(FreeChunk(bytes: [UInt8](repeating: 0, count: 100))), data(16)])
        let source = MemoryByteSource(bytes)
        let document = try CAFDocument(reading: source, bodyLimit: 50)
        #expect(document.contents.chunks[1] == .notLoaded(document.file.chunks[1]))
        #expect(document.warnings.count == 1)
        #expect(document.contents.audioData?.audio == .inSource(offset: 52 + 112 + 16, count: 16))
        #expect(try CAFWriter.bytes(of: document.contents, copyingFrom: source) == bytes)
        #expect(throws: CAFError.self) { try CAFWriter.bytes(of: document.contents) }
    }

    @Test("bodies past the total limit are not loaded either")
    func totalLimit() throws {
        let free = CAFChunk.free(FreeChunk(bytes: [UInt8](repeating: 0, count: 40)))
        let bytes = caf([desc(), free, free, data(16)])
        let source = MemoryByteSource(bytes)
        let document = try CAFDocument(reading: source, loadingAudio: true, bodyLimit: 100, totalLimit: 90)
        // desc (32) + free (40) fit in 90; the second free (40) does not, nor the audio (20).
        #expect(document.contents.chunks[1] == free)
        #expect(document.contents.chunks[2] == .notLoaded(document.file.chunks[2]))
        #expect(document.contents.audioData?.audio == .inSource(offset: 52 + 52 + 52 + 16, count: 16))
        #expect(document.warnings.count == 1)
        #expect(try CAFWriter.bytes(of: document.contents, copyingFrom: source) == bytes)
    }

    @Test("a malformed body is kept raw with a warning; frames come from pakt when there is one")
    func malformedBody() throws {
        // Variable-size packets: one packet declared, but its size is cut off after one byte.
        let header: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0]
        let bytes = caf([.description(ValidatorTests.aac), .unknown(.pakt, header + [0x81]), data(16)])
        let document = try read(bytes)
        #expect(document.file.validFrames == 9)
        #expect(document.file.linearPCMFrames == nil)
        #expect(document.contents.chunks[1] == .unknown(.pakt, header + [0x81]))
        #expect(document.warnings.count == 1 && document.warnings[0].offset == 52)
        #expect(CAFValidator.validate(document).map(\.code) == ["pakt-frames", "chunk-body"])
        // The same bytes with constant packets are a header and one trailing byte.
        let constant = try read(caf([desc(), .unknown(.pakt, header + [0x81]), data(16)]))
        #expect(constant.contents.packetTable?.trailing == [0x81])
        #expect(constant.file.validFrames == 9 && constant.file.linearPCMFrames == 4)
        let short = try CAFFile(reading: MemoryByteSource(caf([desc(), .unknown(.pakt, [1, 2]), data(16)])))
        #expect(short.packetTableHeader == nil && short.validFrames == 4 && short.warnings.count == 1)
    }

    @Test("parsed chunks line up with the chunk table and the accessors find them")
    func accessors() throws {
        let bytes = caf([
            desc(), .info(InfoStrings([InfoEntry(key: "k", value: "v")])), data(16),
            .markers(MarkerChunk(markers: [Marker(type: FourCC("rbeg"), framePosition: 1, markerID: 1)])),
            .peak(PeakChunk(editCount: 0, peaks: [])),
        ])
        let source = MemoryByteSource(bytes)
        let file = try CAFFile(reading: source)
        let chunks = try file.parsedChunks(from: source)
        #expect(chunks.map(\.type) == file.chunks.map(\.type))
        let contents = CAFContents(chunks: chunks)
        #expect(contents.infoStrings?["k"] == "v" && contents.markers.count == 1 && contents.peak != nil)
        #expect(contents.audioDescription == basePCM && contents.regions.isEmpty && contents.channelLayout == nil)
    }
}

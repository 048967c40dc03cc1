import BinaryIO
import Testing

@testable import CAFKit

/// `parse(write(x)) == x` over generated values, and `write(parse(b)) == b` for what was written.
@Suite("Round trip")
struct RoundTripTests {
    static let seeds: [UInt64] = Array(1...60)

    @Test("every chunk type survives write then parse", arguments: seeds)
    func chunks(seed: UInt64) throws {
        var gen = Gen(seed: seed)
        for _ in 0..<20 {
            let description = gen.description()
            let chunk = gen.chunk(for: description)
            let body = chunk.bodyBytes
            let parsed = try CAFChunk.parse(type: chunk.type, body: body, description: description)
            #expect(parsed == chunk, "seed \(seed), type '\(chunk.type)'")
            #expect(parsed.bodyBytes == body)
        }
    }

    @Test("desc and data survive write then parse", arguments: seeds)
    func descAndData(seed: UInt64) throws {
        var gen = Gen(seed: seed)
        let chunk = CAFChunk.description(gen.description(), trailing: gen.bytes(0...5))
        #expect(try CAFChunk.parse(type: .desc, body: chunk.bodyBytes) == chunk)
        let audio = CAFChunk.audioData(AudioDataChunk(editCount: gen.u32(), audio: .bytes(gen.bytes(0...64))))
        #expect(try CAFChunk.parse(type: .data, body: audio.bodyBytes) == audio)
    }

    @Test("whole files survive write then read", arguments: seeds)
    func wholeFiles(seed: UInt64) throws {
        var gen = Gen(seed: seed)
        let contents = gen.contents()
        let bytes = try CAFWriter.bytes(of: contents)
        let document = try CAFDocument(reading: MemoryByteSource(bytes), loadingAudio: true)
        #expect(document.contents == contents, "seed \(seed)")
        #expect(try CAFWriter.bytes(of: document.contents) == bytes)
        // Without loading the audio, the writer copies it from the source: same bytes.
        let streamed = try CAFDocument(reading: MemoryByteSource(bytes))
        #expect(try CAFWriter.bytes(of: streamed.contents, copyingFrom: MemoryByteSource(bytes)) == bytes)
    }

    static let varIntCases: [(Int64, [UInt8])] = [
        (0, [0x00]), (127, [0x7F]), (128, [0x81, 0x00]), (300, [0x82, 0x2C]),
        (16_383, [0xFF, 0x7F]), (16_384, [0x81, 0x80, 0x00]),
        (Int64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]),
    ]
    static let badVarIntCases: [[UInt8]] = [
        [UInt8](repeating: 0xFF, count: 10) + [0x7F], [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], [0x81, 0x80],
        [0x80, 0x01],
    ]

    @Test("variable-length integers use the fewest bytes and read back", arguments: varIntCases)
    func varInts(value: Int64, encoded: [UInt8]) throws {
        var writer = ByteWriter()
        PacketTable.writeVarInt(value, to: &writer)
        #expect(writer.bytes == encoded)
        var cursor = ByteCursor(encoded)
        #expect(try PacketTable.readVarInt(&cursor) == value)
        #expect(cursor.isAtEnd)
    }

    @Test("a variable-length integer over 63 bits or without its last byte is an error", arguments: badVarIntCases)
    func badVarInts(bytes: [UInt8]) {
        var cursor = ByteCursor(bytes)
        #expect(throws: (any Error).self) { try PacketTable.readVarInt(&cursor) }
    }
}

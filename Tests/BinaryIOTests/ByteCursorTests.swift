import BinaryIO
import Testing

@Suite struct ByteCursorTests {
    @Test func readsBothByteOrders() throws {
        var cursor = ByteCursor([0x01, 0x02, 0x03, 0x04, 0x01, 0x02, 0x03, 0x04], baseOffset: 100)
        #expect(try cursor.readUInt32(.big) == 0x0102_0304)
        #expect(try cursor.readUInt32(.little) == 0x0403_0201)
        #expect(cursor.isAtEnd)
        #expect(cursor.offset == 108)
    }

    @Test func truncatedReadNamesTheOffset() {
        var cursor = ByteCursor([1, 2, 3], baseOffset: 40)
        #expect(throws: ByteError.truncated(offset: 40, needed: 4, available: 3)) { try cursor.readUInt32(.big) }
    }

    @Test func writerRoundTrips() throws {
        var writer = ByteWriter()
        writer.write(Int16(-2), .big)
        writer.write(3.5, .little)
        writer.write(FourCC("desc"))
        var cursor = ByteCursor(writer.bytes)
        #expect(try cursor.readInt16(.big) == -2)
        #expect(try cursor.readFloat64(.little) == 3.5)
        #expect(try cursor.readFourCC() == FourCC("desc"))
    }

    @Test func fourCCText() {
        #expect(FourCC("fmt ").trimmed == "fmt")
        #expect(FourCC(string: "aac") == FourCC("aac "))
        #expect(FourCC(bytes: 0, 0x41, 0x42, 0x43).description == "\\x00ABC")
    }

    @Test func memorySourceShortReadAtEnd() throws {
        let source = MemoryByteSource([1, 2, 3, 4, 5])
        #expect(try source.read(at: 3, count: 10) == [4, 5])
        #expect(try source.read(at: 9, count: 1) == [])
        #expect(throws: ByteError.self) { try source.readExactly(at: 3, count: 3) }
    }
}

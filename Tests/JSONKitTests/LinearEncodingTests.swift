import BinaryIO
import CAFKit
import Inspection
import JSONKit
import TestSupport
import Testing

/// JSON reports are linear in their size. No timing: the sizes are chosen so that the quadratic
/// versions (an array copied on every append, a linear search per marker name) take many minutes,
/// where the linear ones take well under a second; the time limit ends the test as a failure.
@Suite("JSON encoding in linear time", .timeLimit(.minutes(1)))
struct LinearEncodingTests {
    /// 200,000 elements: copying the array on each append copies 2 x 10^10 elements.
    @Test("an array of 200,000 objects encodes to exactly its text")
    func longArray() throws {
        struct Item: Encodable {
            var n: Int
        }
        let count = 200_000
        let text = try JSONValueEncoder().text((0..<count).map { Item(n: $0) })
        var expected = "["
        for index in 0..<count { expected += (index > 0 ? "," : "") + "\n  {\n    \"n\" : \(index)\n  }" }
        expected += "\n]"
        #expect(text == expected)
    }

    /// An object with 100,000 keys: copying its dictionary on each member is as quadratic.
    @Test("an object of 100,000 keys encodes with its keys sorted")
    func wideObject() throws {
        let count = 100_000
        let keys = (0..<count).map { "k\($0)" }
        let text = try JSONValueEncoder().encode(Dictionary(uniqueKeysWithValues: keys.map { ($0, 1) }))
        guard case .object(let members) = text else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == count)
    }

    /// `info --json` on a CAF with 100,000 named markers (a legal CAF holds about 600,000): every
    /// marker's name was a linear search of the `strg` IDs, and every array append a copy.
    @Test("info of a CAF with 100,000 named markers")
    func manyMarkers() throws {
        let count = 100_000
        let markers = (0..<count).map {
            Marker(type: FourCC(rawValue: 0), framePosition: Double($0), markerID: Int32($0 + 1))
        }
        let strings = StringsChunk(strings: (0..<count).map { (UInt32($0 + 1), "m\($0)") })
        let contents = CAFContents(chunks: [
            .description(
                .linearPCM(sampleRate: 48_000, channels: 1, bits: 16, isFloat: false, byteOrder: .little)),
            .markers(MarkerChunk(markers: markers)), .strings(strings),
            .audioData(AudioDataChunk(audio: .bytes([UInt8](repeating: 0, count: 2 * count)))),
        ])
        let folder = TempDirectory()
        let path = folder.write("markers.caf", try CAFWriter.bytes(of: contents))
        let info = Inspector.inspect(path: path)
        #expect(info.error == nil)
        #expect(info.markers.count == count)
        #expect(info.markers.last?.name == "m\(count - 1)")
        let text = try JSONValueEncoder().text([info])
        #expect(text.contains("\"name\" : \"m\(count - 1)\""))
    }

    /// A hostile `strg`: 50,000 IDs whose strings all start at byte 0 of a megabyte with no NUL
    /// until its end. Each look-up scanned the whole table for the NUL.
    @Test("strg look-ups do not scan the table for each ID")
    func hostileStrings() {
        let count = 50_000
        let ids = (0..<count).map { StringID(stringID: UInt32($0), startByteOffset: Int64($0 % 7)) }
        let chunk = StringsChunk(ids: ids, stringData: [UInt8](repeating: 0x61, count: 1 << 20))
        let lookup = chunk.lookup()
        var found = 0
        for id in 0..<UInt32(count) where lookup.string(for: id) != nil { found += 1 }
        #expect(found == 0)
        var terminated = chunk
        terminated.stringData.append(0)
        #expect(terminated.lookup().string(for: 3)?.utf8.count == (1 << 20) - 3)
        #expect(terminated.string(for: 3) == terminated.lookup().string(for: 3))
    }
}

import BinaryIO
@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

#if canImport(Glibc)
    import Glibc
#endif

/// The manifest parser against hostile and huge files, and the manifest's merge of concurrent runs.
@Suite("manifest format: hostile records, streaming, budgets, merges")
struct ManifestFormatTests {
    func line(_ output: [UInt8]) -> [UInt8] {
        output + Array("\t/src/a.wav\t10\t20\tv1\t30\t40\tLEI16\tLEI16\t5\n".utf8)
    }

    func sealed(_ lines: [[UInt8]]) -> [UInt8] {
        let body = Array("cafconv-manifest 2\n".utf8) + lines.flatMap { $0 }
        return body + Array(ManifestFormat.seal(body).utf8)
    }

    @Test("item 1: output paths with a NUL byte, '..', '.', empty components or a leading '/' are damaged records")
    func hostileKeys() {
        let hostile: [[UInt8]] = [
            Array("keep.wav".utf8) + [0] + Array(".caf".utf8), Array("../x.caf".utf8), Array("a/../../x.caf".utf8),
            Array("/etc/x.caf".utf8), Array("a//x.caf".utf8), Array("./x.caf".utf8), Array("a/".utf8), [],
            Array("..".utf8),
        ]
        let good = Array("sub/ok.caf".utf8)
        var parser = ManifestFormat.Parser()
        parser.feed(sealed(hostile.map(line) + [line(good)]))
        #expect(parser.damagedLines == hostile.count)
        let (seal, records) = parser.finish()
        #expect(seal == .sealed)
        #expect(records.map(\.output) == ["sub/ok.caf"])
        // A NUL in the source field is refused too.
        let nulSource = Array("a.caf\t/src/a".utf8) + [0] + Array(".wav\t10\t20\tv1\t30\t40\tLEI16\tLEI16\t5\n".utf8)
        #expect(ManifestFormat.parse(sealed([nulSource])).records.isEmpty)
    }

    @Test("item 8: a foreign file is judged on its first line: nothing past it is read")
    func foreignStopsEarly() {
        var parser = ManifestFormat.Parser()
        var fed = 0
        let garbage = [UInt8](repeating: 0x41, count: 1 << 20)
        for byte in garbage {
            if parser.isDone { break }
            parser.feed([byte])
            fed += 1
        }
        #expect(fed <= ManifestFormat.header.utf8.count + 1)
        #expect(parser.finish().seal == .foreign)
        #expect(ManifestFormat.parse(Array("cafconv-manifest 4\nx\n".utf8)).seal == .foreign)
    }

    @Test("a manifest cut short inside its header line (or empty) is damaged, not foreign: the next run replaces it")
    func cutInHeader() {
        for text in ["", "caf", "cafconv-manifest", "cafconv-manifest 3", "cafconv-manifest 2", "cafconv-manifest 1"] {
            #expect(ManifestFormat.parse(Array(text.utf8)).seal == .damaged, "\(text)")
        }
        #expect(ManifestFormat.parse(Array("cafconv-manifesto".utf8)).seal == .foreign)
        #expect(ManifestFormat.parse(Array("hello".utf8)).seal == .foreign)
    }

    @Test("item 8: a huge line is one damaged record, held within the line budget; the next line still counts")
    func hugeLine() {
        let huge = [UInt8](repeating: 0x61, count: 4 * ManifestFormat.maximumLineLength) + [0x0A]
        var parser = ManifestFormat.Parser()
        parser.feed(sealed([huge, line(Array("ok.caf".utf8))]))
        #expect(parser.damagedLines == 1)
        let (seal, records) = parser.finish()
        #expect(seal == .sealed && records.count == 1)
    }

    @Test("item 8: past the size budget the rest is not read and the manifest counts as damaged")
    func sizeBudget() {
        let bytes = sealed((0..<100).map { line(Array("f\($0).caf".utf8)) })
        var parser = ManifestFormat.Parser(limit: UInt64(bytes.count / 2))
        parser.feed(bytes)
        #expect(parser.isDone)
        let (seal, records) = parser.finish()
        #expect(seal == .damaged && records.count < 100)
        #expect(ManifestFormat.parse(bytes).seal == .sealed)

        var counted = ManifestFormat.Parser(recordLimit: 10)
        counted.feed(bytes)
        #expect(counted.isDone)
        let (countedSeal, kept) = counted.finish()
        #expect(countedSeal == .damaged && kept.count == 10)
    }

    @Test("records round-trip, names that are not UTF-8 included")
    func roundTrip() {
        let record = ManifestFormat.Record(
            output: PathBytes.decode(Array("d\u{09}ir/".utf8) + [0xFF] + Array("\\.caf".utf8)),
            source: PathBytes.decode(Array("/s/".utf8) + [0xFE, 0x0A]), sourceSize: 1, sourceModified: -2,
            fingerprint: "v1 LEI16", outputSize: 3, outputModified: 4, formatIn: "LEI16", formatOut: "LEF32", frames: 5)
        let parsed = ManifestFormat.parse(sealed([ManifestFormat.line(record)]))
        #expect(parsed.seal == .sealed)
        #expect(parsed.records.count == 1)
        #expect(parsed.records.first.map { PathBytes.encode($0.output) } == PathBytes.encode(record.output))
        #expect(parsed.records.first.map { PathBytes.encode($0.source) } == PathBytes.encode(record.source))
    }

    @Test("lines are pinned byte for byte: escapes, bytes that are not UTF-8, signs; sorted by the key's UTF-8")
    func pinnedBytes() throws {
        let record = ManifestFormat.Record(
            output: PathBytes.decode(Array("d\u{09}ir/".utf8) + [0xFF] + Array("\\\r.caf".utf8)),
            source: PathBytes.decode(Array("/s/".utf8) + [0xFE, 0x0A]), sourceSize: 0, sourceModified: -2,
            fingerprint: "v1 LEI16", outputSize: UInt64.max, outputModified: Int64.min, formatIn: "LEI16",
            formatOut: "LEF32", frames: 5)
        let expected =
            Array("d\\tir/".utf8) + [0xFF] + Array("\\\\\\r.caf\t/s/".utf8) + [0xFE]
            + Array("\\n\t0\t-2\tv1 LEI16\t18446744073709551615\t-9223372036854775808\tLEI16\tLEF32\t5\n".utf8)
        #expect(ManifestFormat.line(record) == expected)
        let parsed = try #require(ManifestFormat.parse(sealed([expected])).records.first)
        #expect(ManifestFormat.line(parsed) == expected)
        #expect(PathBytes.encode(parsed.output) == PathBytes.encode(record.output))

        // The file: header, lines sorted by the UTF-8 of the key as a String (a byte that is not
        // UTF-8 sorts after every letter), then the end line over all of it.
        let folder = TempDirectory()
        var manifest = Manifest(folder: folder.path)
        let stamp = FileSystem.Stamp(size: 1, modified: 2)
        for key in [PathKey(PathBytes.decode([0xFF, 0x2E])), PathKey("\u{E9}.caf"), PathKey("z.caf"), PathKey("a b.caf")] {
            manifest.record(
                key,
                Manifest.Entry(
                    source: "/s", sourceStamp: stamp, fingerprint: "v", outputStamp: stamp, formatIn: "A", formatOut: "B",
                    frames: 3))
        }
        let tail = Array("\t/s\t1\t2\tv\t1\t2\tA\tB\t3\n".utf8)
        let body =
            Array("cafconv-manifest 3\n".utf8) + Array("a b.caf".utf8) + tail + Array("z.caf".utf8) + tail
            + Array("\u{E9}.caf".utf8) + tail + [0xFF, 0x2E] + tail
        #expect(manifest.encoded() == body + Array(ManifestFormat.seal(body).utf8))
        #expect(ManifestFormat.seal(Array("x".utf8)) == "end af63f54c86021707\n")
    }

    @Test("a lazy load (a few wanted keys, the rest kept as bytes) saves exactly what a full load saves")
    func lazyEqualsFull() throws {
        let folder = TempDirectory()
        func record(_ output: [UInt8], _ numbers: String = "10\t20\tv1\t30\t40\tLEI16\tLEI16\t5") -> [UInt8] {
            output + Array("\t/src/a.wav\t\(numbers)\n".utf8)
        }
        // Sorted as PathKey sorts them; some lines are not as the encoder writes them.
        let lines: [[UInt8]] = [
            record(Array("a.caf".utf8)), record(Array("b.caf".utf8), "+10\t20\tv1\t30\t40\tLEI16\tLEI16\t5"),
            record(Array("c.caf".utf8), "10\t020\tv1\t30\t40\tLEI16\tLEI16\t5"),
            record(Array("d.caf".utf8), "10\t-0\tv1\t30\t40\tLEI16\tLEI16\t5"),
            record(Array("e.caf".utf8), "10\t20\tv\\q1\t30\t40\tLEI16\tLEI16\t5"), record(Array("m\\tn.caf".utf8)),
            record(Array("sub/x.caf".utf8)), record(Array("z.caf".utf8), "10\t-20\tv1\t30\t40\tLEI16\tLEI16\t-5"),
            record(Array("\u{E9}.caf".utf8)), record([0xFF, 0x2E, 0x63]),
        ]
        let entry = Manifest.Entry(
            source: "/src/new.wav", sourceStamp: FileSystem.Stamp(size: 1, modified: 2), fingerprint: "v2",
            outputStamp: FileSystem.Stamp(size: 3, modified: 4), formatIn: "LEI16", formatOut: "LEI16", frames: 6)
        for file in [lines, lines.reversed() + [lines[0]]] {
            writeFile(folder.file(".cafconv-manifest"), sealed(file))
            for name in ["a.caf", "b.caf", "0.caf", "n.caf", "sub/x.caf", "zz.caf", "\u{E9}.caf"] {
                var full = Manifest.load(folder: folder.path)
                var lazy = Manifest.load(folder: folder.path, wanted: [PathKey(name)])
                #expect(lazy.entries[PathKey(name)] == full.entries[PathKey(name)], "\(name)")
                #expect(lazy.count == full.count)
                #expect(lazy.encoded() == full.encoded(), "\(name)")
                full.record(PathKey(name), entry)
                lazy.record(PathKey(name), entry)
                #expect(lazy.encoded() == full.encoded(), "\(name)")
                // Sorted files keep the lines that need no decoding as bytes; others are read whole.
                #expect((lazy.rawCount > 0) == (file == lines), "\(name)")
                // Recording a key that was not wanted decodes everything first.
                full.record(PathKey("q.caf"), entry)
                lazy.record(PathKey("q.caf"), entry)
                #expect(lazy.rawCount == 0 && lazy.encoded() == full.encoded(), "\(name)")
            }
        }
        // Two lazy runs saving one after the other keep each other's records and the rest.
        writeFile(folder.file(".cafconv-manifest"), sealed(lines))
        folder.write("a.caf", [1])
        folder.write("n.caf", [2])
        var first = Manifest.load(folder: folder.path, wanted: [PathKey("a.caf")])
        var second = Manifest.load(folder: folder.path, wanted: [PathKey("n.caf")])
        var stamped = entry
        stamped.outputStamp = try #require(FileSystem.stamp(of: folder.file("a.caf")))
        first.record(PathKey("a.caf"), stamped)
        stamped.outputStamp = try #require(FileSystem.stamp(of: folder.file("n.caf")))
        second.record(PathKey("n.caf"), stamped)
        try first.save()
        try second.save()
        let merged = Manifest.load(folder: folder.path)
        #expect(merged.origin == .sealed && merged.count == lines.count + 1)
        #expect(merged.entries[PathKey("a.caf")]?.source == "/src/new.wav")
        #expect(merged.entries[PathKey("n.caf")]?.source == "/src/new.wav")
    }

    @Test("a lazy run that merges another run's save writes the same file as a full run, without decoding everything")
    func lazyMergeEqualsFull() throws {
        let folder = TempDirectory()
        let names = ["a", "b", "c", "d", "e", "f"]
        func entry(_ name: String, source: String = "/src/old.wav") -> Manifest.Entry {
            Manifest.Entry(
                source: source, sourceStamp: FileSystem.Stamp(size: 1, modified: 1), fingerprint: "v",
                outputStamp: FileSystem.stamp(of: folder.file(name + ".caf")) ?? FileSystem.Stamp(size: 0, modified: 0),
                formatIn: "LEI16", formatOut: "LEI16", frames: 1)
        }
        var results: [[UInt8]] = []
        for lazy in [false, true] {
            unlink(folder.file(".cafconv-manifest"))
            // Fixed times, so that both rounds record the same stamps.
            func write(_ name: String, _ bytes: [UInt8], at seconds: Int) {
                folder.write(name, bytes)
                var times = [timespec(tv_sec: seconds, tv_nsec: 5), timespec(tv_sec: seconds, tv_nsec: 5)]
                _ = utimensat(AT_FDCWD, folder.file(name), &times, 0)
            }
            for name in names + ["g", "x"] { write("\(name).caf", Array(name.utf8), at: 1_000_000) }
            var start = Manifest(folder: folder.path)
            for name in names { start.record(PathKey(name + ".caf"), entry(name)) }
            try start.save()
            // This run converts x.caf, decoding only its record or everything.
            var ours = lazy ? Manifest.load(folder: folder.path, wanted: [PathKey("x.caf")]) : Manifest.load(folder: folder.path)
            #expect((ours.rawCount > 0) == lazy)
            // Another run saves meanwhile: adds g, rewrites and re-records b (only its record matches
            // the file now), records d with a stamp that does not match its file (the original does,
            // so ours wins), forgets c.
            var other = Manifest.load(folder: folder.path)
            other.record(PathKey("g.caf"), entry("g"))
            write("b.caf", [9, 9, 9], at: 2_000_000)
            other.record(PathKey("b.caf"), entry("b", source: "/src/new-b.wav"))
            var stale = entry("d", source: "/src/new-d.wav")
            stale.outputStamp.size += 1
            other.record(PathKey("d.caf"), stale)
            other.forget(PathKey("c.caf"))
            try other.save()
            ours.record(PathKey("x.caf"), entry("x", source: "/src/x.wav"))
            try ours.save()
            #expect((ours.rawCount > 0) == lazy, "the lazy merge kept the other lines as bytes")
            results.append(readFile(folder.file(".cafconv-manifest")) ?? [])
        }
        #expect(results[0] == results[1])
        let merged = Manifest.load(folder: folder.path)
        #expect(merged.origin == .sealed)
        #expect(merged.entries[PathKey("b.caf")]?.source == "/src/new-b.wav")
        #expect(merged.entries[PathKey("d.caf")]?.source == "/src/old.wav")
        #expect(merged.entries[PathKey("g.caf")] != nil && merged.entries[PathKey("x.caf")]?.source == "/src/x.wav")
    }

    @Test("word-at-a-time searches agree with a byte loop (neighbours that differ by one, high bytes, every length)")
    func wordSearches() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x5B, 0x5C, 0x5D, 0x41, 0x80, 0xFF, 0x00, 0x01]
        for _ in 0..<3000 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            let from = Int.random(in: 0...count, using: &generator)
            bytes.withUnsafeBufferPointer { buffer in
                for target: UInt8 in [0x09, 0x0A] {
                    let expected = bytes[from...].firstIndex(of: target) ?? count
                    let found = buffer.baseAddress.map { ManifestFormat.find(target, in: $0, from: from, to: count) } ?? count
                    #expect(found == expected, "\(bytes) from \(from)")
                }
                for highBit in [false, true] {
                    let expected = bytes.contains { $0 == 0x5C || $0 == 0x0D || (highBit && $0 >= 0x80) }
                    #expect(ManifestFormat.holdsSpecial(buffer, highBit: highBit) == expected, "\(bytes)")
                }
            }
        }
    }

    @Test("numbers are read as Swift's integer initialisers read them, without making strings")
    func numbers() {
        let texts = [
            "0", "5", "+5", "-5", "-0", "-", "+", "", "0009", "1a", " 1", "1 ", "9223372036854775807",
            "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
            "18446744073709551616", "99999999999999999999", "1795492837877516087", "+-1",
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            let signed: Int64? = bytes.withUnsafeBufferPointer { ManifestFormat.integer($0) }
            let unsigned: UInt64? = bytes.withUnsafeBufferPointer { ManifestFormat.integer($0) }
            #expect(signed == Int64(text), "\(text)")
            #expect(unsigned == UInt64(text), "\(text)")
        }
    }

    @Test("item 12: NFC and NFD spellings are two keys")
    func normalisation() {
        #expect(PathKey("caf\u{E9}.caf") != PathKey("cafe\u{301}.caf"))
        #expect(Set([PathKey("caf\u{E9}.caf"), PathKey("cafe\u{301}.caf")]).count == 2)
    }

    @Test("item 11: two runs that saved one after the other both keep their records")
    func mergeOfConcurrentSaves() throws {
        let folder = TempDirectory()
        folder.write("a.caf", [1])
        folder.write("b.caf", [2, 2])
        func entry(_ name: String) -> Manifest.Entry {
            Manifest.Entry(
                source: "/src/\(name).wav", sourceStamp: FileSystem.Stamp(size: 1, modified: 1), fingerprint: "v",
                outputStamp: FileSystem.stamp(of: folder.file(name + ".caf")) ?? FileSystem.Stamp(size: 0, modified: 0),
                formatIn: "LEI16", formatOut: "LEI16", frames: 1)
        }
        var first = Manifest.load(folder: folder.path)
        var second = Manifest.load(folder: folder.path)
        first.record(PathKey("a.caf"), entry("a"))
        second.record(PathKey("b.caf"), entry("b"))
        try first.save()
        try second.save()
        let merged = Manifest.load(folder: folder.path)
        #expect(merged.origin == .sealed)
        #expect(Set(merged.entries.keys.map(\.text)) == ["a.caf", "b.caf"])

        // Both recorded a.caf; the second run's file was replaced by the first's afterwards: the
        // record that matches the file wins, whoever saves last.
        var third = Manifest.load(folder: folder.path)
        var stale = entry("a")
        stale.outputStamp.size += 100
        third.record(PathKey("a.caf"), stale)
        folder.write("x", [0])  // any change to the manifest file makes the next save merge
        var fourth = Manifest.load(folder: folder.path)
        fourth.record(PathKey("b.caf"), entry("b"))
        try fourth.save()
        try third.save()
        #expect(Manifest.load(folder: folder.path).entries[PathKey("a.caf")]?.outputStamp == entry("a").outputStamp)
    }

    @Test("item 7: periodic saves wait until a fifth of the manifest is new (or a slow run's time is up)")
    func savePacing() {
        let now = FileSystem.now()
        let folder = TempDirectory()
        var manifest = Manifest(folder: folder.path)
        let stamp = FileSystem.Stamp(size: 1, modified: 1)
        for index in 0..<1000 {
            manifest.record(
                PathKey("f\(index).caf"),
                Manifest.Entry(
                    source: "/s", sourceStamp: stamp, fingerprint: "v", outputStamp: stamp, formatIn: "", formatOut: "",
                    frames: 0))
        }
        var state = RunState(manifests: ["x": manifest], dirty: ["x"], lastSave: now - 200_000_000)
        state.changes = 150  // 15% of the manifest is new: not yet
        state.saveIfDue()
        #expect(state.lastSave == now - 200_000_000, "saved after 150 new records of 1000")
        state.changes = 200  // 20%: due
        state.saveIfDue()
        #expect(state.lastSave > now - 200_000_000)
        #expect(state.changes == 0 && exists(folder.file(".cafconv-manifest")))
    }
}

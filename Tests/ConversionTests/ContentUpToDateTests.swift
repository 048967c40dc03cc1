import BinaryIO
import ContentHash
@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
import TestSupport
import Testing

@testable import Conversion

#if canImport(Glibc)
    import Glibc
#endif

/// Sets a file's access and modification times to `seconds` since the epoch (its change time
/// becomes now, as a checkout's or a copy's does).
func setTimes(_ path: String, seconds: Int) {
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    _ = utimensat(AT_FDCWD, path, &times, 0)
}

/// The modification time of `path` in nanoseconds.
func modified(_ path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
}

/// Issue 34, item 1: up to date by content. Size and times are the fast path; when they differ
/// the recorded digests decide.
@Suite("up to date by content: fresh checkouts, copied gathers, edits and tampering")
struct ContentUpToDateTests {
    static let digests = ContentHash.unavailable == nil
    let options = ConversionOptions(jobs: 2)

    @Test(
        "a fresh checkout (every source touched) is a no-op; the records take the new times",
        .enabled(if: digests, "libxxhash.so.0 is not installed"))
    func touchedSources() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let input = folder.file("in")
        let output = folder.file("out")
        #expect(Engine.convert(inputs: [input], output: output, options: options).totals.converted == 6)
        let outputs = tree(output).filter { $0 != ".cafconv-manifest" }
        let before = outputs.map { stamp(folder.file("out/" + $0)) }
        for name in tree(input) { setTimes(folder.file("in/" + name), seconds: 1_900_000_000) }
        let manifest = readFile(folder.file("out/.cafconv-manifest"))
        let again = Engine.convert(inputs: [input], output: output, options: options)
        #expect(again.totals.upToDate == 6 && again.totals.converted == 0)
        // No output was written; the manifest was (its records now hold the new times)...
        #expect(outputs.map { stamp(folder.file("out/" + $0)) } == before)
        #expect(readFile(folder.file("out/.cafconv-manifest")) != manifest)
        // ...so the next run takes the fast path and leaves even the manifest alone.
        let refreshed = readFile(folder.file("out/.cafconv-manifest"))
        #expect(Engine.convert(inputs: [input], output: output, options: options).totals.upToDate == 6)
        #expect(readFile(folder.file("out/.cafconv-manifest")) == refreshed)
    }

    @Test(
        "an output folder copied plainly (new times on every output) is a no-op, --check included",
        .enabled(if: digests, "libxxhash.so.0 is not installed"))
    func copiedOutputs() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let input = folder.file("in")
        _ = Engine.convert(inputs: [input], output: folder.file("out"), options: options)
        _ = try run("/bin/cp", ["-r", folder.file("out"), folder.file("copy")])
        #expect(modified(folder.file("copy/f1.caf")) != modified(folder.file("out/f1.caf")))
        let check = Engine.convert(
            inputs: [input], output: folder.file("copy"), options: ConversionOptions(jobs: 2, dryRun: true))
        #expect(check.totals.upToDate == 6 && check.isCurrent)
        let again = Engine.convert(inputs: [input], output: folder.file("copy"), options: options)
        #expect(again.totals.upToDate == 6 && again.totals.converted == 0)
    }

    @Test(
        "an edited source of the same size whose modification time was put back is converted again",
        .enabled(if: digests, "libxxhash.so.0 is not installed"))
    func editedSameSizeSameTime() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let input = folder.file("in")
        let output = folder.file("out")
        _ = Engine.convert(inputs: [input], output: output, options: options)
        let time = try #require(modified(folder.file("in/f1.wav")))
        folder.write("in/f1.wav", WAVFixture.signal(.int16, channels: 2, frames: 500, seed: 99).bytes)
        var times = [timespec(tv_sec: Int(time / 1_000_000_000), tv_nsec: Int(time % 1_000_000_000))]
        times.append(times[0])
        _ = utimensat(AT_FDCWD, folder.file("in/f1.wav"), &times, 0)
        #expect(modified(folder.file("in/f1.wav")) == time)
        let again = Engine.convert(inputs: [input], output: output, options: options)
        let f1 = again.files.first { $0.output == folder.file("out/f1.caf") }
        #expect(f1?.status == .converted)
        #expect(again.totals.upToDate == 5)
    }

    @Test(
        "a tampered output of the same size is converted again, also after its times were put back",
        .enabled(if: digests, "libxxhash.so.0 is not installed"))
    func tamperedOutput() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let input = folder.file("in")
        let output = folder.file("out")
        _ = Engine.convert(inputs: [input], output: output, options: options)
        let path = folder.file("out/f2.caf")
        var bytes = try #require(readFile(path))
        let time = try #require(modified(path))
        bytes[bytes.count - 3] ^= 0x40
        writeFile(path, bytes)
        var times = [timespec(tv_sec: Int(time / 1_000_000_000), tv_nsec: Int(time % 1_000_000_000))]
        times.append(times[0])
        _ = utimensat(AT_FDCWD, path, &times, 0)
        let again = Engine.convert(inputs: [input], output: output, options: options)
        let f2 = again.files.first { $0.output == path }
        #expect(f2?.status == .converted)
        #expect(again.totals.upToDate == 5)
    }

    @Test(
        "a version 2 manifest is read: its outputs stay up to date, and it is rewritten with digests",
        .enabled(if: digests, "libxxhash.so.0 is not installed"))
    func migratesVersion2() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let input = folder.file("in")
        let output = folder.file("out")
        _ = Engine.convert(inputs: [input], output: output, options: options)
        // The same records as version 2 wrote them: ten fields, the old header.
        let path = folder.file("out/.cafconv-manifest")
        let text = String(decoding: try #require(readFile(path)), as: UTF8.self)
        var lines = text.split(separator: "\n").dropLast().map(String.init)
        #expect(lines.first == "cafconv-manifest 3")
        lines[0] = "cafconv-manifest 2"
        for index in lines.indices.dropFirst() {
            lines[index] = lines[index].split(separator: "\t", omittingEmptySubsequences: false).prefix(10).joined(
                separator: "\t")
        }
        let body = Array((lines.joined(separator: "\n") + "\n").utf8)
        writeFile(path, body + Array(ManifestFormat.seal(body).utf8))
        let migrated = Engine.convert(inputs: [input], output: output, options: options)
        #expect(migrated.totals.upToDate == 6 && migrated.totals.converted == 0)
        let rewritten = String(decoding: try #require(readFile(path)), as: UTF8.self)
        #expect(rewritten.hasPrefix("cafconv-manifest 3\n"))
        #expect(rewritten.split(separator: "\n").dropFirst().dropLast().allSatisfy { $0.contains("\txxh3:") })
        // And a fresh checkout after the migration is a no-op too.
        for name in tree(input) { setTimes(folder.file("in/" + name), seconds: 1_900_000_000) }
        #expect(Engine.convert(inputs: [input], output: output, options: options).totals.upToDate == 6)
    }
}

@Suite("manifest format version 3: content fields")
struct ManifestContentFieldTests {
    let tail10 = "\t/src/a.wav\t10\t20\tv1\t30\t40\tLEI16\tLEI16\t5"

    func sealed(_ lines: [String], header: String = "cafconv-manifest 3") -> [UInt8] {
        let body = Array((header + "\n" + lines.map { $0 + "\n" }.joined()).utf8)
        return body + Array(ManifestFormat.seal(body).utf8)
    }

    @Test("fourteen fields round-trip byte for byte; ten-field records read as records without content")
    func roundTrip() throws {
        let digest = "xxh3:0123456789abcdef0123456789abcdef"
        let line14 = "a.caf" + tail10 + "\t-7\t\(digest)\t8\t"
        let parsed = ManifestFormat.parse(sealed([line14, "b.caf" + tail10]))
        #expect(parsed.seal == .sealed && parsed.records.count == 2)
        let first = try #require(parsed.records.first)
        #expect(first.sourceChanged == -7 && first.sourceDigest == digest && first.outputChanged == 8)
        #expect(first.outputDigest == "")
        #expect(ManifestFormat.line(first) == Array((line14 + "\n").utf8))
        let second = try #require(parsed.records.last)
        #expect(second.sourceChanged == nil && ManifestFormat.line(second) == Array(("b.caf" + tail10 + "\n").utf8))
        let entry = Manifest.Entry(first)
        #expect(entry.sourceContent?.digest?.text == digest && entry.outputContent?.digest == nil)
        // Version 2 files are read.
        #expect(ManifestFormat.parse(sealed(["b.caf" + tail10], header: "cafconv-manifest 2")).records.count == 1)
    }

    @Test("eleven to thirteen fields, an unplain or overlong digest, or a bad change time are damaged lines")
    func damaged() {
        let hostile = [
            "a.caf" + tail10 + "\t1", "a.caf" + tail10 + "\t1\txxh3:00", "a.caf" + tail10 + "\t1\txxh3:00\t2",
            "a.caf" + tail10 + "\t1\tXXH3:00\t2\t", "a.caf" + tail10 + "\t1\tx y\t2\t",
            "a.caf" + tail10 + "\t1\t" + String(repeating: "a", count: 81) + "\t2\t",
            "a.caf" + tail10 + "\tone\t\t2\t", "a.caf" + tail10 + "\t1\t\t2\t\textra",
        ]
        var parser = ManifestFormat.Parser()
        parser.feed(sealed(hostile))
        #expect(parser.damagedLines == hostile.count)
        #expect(parser.finish().records.isEmpty)
        // Lazily read (kept as bytes), the same lines are not kept.
        var lazy = ManifestFormat.Parser(wanted: [])
        lazy.feed(sealed(hostile))
        #expect(lazy.rawCount == 0)
    }
}

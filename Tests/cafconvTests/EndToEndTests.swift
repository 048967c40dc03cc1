import BinaryIO
import CAFKit
import Foundation
import TestSupport
import Testing

/// Runs the built `cafconv` binary and checks exit status, stdout, stderr and the files it leaves.
@Suite("cafconv binary, end to end")
struct EndToEndTests {
    static let good = WAVFixture.signal(.int16, channels: 2, frames: 1000).bytes

    @Test("a folder of good and bad files: exit 1, mirrored outputs for the good, nothing for the bad")
    func mixedFolder() throws {
        let folder = TempDirectory()
        folder.write("in/ok/a.wav", Self.good)
        folder.write("in/ok/deeper/b.WAV", WAVFixture.signal(.int24, channels: 1, frames: 333).bytes)
        folder.write("in/bad/text.wav", Array("not a wave file at all".utf8))
        folder.write("in/bad/empty.wav", [])
        folder.write("in/bad/truncated.wav", Array(Self.good.prefix(30)))
        folder.write("in/readme.txt", Array("ignored".utf8))
        let result = try run(RepositoryPaths.executable, ["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 1)
        for bad in ["text.wav", "empty.wav", "truncated.wav"] {
            #expect(result.stderr.contains("bad/\(bad):"), "stderr must name \(bad): \(result.stderr)")
            #expect(!exists(folder.file("out/bad/" + bad.replacingOccurrences(of: ".wav", with: ".caf"))))
        }
        #expect(result.stderr.components(separatedBy: "error:").count - 1 == 3)
        for good in ["out/ok/a.caf", "out/ok/deeper/b.caf"] {
            let bytes = try #require(readFile(folder.file(good)), "\(good) missing")
            let file = try CAFFile(reading: MemoryByteSource(bytes))
            #expect(file.audioDescription.byteOrder == .little)
            #expect(file.chunks.last?.end == file.fileLength)
        }
        #expect(!exists(folder.file("out/readme.caf")))
        #expect(result.text.contains("a.caf"))
    }

    @Test("all good: exit 0, and the default is little-endian")
    func allGood() throws {
        let folder = TempDirectory()
        let input = folder.write("kick.wav", Self.good)
        let result = try run(RepositoryPaths.executable, ["convert", input])
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try #require(readFile(folder.file("kick.caf")))
        let file = try CAFFile(reading: MemoryByteSource(bytes))
        #expect(file.audioDescription.formatFlags == AudioDescription.flagIsLittleEndian)
        #expect(readFile(input) == Self.good)
    }

    @Test("--endian big and -d BEF32 are honoured")
    func explicitOrder() throws {
        let folder = TempDirectory()
        let input = folder.write("s.wav", Self.good)
        #expect(
            try run(RepositoryPaths.executable, ["convert", "--endian", "big", input, "-o", folder.file("b.caf")]).status == 0)
        let big = try CAFFile(reading: MemoryByteSource(try #require(readFile(folder.file("b.caf")))))
        #expect(big.audioDescription.byteOrder == .big)
        #expect(try run(RepositoryPaths.executable, ["convert", "-d", "BEF32", input, "-o", folder.file("f.caf")]).status == 0)
        let float = try CAFFile(reading: MemoryByteSource(try #require(readFile(folder.file("f.caf")))))
        #expect(float.audioDescription.isFloat && float.audioDescription.byteOrder == .big)
    }

    @Test(
        "usage errors exit 64 and say why",
        arguments: [
            (["convert"], "at least one"),
            (["convert", "x.wav", "-d", "LEI16", "--endian", "big"], "little-endian samples but --endian asks for big"),
            (["convert", "x.wav", "-d", "@44100"], "give a data format before '@'"),
            (["convert", "x.wav", "-d", "LEI16@44.1k"], "the sample rate after '@'"),
            (["convert", "x.wav", "-c", "0"], "--channels must be from 1 to 1024"),
            (["convert", "x.wav", "--mix", "--no-mix"], "--mix and --no-mix cannot be used together"),
            (["convert", "x.wav", "-r", "200"], "sample-rate converter quality"),
            (["convert", "x.wav", "--dither", "rpdf"], "rpdf"),
            (["verify", "x.caf", "-d", "LEI16@22050", "--rate", "44100"], "requires 22050 Hz but --rate requires 44100"),
            (["convert", "x.wav", "-d", "UI8"], "signed"),
            (["convert", "x.wav", "--endian", "middle"], "middle"),
            (["convert", "x.wav", "-j", "0"], "--jobs must be at least 1"),
            (["convert", "x.wav", "--quiet", "--verbose"], "cannot be used together"),
        ])
    func usage(arguments: [String], phrase: String) throws {
        let result = try run(RepositoryPaths.executable, arguments)
        #expect(result.status == 64, "\(result.stderr)")
        // The reason is on the first line; the usage text after it names every option anyway.
        #expect(result.stderr.split(separator: "\n").first?.contains(phrase) == true, "\(result.stderr)")
    }

    @Test("--json prints one document with a record per input and totals")
    func json() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.good)
        folder.write("in/b.wav", Array("junk".utf8))
        let result = try run(RepositoryPaths.executable, ["convert", "--json", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let files = try #require(object["files"] as? [[String: Any]])
        let statuses = files.map { "\($0["input"] as? String ?? ""):\($0["status"] as? String ?? "")" }.sorted()
        #expect(statuses == [folder.file("in/a.wav") + ":converted", folder.file("in/b.wav") + ":failed"])
        let converted = try #require(files.first { ($0["status"] as? String) == "converted" })
        #expect(converted["formatOut"] as? String == "LEI16")
        #expect(converted["frames"] as? Int == 1000)
        let totals = try #require(object["totals"] as? [String: Any])
        #expect(totals["converted"] as? Int == 1)
        #expect(totals["failed"] as? Int == 1)
    }

    @Test("--quiet prints nothing on success")
    func quiet() throws {
        let folder = TempDirectory()
        let input = folder.write("q.wav", Self.good)
        let result = try run(RepositoryPaths.executable, ["convert", "-q", input])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.isEmpty)
    }
}

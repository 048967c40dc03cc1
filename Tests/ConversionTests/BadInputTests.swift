import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import Foundation
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

@Suite("Bad input: a clear reason, or a warning and only what is really there")
struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        /// A phrase the failure reason must contain, or `nil` when the file must convert.
        var failure: String?
        /// A phrase a warning must contain, when the file converts.
        var warning: String?
        /// Frames the output must hold, when it converts.
        var frames: Int64?
        var testDescription: String { name }
    }

    static var good: [UInt8] { WAVFixture.signal(.int16, channels: 2, frames: 100).bytes }

    static func patched(_ bytes: [UInt8], at offset: Int, _ patch: [UInt8]) -> [UInt8] {
        var copy = bytes
        copy.replaceSubrange(offset..<offset + patch.count, with: patch)
        return copy
    }

    static let cases: [Case] = {
        let good = Self.good
        let fmt16: [UInt8] = {
            var w = ByteWriter()
            w.write(UInt16(1), .little); w.write(UInt16(1), .little); w.write(UInt32(8000), .little)
            w.write(UInt32(16000), .little); w.write(UInt16(2), .little); w.write(UInt16(16), .little)
            return w.bytes
        }()
        var aiff = ByteWriter()
        aiff.write(bytes: Array("FORM".utf8)); aiff.write(UInt32(4), .big); aiff.write(bytes: Array("AIFF".utf8))
        var caf = ByteWriter()
        caf.write(bytes: Array("caff".utf8)); caf.write(UInt16(1), .big); caf.write(UInt16(0), .big)
        return [
            Case(name: "empty file", bytes: [], failure: "empty file"),
            Case(
                name: "text named .wav", bytes: Array("hello, this is not audio\n".utf8),
                failure: "not audio cafconv can read (starts with 'hell')"),
            Case(name: "truncated RIFF header", bytes: Array(good.prefix(10)), failure: "truncated RIFF header"),
            Case(name: "truncated fmt chunk", bytes: Array(good.prefix(28)), failure: "fmt"),
            Case(name: "missing fmt", bytes: WAVFixture.riff(chunks: [("data", [0, 0, 0, 0])]), failure: "no 'fmt ' chunk"),
            Case(name: "missing data", bytes: WAVFixture.riff(chunks: [("fmt ", fmt16)]), failure: "no 'data' chunk"),
            Case(name: "zero channels", bytes: patched(good, at: 22, [0, 0]), failure: "0 channels"),
            Case(name: "zero sample rate", bytes: patched(good, at: 24, [0, 0, 0, 0]), failure: "sample rate of 0"),
            Case(name: "zero bits", bytes: patched(good, at: 34, [0, 0]), failure: "0 bits"),
            // Recognised by content, not by name: read as the AIFF and CAF they are (and broken).
            Case(name: "AIFF named .wav", bytes: aiff.bytes, failure: "no 'COMM' chunk"),
            Case(name: "CAF named .wav", bytes: caf.bytes, failure: "not a readable CAF file"),
            Case(
                name: "data shorter than declared", bytes: Array(good.prefix(good.count - 40)),
                warning: "declares 400 bytes but only 360 remain", frames: 90),
            Case(
                name: "0xFFFFFFFF data and RIFF sizes",
                bytes: patched(patched(good, at: 4, [0xFF, 0xFF, 0xFF, 0xFF]), at: 40, [0xFF, 0xFF, 0xFF, 0xFF]),
                warning: "0xFFFFFFFF", frames: 100),
            Case(
                name: "partial last frame", bytes: Array(good.prefix(good.count - 1)),
                warning: "not a whole number", frames: 99),
        ]
    }()

    @Test(arguments: cases)
    func badInput(_ item: Case) throws {
        let folder = TempDirectory()
        let input = folder.write("bad.wav", item.bytes)
        let output = folder.file("bad.caf")
        let report = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 1))
        let result = try #require(report.files.first)
        #expect(readFile(input) == item.bytes, "the input must never change")
        // Hidden files other than the state file of incremental runs would be leftover temporaries.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasPrefix(".") && $0 != ".cafconv-manifest"
        }
        #expect(leftovers.isEmpty, "temporary files left behind: \(leftovers)")
        if let failure = item.failure {
            #expect(result.status == .failed)
            #expect(result.reason?.contains(failure) == true, "reason: \(result.reason ?? "nil")")
            #expect(!exists(output), "a failed job must leave nothing at the output path")
            #expect(!report.succeeded)
        } else {
            #expect(result.status == .converted, "\(result.reason ?? "")")
            if let warning = item.warning {
                #expect(result.warnings.contains { $0.message.contains(warning) }, "warnings: \(result.warnings)")
            }
            let bytes = try #require(readFile(output))
            let file = try CAFFile(reading: MemoryByteSource(bytes))
            expectCleanLayout(file)
            #expect(file.linearPCMFrames.map(Int64.init) == item.frames)
            #expect(result.frames == item.frames)
        }
    }

    @Test("an output path equal to the input path is refused")
    func outputIsInput() throws {
        let folder = TempDirectory()
        let input = folder.write("sound.caf", Self.good)
        let report = Engine.convert(inputs: [input], output: nil, options: ConversionOptions(jobs: 1))
        #expect(report.files.first?.status == .failed)
        #expect(report.files.first?.error == .output(.outputIsSource))
        #expect(readFile(input) == Self.good)
        let explicit = Engine.convert(inputs: [input], output: input, options: ConversionOptions(jobs: 1))
        #expect(explicit.files.first?.status == .failed)
        #expect(readFile(input) == Self.good)
    }

    @Test("a failing file does not stop the batch")
    func batchGoesOn() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.good)
        folder.write("in/b.wav", Array("not audio".utf8))
        folder.write("in/sub/c.wav", Self.good)
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 2))
        #expect(report.totals.converted == 2)
        #expect(report.totals.failed == 1)
        #expect(exists(folder.file("out/a.caf")))
        #expect(exists(folder.file("out/sub/c.caf")))
        #expect(!exists(folder.file("out/b.caf")))
    }
}

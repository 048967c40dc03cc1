import BinaryIO
import CAFKit
import Foundation
import TestSupport
import Testing

/// `cafconv afconvert` and the executable invoked as `afconvert`: afconvert's command lines from
/// Mac build scripts, run unchanged (issue 32).
@Suite("afconvert front end, end to end")
struct AFConvertEndToEndTests {
    /// The CAF at `path`, read by CAFKit.
    static func caf(_ path: String) throws -> CAFFile {
        try CAFFile(reading: MemoryByteSource(try #require(readFile(path))))
    }

    /// The 16-bit little-endian samples of a linear PCM CAF, interleaved.
    static func samples16(_ path: String) throws -> [Int16] {
        let bytes = try #require(readFile(path))
        let file = try caf(path)
        let start = try #require(Int(exactly: file.audioOffset))
        let count = try #require(Int(exactly: file.audioBytes))
        let data = bytes[start..<(start + count)]
        return stride(from: data.startIndex, to: data.endIndex - 1, by: 2).map {
            Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
        }
    }

    @Test("afconvert's positional output file: -f caff -d LEI16@22050 -c 1 in.wav out.caf writes out.caf only")
    func positionalOutput() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 44100).bytes)
        let output = folder.file("out.caf")
        let result = try run(
            RepositoryPaths.executable, ["afconvert", "-f", "caff", "-d", "LEI16@22050", "-c", "1", input, output])
        #expect(result.status == 0, "\(result.stderr)")
        // afconvert is silent on success.
        #expect(result.text.isEmpty && result.stderr.isEmpty, "\(result.text)\(result.stderr)")
        let file = try Self.caf(output)
        #expect(file.audioDescription.sampleRate == 22050)
        #expect(file.audioDescription.channelsPerFrame == 1)
        #expect(file.linearPCMFrames == 22050)
        #expect(!exists(folder.file("in.caf")))
        // Options after the files, and -o, as afconvert takes them; an existing output is replaced.
        let again = try run(RepositoryPaths.executable, ["afconvert", input, "-o", output, "-d", "BEI16"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.caf(output).audioDescription.byteOrder == .big)
    }

    @Test("a single-file afconvert run leaves no .cafconv-manifest")
    func noManifest() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 1000).bytes)
        let result = try run(
            RepositoryPaths.executable, ["afconvert", "-f", "caff", "-d", "LEI16", input, folder.file("out.caf")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(exists(folder.file("out.caf")))
        #expect(!exists(folder.file(".cafconv-manifest")))
        // Without an output file: the input's name with .caf, beside it, and still no manifest.
        let beside = try run(RepositoryPaths.executable, ["afconvert", "-d", "LEI16", input])
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(exists(folder.file("in.caf")))
        #expect(!exists(folder.file(".cafconv-manifest")))
    }

    @Test("-c 1 on a stereo source keeps channel 1 as afconvert does; --mix mixes")
    func channelReduction() throws {
        let folder = TempDirectory()
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 4000)
        let input = folder.write("in.wav", fixture.bytes)
        let left = stride(from: 0, to: fixture.integers.count, by: 2).map { Int16(truncatingIfNeeded: fixture.integers[$0]) }
        let kept = folder.file("kept.caf")
        let keep = try run(RepositoryPaths.executable, ["afconvert", "-d", "LEI16", "-c", "1", input, kept])
        #expect(keep.status == 0, "\(keep.stderr)")
        #expect(try Self.samples16(kept) == left)
        let mixed = folder.file("mixed.caf")
        let mix = try run(RepositoryPaths.executable, ["afconvert", "-d", "LEI16", "-c", "1", "--mix", input, mixed])
        #expect(mix.status == 0, "\(mix.stderr)")
        let samples = try Self.samples16(mixed)
        #expect(samples.count == left.count)
        #expect(samples != left)
    }

    @Test("-q is afconvert's codec quality (0-127, accepted), never --quiet")
    func codecQuality() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 1000).bytes)
        let output = folder.file("out.caf")
        let result = try run(RepositoryPaths.executable, ["afconvert", "-q", "127", "-d", "LEI16", input, output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(exists(output))
        #expect(!exists(folder.file("127")))
        let verbose = try run(RepositoryPaths.executable, ["afconvert", "-v", "-q", "127", "-d", "LEI16", input, output])
        #expect(verbose.stderr.contains("-q 127 changes nothing"), "\(verbose.stderr)")
        let wrong = try run(RepositoryPaths.executable, ["afconvert", "-q", "200", input, output])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("-q 200"), "\(wrong.stderr)")
    }

    @Test(
        "afconvert options cafconv does not have are refused by name with the reason",
        arguments: [
            (["-l", "MPEG_5_1_A"], "-l MPEG_5_1_A: only Mono and Stereo"),
            (["-l", "Mono", "-l", "Stereo"], "-l given twice"),
            (["-l", "Mono", "-c", "2"], "-l names 1 channels and -c 2"),
            (["-u", "pgcm", "2"], "afconvert's -u pgcm is not supported"),
            (["-u", "vbrq", "loud"], "-q loud: codec quality is a number"),
            (["--soundcheck-generate"], "afconvert's --soundcheck-generate is not supported"),
            (["-ue", "prmm", "1"], "afconvert's -ue prmm is not supported"),
            (["-hf"], "afconvert's -hf is not supported"),
            (["--prime-override", "-1", "-1"], "afconvert's --prime-override is not supported"),
            (["-s", "3"], "-s 3: only strategies 0 and 1 are supported"),
            (["-d", "aac", "-s", "2"], "-s 2: only strategies 0 and 1 are supported, both written at an average bit rate"),
            (["-f", "WAVE"], "-f WAVE: cafconv writes CAF only"),
            (["--frobnicate"], "Unknown option '--frobnicate'"),
            (["-d", "LEI16/80"], "/format_flags is not supported"),
            (["-d", "aacl"], "afconvert's 'aacl' (AAC-LD) is not supported"),
        ])
    func refused(_ extra: [String], _ message: String) throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 100).bytes)
        let output = folder.file("out.caf")
        let result = try run(RepositoryPaths.executable, ["afconvert"] + extra + [input, output])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!exists(output))
    }

    @Test(
        "-l Mono/Stereo is the channel count; -u/-ue properties with an equivalent write what their options write",
        arguments: [
            (["-l", "Mono"], ["-c", "1"]),
            (["-l", "kAudioChannelLayoutTag_Stereo", "-d", "LEI24"], ["-c", "2", "-d", "LEI24"]),
            (["-c", "1", "-l", "Mono"], ["-c", "1"]),
            (["-d", "aac", "-u", "brat", "96000"], ["-d", "aac", "-b", "96000"]),
            (["-d", "aac", "-ue", "brat", "48000"], ["-d", "aac", "-b", "48000"]),
            (["-d", "aac", "--userproperty", "'brat'", "80000"], ["-d", "aac", "-b", "80000"]),
            (["-d", "aac", "-u", "vbrq", "127", "-u", "acbf", "1"], ["-d", "aac", "-q", "127", "-s", "1"]),
            // -s 0 (Mac scripts pass it for Safari) runs, written as -s 1 with a note.
            (["-d", "aac", "-u", "acbf", "0"], ["-d", "aac", "-s", "1"]),
            (["-d", "LEI16@22050", "-u", "srcq", "20"], ["-d", "LEI16@22050", "-r", "20"]),
            (["-d", "LEI16", "-u", "cdqu", "96"], ["-d", "LEI16", "-q", "96"]),
        ])
    func layoutAndProperties(_ given: [String], _ equivalent: [String]) throws {
        let folder = TempDirectory()
        let tone = (0..<8192).flatMap { frame -> [Int32] in
            let value = Int32((sin(Double(frame) * 2 * .pi * 440 / 44100) * 16000).rounded())
            return [value, value]
        }
        let input = folder.write("in.wav", WAVFixture(encoding: .int16, channels: 2, integers: tone).bytes)
        let result = try run(RepositoryPaths.executable, ["afconvert", "-f", "caff"] + given + [input, folder.file("given.caf")])
        #expect(result.status == 0, "\(result.stderr)")
        let plain = try run(
            RepositoryPaths.executable, ["afconvert", "-f", "caff"] + equivalent + [input, folder.file("plain.caf")])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(readFile(folder.file("given.caf")) == readFile(folder.file("plain.caf")))
        let channels = equivalent.firstIndex(of: "-c").map { equivalent[$0 + 1] } ?? "2"
        #expect(try String(Self.caf(folder.file("given.caf")).audioDescription.channelsPerFrame) == channels)
    }

    @Test("an output name that is not .caf without -f is refused, naming the file (never CAF bytes under .wav)")
    func outputExtension() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let result = try run(RepositoryPaths.executable, ["afconvert", input, folder.file("alert.wav")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("alert.wav"), "\(result.stderr)")
        #expect(!exists(folder.file("alert.wav")))
    }

    @Test(
        "Apple's four-character -d spellings and --data",
        arguments: [
            (["-d", "ima4"], FourCC.ima4),
            (["-d", "ima4 "], FourCC.ima4),
            (["-d", "'aac '"], FourCC.aac),
            (["--data", "ima4"], FourCC.ima4),
            (["-d", "aac "], FourCC.aac),
            (["--data", "aac"], FourCC.aac),
            (["-d", "lpcm"], FourCC.lpcm),
        ])
    func appleSpellings(_ extra: [String], _ format: FourCC) throws {
        let folder = TempDirectory()
        // A 440 Hz tone at half scale: AAC's proof needs audio a perceptual coder keeps.
        let tone = (0..<8192).flatMap { frame -> [Int32] in
            let value = Int32((sin(Double(frame) * 2 * .pi * 440 / 44100) * 16000).rounded())
            return [value, value]
        }
        let input = folder.write("in.wav", WAVFixture(encoding: .int16, channels: 2, integers: tone).bytes)
        let output = folder.file("out.caf")
        let result = try run(RepositoryPaths.executable, ["afconvert", "-f", "caff"] + extra + [input, output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.caf(output).audioDescription.formatID == format)
    }

    @Test("the executable invoked under the name afconvert takes afconvert's command line")
    func invokedAsAFConvert() throws {
        let folder = TempDirectory()
        let link = folder.file("afconvert")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: RepositoryPaths.executable)
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 1000).bytes)
        let output = folder.file("out.caf")
        let result = try run(link, ["-f", "caff", "-d", "LEI16@22050", "-c", "1", input, output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.caf(output).audioDescription.channelsPerFrame == 1)
        let refused = try run(link, ["--soundcheck-generate", input, output])
        #expect(refused.stderr.contains("afconvert's --soundcheck-generate is not supported"), "\(refused.stderr)")
    }

    /// Runs `program` with `input` on its stdin (a file, so nothing can deadlock); returns the
    /// exit status, stdout and stderr.
    static func runPiped(_ program: String, _ arguments: [String], input: [UInt8], currentDirectory: String)
        throws -> (status: Int32, stdout: [UInt8], stderr: String)
    {
        let streams = TempDirectory()
        writeFile(streams.file("stdin"), input)
        return try BoundedProcess.run(
            program, arguments, in: streams.path, currentDirectory: currentDirectory, stdin: streams.file("stdin"))
    }

    @Test("- reads standard input and -o - writes the CAF to standard output; no file named -")
    func pipes() throws {
        let folder = TempDirectory()
        let fixture = WAVFixture.signal(.int16, channels: 2, frames: 5000)
        let reference = folder.file("reference.caf")
        let input = folder.write("in.wav", fixture.bytes)
        let made = try run(RepositoryPaths.executable, ["afconvert", "-d", "LEI16", input, reference])
        #expect(made.status == 0, "\(made.stderr)")
        // cat in.wav | afconvert -d LEI16 - out.caf
        let fromPipe = try Self.runPiped(
            RepositoryPaths.executable, ["afconvert", "-d", "LEI16", "-", "out.caf"], input: fixture.bytes,
            currentDirectory: folder.path)
        #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
        #expect(try Self.samples16(folder.file("out.caf")) == Self.samples16(reference))
        // cat in.wav | afconvert -d LEI16 - -o - > piped.caf
        let both = try Self.runPiped(
            RepositoryPaths.executable, ["afconvert", "-v", "-d", "LEI16", "-", "-o", "-"], input: fixture.bytes,
            currentDirectory: folder.path)
        #expect(both.status == 0, "\(both.stderr)")
        // Linear PCM is streamed: the file's bytes with the data size -1.
        #expect(Bool(both.stdout == PipesEndToEndTests.streamed(try #require(readFile(reference)))))
        #expect(!exists(folder.file("-")))
        // Without an output file, standard input has no name to derive one from.
        let nameless = try Self.runPiped(
            RepositoryPaths.executable, ["afconvert", "-"], input: fixture.bytes, currentDirectory: folder.path)
        #expect(nameless.status == 64)
        #expect(nameless.stderr.contains("standard input"), "\(nameless.stderr)")
        // A source that is not audio fails with exit 1 and writes nothing to stdout.
        let junk = try Self.runPiped(
            RepositoryPaths.executable, ["afconvert", "-", "-o", "-"], input: Array("not audio".utf8),
            currentDirectory: folder.path)
        #expect(junk.status == 1, "\(junk.stderr)")
        #expect(junk.stdout.isEmpty)
    }
}

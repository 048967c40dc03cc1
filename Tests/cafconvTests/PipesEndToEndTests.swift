import Foundation
import TestSupport
import Testing

/// `cafconv convert -`, `-o -`, `/dev/stdin` and `<(...)` (issue 32): pipes read by spooling them,
/// the CAF for stdout written and proved before a byte goes out, never a file named `-`.
@Suite("convert with pipes, end to end")
struct PipesEndToEndTests {
    /// Runs `program` with the bytes of `input` on stdin (a file, so nothing can deadlock).
    static func piped(_ arguments: [String], input: [UInt8], in folder: String, environment: [String: String] = [:])
        throws -> (status: Int32, stdout: [UInt8], stderr: String)
    {
        let streams = TempDirectory()
        writeFile(streams.file("stdin"), input)
        return try BoundedProcess.run(
            RepositoryPaths.executable, arguments, in: streams.path, currentDirectory: folder,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, stdin: streams.file("stdin"))
    }

    /// One second of a 440 Hz tone at half scale as a 16-bit WAV (lossy codecs keep a tone).
    static func tone(channels: Int) -> [UInt8] {
        let samples = (0..<44100).flatMap { frame -> [Int32] in
            let value = Int32((sin(Double(frame) * 2 * .pi * 440 / 44100) * 16000).rounded())
            return Array(repeating: value, count: channels)
        }
        return WAVFixture(encoding: .int16, channels: channels, integers: samples).bytes
    }

    /// A source in `format` made by ffmpeg from a generated WAV (the WAV itself for `wav`).
    static func source(_ format: String, in folder: TempDirectory) throws -> String {
        let wav = folder.write("tone.wav", tone(channels: 2))
        if format == "wav" { return wav }
        let made = folder.file("tone.\(format)")
        let ffmpeg = try #require(which("ffmpeg"))
        let codec: [String] =
            switch format {
            case "ogg": ["-c:a", "libvorbis"]
            case "opus": ["-c:a", "libopus"]
            case "w64": ["-f", "w64"]
            default: []
            }
        #expect(try run(ffmpeg, ["-v", "error", "-i", wav] + codec + [made]).status == 0)
        return made
    }

    @Test(
        "convert - -o FILE and convert FILE -o - give the bytes convert FILE -o FILE gives, for every source format",
        .enabled(if: which("ffmpeg") != nil, "needs ffmpeg to make the sources"),
        arguments: ["wav", "aiff", "flac", "mp3", "ogg", "opus", "au", "w64"])
    func everyFormat(_ format: String) throws {
        let folder = TempDirectory()
        let input = try Self.source(format, in: folder)
        let bytes = try #require(readFile(input))
        let reference = try run(RepositoryPaths.executable, ["convert", input, "-o", folder.file("reference.caf")])
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try #require(readFile(folder.file("reference.caf")))
        // cat tone.flac | cafconv convert - -o piped.caf
        let fromPipe = try Self.piped(["convert", "-", "-o", "piped.caf"], input: bytes, in: folder.path)
        #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
        #expect(readFile(folder.file("piped.caf")) == expected, "\(format)")
        #expect(fromPipe.stdout.starts(with: Array("- -> piped.caf".utf8)), "\(String(decoding: fromPipe.stdout, as: UTF8.self))")
        #expect(!fromPipe.stderr.contains("cafconv-pipe"), "the private copy is never named: \(fromPipe.stderr)")
        // cafconv convert tone.flac -o - > out.caf: the CAF alone on stdout, the result on stderr.
        let toPipe = try Self.piped(["convert", input, "-o", "-"], input: [], in: folder.path)
        #expect(toPipe.status == 0, "\(toPipe.stderr)")
        #expect(toPipe.stdout == expected, "\(format)")
        #expect(toPipe.stderr.contains("-> -"), "\(toPipe.stderr)")
        #expect(!exists(folder.file("-")))
        #expect(!exists(folder.file(".cafconv-manifest")))
    }

    @Test("-o - with -d ima4 and -d aac: the compressed CAF is proved, then copied to stdout")
    func compressedToStandardOutput() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", Self.tone(channels: 1))
        for format in ["ima4", "aac"] {
            let reference = try run(
                RepositoryPaths.executable, ["convert", "-d", format, input, "-o", folder.file("\(format).caf")])
            #expect(reference.status == 0, "\(reference.stderr)")
            let both = try Self.piped(["convert", "-d", format, "-", "-o", "-"], input: readFile(input) ?? [], in: folder.path)
            #expect(both.status == 0, "\(both.stderr)")
            #expect(both.stdout == readFile(folder.file("\(format).caf")), "\(format)")
        }
    }

    @Test("a source that fails its conversion: exit 1, nothing on stdout, the error names standard input")
    func failureWritesNothing() throws {
        let folder = TempDirectory()
        let junk = try Self.piped(["convert", "-", "-o", "-"], input: Array("not audio at all".utf8), in: folder.path)
        #expect(junk.status == 1, "\(junk.stderr)")
        #expect(junk.stdout.isEmpty)
        #expect(junk.stderr.contains("error: -:"), "\(junk.stderr)")
        #expect(!junk.stderr.contains("cafconv-pipe"), "\(junk.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("/dev/stdin from a pipe and <(...) (a FIFO) are read by spooling them, not refused as not regular files")
    func fifoInputs() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 8000).bytes)
        let bash = try #require(which("bash"))
        let reference = try run(RepositoryPaths.executable, ["convert", input, "-o", folder.file("reference.caf")])
        #expect(reference.status == 0, "\(reference.stderr)")
        let executable = RepositoryPaths.executable
        let substitution = try run(bash, ["-c", "'\(executable)' convert <(cat '\(input)') -o '\(folder.file("fifo.caf"))'"])
        #expect(substitution.status == 0, "\(substitution.stderr)")
        #expect(readFile(folder.file("fifo.caf")) == readFile(folder.file("reference.caf")))
        let devStdin = try run(bash, ["-c", "cat '\(input)' | '\(executable)' convert /dev/stdin -o '\(folder.file("stdin.caf"))'"])
        #expect(devStdin.status == 0, "\(devStdin.stderr)")
        #expect(readFile(folder.file("stdin.caf")) == readFile(folder.file("reference.caf")))
    }

    @Test(
        "usage errors: a pipe without -o, a pipe among other inputs, -o - with --json or several inputs",
        arguments: [
            (["convert", "-"], "give the output file"),
            (["convert", "-", "in.wav", "-o", "out"], "convert it alone"),
            (["convert", "in.wav", "-o", "-", "--json"], "--json"),
            (["convert", "in.wav", "in.wav", "-o", "-"], "give one input"),
            (["convert", "-", "-o", "x.caf", "--dry-run"], "--dry-run"),
        ])
    func usage(_ arguments: [String], _ message: String) throws {
        let folder = TempDirectory()
        _ = folder.write("in.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let result = try Self.piped(arguments, input: [], in: folder.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!exists(folder.file("-")))
    }
}

import Foundation
import TestSupport
import Testing

/// `cafconv convert -`, `-o -`, `/dev/stdin` and `<(...)` (issue 32): pipes read by spooling them,
/// a linear PCM CAF for stdout streamed with the `data` size -1 and proved block by block, any
/// other written and proved before a byte goes out, never a file named `-`.
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
        #expect(Bool(toPipe.stdout == Self.streamed(expected)), "\(format)")
        #expect(toPipe.stderr.contains("-> -"), "\(toPipe.stderr)")
        #expect(!exists(folder.file("-")))
        #expect(!exists(folder.file(".cafconv-manifest")))
    }

    /// `caf` as `-o -` gives it: a linear PCM CAF streamed, its `data` size -1 (the audio runs to
    /// the end of the file); any other the same bytes.
    static func streamed(_ caf: [UInt8]) -> [UInt8] {
        var offset = 8
        var isLinearPCM = false
        while offset + 12 <= caf.count {
            let type = String(decoding: caf[offset..<offset + 4], as: UTF8.self)
            let size = caf[offset + 4..<offset + 12].reduce(0) { $0 << 8 | Int($1) }
            if type == "desc", offset + 24 <= caf.count {
                isLinearPCM = String(decoding: caf[offset + 20..<offset + 24], as: UTF8.self) == "lpcm"
            }
            if type == "data" {
                guard isLinearPCM else { return caf }
                var bytes = caf
                bytes.replaceSubrange(offset + 4..<offset + 12, with: [UInt8](repeating: 0xFF, count: 8))
                return bytes
            }
            offset += 12 + size
        }
        return caf
    }

    /// The samples ffmpeg decodes from the file at `path`, as 64-bit floats.
    static func ffmpegSamples(_ path: String, in folder: TempDirectory) throws -> [UInt8] {
        let ffmpeg = try #require(which("ffmpeg"))
        let raw = folder.file(FileManager.default.displayName(atPath: path) + ".f64")
        let decoded = try run(ffmpeg, ["-v", "error", "-y", "-i", path, "-c:a", "pcm_f64le", "-f", "f64le", raw])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        return readFile(raw) ?? []
    }

    @Test(
        "-o - streams linear PCM: the file's bytes with the data size -1; info, verify, ffmpeg and cafconv read the stream",
        .enabled(if: which("ffmpeg") != nil, "needs ffmpeg to decode the stream"),
        arguments: [
            [String](), ["-d", "LEI16"], ["-d", "BEF32"], ["-d", "BEI24@22050", "-c", "1"], ["-d", "I8"], ["-d", "LEF64@48000"],
        ])
    func streamedLinearPCM(_ options: [String]) throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int24, channels: 2, frames: 30000).bytes)
        let executable = RepositoryPaths.executable
        let reference = try run(executable, ["convert"] + options + [input, "-o", folder.file("reference.caf")])
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try #require(readFile(folder.file("reference.caf")))
        let streamed = try Self.piped(["convert"] + options + ["in.wav", "-o", "-"], input: [], in: folder.path)
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(Bool(streamed.stdout != expected), "streamed, not copied")
        #expect(Bool(streamed.stdout == Self.streamed(expected)))
        let saved = folder.write("streamed.caf", streamed.stdout)
        let info = try run(executable, ["info", saved])
        #expect(info.status == 0 && info.text.contains("'data'") && info.text.contains("size -1"), "\(info.text)")
        // The frames and audio bytes run to the end of the file: the file's own.
        func facts(_ path: String) throws -> [String] {
            let json = try run(executable, ["info", "--json", path])
            let object = try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [[String: Any]]
            return ["frames", "audioBytes", "audioOffset", "error"].map { "\(object?.first?[$0] ?? "missing")" }
        }
        let streamedFacts = try facts(saved)
        #expect(Int(streamedFacts[0]) ?? 0 > 0, "\(streamedFacts)")
        #expect(try streamedFacts == facts(folder.file("reference.caf")))
        let verify = try run(executable, ["verify", saved])
        #expect(verify.status == 0, "\(verify.text)\(verify.stderr)")
        // ffmpeg decodes the stream to the file's samples; cafconv converts it back (its own reader:
        // libsndfile 1.2 refuses a data size of -1) to the same samples.
        let samples = try Self.ffmpegSamples(folder.file("reference.caf"), in: folder)
        #expect(!samples.isEmpty)
        #expect(Bool(try Self.ffmpegSamples(saved, in: folder) == samples))
        let back = try run(executable, ["convert", saved, "-o", folder.file("back.caf")])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stderr.contains("'data' size is -1"), "\(back.stderr)")
        #expect(Bool(try Self.ffmpegSamples(folder.file("back.caf"), in: folder) == samples))
    }

    @Test("-o - streams the loops, markers and title the file carries, at a new rate too")
    func streamedMetadata() throws {
        let folder = TempDirectory()
        let input = folder.write("loop.wav", loopingWave())
        for options in [["-d", "LEI16"], ["-d", "BEI24@16000"]] {
            let reference = try run(
                RepositoryPaths.executable, ["convert"] + options + [input, "-o", folder.file("reference.caf")])
            #expect(reference.status == 0, "\(reference.stderr)")
            let expected = try #require(readFile(folder.file("reference.caf")))
            let streamed = try Self.piped(["convert"] + options + [input, "-o", "-"], input: [], in: folder.path)
            #expect(streamed.status == 0, "\(streamed.stderr)")
            #expect(Bool(streamed.stdout == Self.streamed(expected)), "\(options)")
            #expect(String(decoding: streamed.stdout, as: UTF8.self).contains("mark"), "the markers are in the header")
        }
    }

    @Test("through real pipes: convert in.wav -o - | cat, cat in.wav | convert - -o - | cat, and | head -c 100")
    func streamedThroughPipes() throws {
        let folder = TempDirectory()
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 100_000).bytes)
        let executable = RepositoryPaths.executable
        let bash = try #require(which("bash"))
        let reference = try run(executable, ["convert", "-d", "BEI16", input, "-o", folder.file("reference.caf")])
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = Self.streamed(try #require(readFile(folder.file("reference.caf"))))
        let out = try run(
            bash, ["-c", "set -o pipefail; '\(executable)' convert -d BEI16 '\(input)' -o - | cat > '\(folder.file("a.caf"))'"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(Bool(readFile(folder.file("a.caf")) == expected))
        let both = try run(
            bash,
            ["-c", "set -o pipefail; cat '\(input)' | '\(executable)' convert -d BEI16 - -o - | cat > '\(folder.file("b.caf"))'"])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(Bool(readFile(folder.file("b.caf")) == expected))
        // A reader that stops early: the write fails (no SIGPIPE death), exit 1, the private
        // folder removed.
        let temporary = TempDirectory()
        let head = try run(
            bash,
            [
                "-c",
                "TMPDIR='\(temporary.path)' '\(executable)' convert -d BEI16 '\(input)' -o - | head -c 100 > /dev/null; exit ${PIPESTATUS[0]}",
            ])
        #expect(head.status == 1, "\(head.stderr)")
        #expect(head.stderr.contains("writing standard output failed"), "\(head.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test("a streamed CAF is no file: when its first bytes reach the pipe, the temporary folder holds nothing of its audio")
    func streamedWithoutAFile() throws {
        let folder = TempDirectory()
        let temporary = TempDirectory()
        // 4 MB of audio: a CAF written before it is copied would be a file of that size.
        let input = folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 1_000_000).bytes)
        // stdout is a FIFO the test reads: a pipe whose 64 KiB fill up while the program writes.
        let fifo = folder.file("stdout.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // The reading end is opened first (non-blocking, so the open does not wait for a writer):
        // posix_spawn returns only once the child has opened its end.
        let reading = open(fifo, O_RDONLY | O_NONBLOCK)
        guard reading >= 0 else {
            Issue.record("cannot open \(fifo)")
            return
        }
        _ = fcntl(reading, F_SETFL, fcntl(reading, F_GETFL) & ~O_NONBLOCK)
        let stdout = FileHandle(fileDescriptor: reading, closeOnDealloc: true)
        let process = try BoundedProcess(
            RepositoryPaths.executable, ["convert", "-d", "LEI16", input, "-o", "-"],
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }, stdout: fifo)
        var received = stdout.availableData
        #expect(!received.isEmpty)
        // The program is still writing (the pipe holds 64 KiB): whatever it keeps on disk is there now.
        var largest = 0
        let walker = FileManager.default.enumerator(atPath: temporary.path)
        while let name = walker?.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: temporary.path + "/" + name)
            if attributes?[.type] as? FileAttributeType == .typeRegular {
                largest = max(largest, (attributes?[.size] as? Int) ?? 0)
            }
        }
        #expect(largest < 1 << 20, "a file of \(largest) bytes below TMPDIR")
        received += stdout.readDataToEndOfFile()
        let outcome = process.wait(timeout: BoundedProcess.defaultTimeout)
        #expect(outcome.status == 0 && !outcome.timedOut)
        #expect(received.count > 4_000_000)
        #expect(Array(received[received.startIndex..<received.startIndex + 4]) == Array("caff".utf8))
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
            #expect(Bool(both.stdout == readFile(folder.file("\(format).caf"))), "\(format)")
        }
    }

    @Test(
        "a source that fails its conversion: exit 1, nothing on stdout, the error names standard input",
        arguments: ["not audio", "ratio over 256", "ima4 of junk"])
    func failureWritesNothing(_ case: String) throws {
        let (options, input): ([String], [UInt8]) =
            switch `case` {
            // A linear PCM stream whose plan fails once the source is open: refused before the
            // stream's header is written.
            case "ratio over 256":
                (["-d", "LEI16@1000"], WAVFixture.signal(.int16, channels: 1, frames: 4000, sampleRate: 384_000).bytes)
            // A compressed output (written, then copied) whose source is broken.
            case "ima4 of junk": (["-d", "ima4"], Array("RIFF....WAVEfmt junk".utf8))
            default: ([], Array("not audio at all".utf8))
            }
        let folder = TempDirectory()
        let failed = try Self.piped(["convert"] + options + ["-", "-o", "-"], input: input, in: folder.path)
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(failed.stdout.isEmpty, "\(failed.stdout.count) bytes on stdout")
        #expect(failed.stderr.contains("error: -:"), "\(failed.stderr)")
        #expect(!failed.stderr.contains("cafconv-pipe"), "\(failed.stderr)")
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

import Foundation
import TestSupport
import Testing

/// Issue 34, item 3: `cafconv convert --persistent_worker`, Bazel's JSON worker protocol, driven
/// through a pipe as Bazel drives it.
@Suite("Persistent worker (Bazel JSON protocol)")
struct PersistentWorkerEndToEndTests {
    /// Runs a worker with `input` on stdin (then closed); its status, stdout lines and stderr.
    func worker(_ input: [UInt8], in folder: TempDirectory, startup: [String] = ["convert"]) throws
        -> (status: Int32, responses: [[String: Any]], stderr: String)
    {
        let stdin = Pipe()
        let streams = TempDirectory("worker")
        // A worker that stops reading (a refused stream) must not kill the test with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let process = try BoundedProcess(
            RepositoryPaths.executable, startup + ["--persistent_worker"], currentDirectory: folder.path, stdinPipe: stdin,
            stdout: streams.file("out"), stderr: streams.file("err"))
        // Written in uneven pieces, as a pipe may deliver them.
        var offset = 0
        var step = 1
        while offset < input.count {
            let end = min(input.count, offset + step)
            do { try stdin.fileHandleForWriting.write(contentsOf: Data(input[offset..<end])) } catch { break }
            offset = end
            step = step * 7 % 61 + 1
        }
        try? stdin.fileHandleForWriting.close()
        let outcome = process.wait(timeout: BoundedProcess.defaultTimeout)
        let err = BoundedProcess.readBytes(streams.file("err"))
        if outcome.timedOut {
            throw BoundedProcess.Timeout(description: "cafconv convert --persistent_worker did not end; stderr: \(String(decoding: err, as: UTF8.self))")
        }
        let lines = String(decoding: BoundedProcess.readBytes(streams.file("out")), as: UTF8.self).split(separator: "\n")
        let responses = lines.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(responses.count == lines.count, "every stdout line is a response: \(lines)")
        return (outcome.status, responses, String(decoding: err, as: UTF8.self))
    }

    func request(_ arguments: [String], id: Int = 0) -> String {
        let data = try? JSONSerialization.data(withJSONObject: ["arguments": arguments, "requestId": id])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    @Test("an input that is the worker's stdin by identity (a symlink to /dev/stdin, /proc/self/fd/0) is refused; the next request is answered")
    func stdinByIdentityRefused() throws {
        let folder = TempDirectory()
        folder.write("a.wav", WAVFixture.signal(.int16, channels: 1, frames: 300, seed: 1).bytes)
        try FileManager.default.createSymbolicLink(atPath: folder.file("in.wav"), withDestinationPath: "/dev/stdin")
        for input in ["in.wav", "/proc/self/fd/0"] {
            let stream = request(["-q", input, "-o", "x.caf"], id: 1) + request(["-q", "a.wav", "-o", "y.caf"], id: 2)
            let result = try worker(Array(stream.utf8), in: folder)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.responses.count == 2, "\(input): \(result.responses)")
            let first = result.responses.first
            #expect(first?["exitCode"] as? Int == 64, "\(input): \(String(describing: first))")
            #expect((first?["output"] as? String)?.contains("carry Bazel's protocol") == true, "\(String(describing: first))")
            #expect(result.responses.last?["requestId"] as? Int == 2 && result.responses.last?["exitCode"] as? Int == 0)
            #expect(exists(folder.file("y.caf")))
            try? FileManager.default.removeItem(atPath: folder.file("y.caf"))
        }
    }

    @Test("requests without newlines (Bazel 4.2) get the outputs, statuses and messages of one process per file")
    func sameAsOneProcessEach() throws {
        let folder = TempDirectory()
        for index in 0..<4 {
            folder.write("in/s\(index).wav", WAVFixture.signal(.int16, channels: 2, frames: 300 + index, seed: UInt64(index)).bytes)
        }
        folder.write("in/bad.wav", Array("RIFF not really".utf8))
        let jobs: [[String]] = [
            ["-q", "in/s0.wav", "-o", "w/s0.caf"], ["-q", "-d", "BEI24", "in/s1.wav", "-o", "w/s1.caf"],
            ["-q", "in/bad.wav", "-o", "w/bad.caf"], ["-q", "-d", "LEI16@22050", "-c", "1", "in/s2.wav", "-o", "w/s2.caf"],
            ["-q", "--no-such-option", "in/s3.wav", "-o", "w/s3.caf"], ["-q", "in/s3.wav", "-o", "w/s3.caf"],
        ]
        var stream = ""
        for (index, job) in jobs.enumerated() { stream += request(job, id: index % 2 == 0 ? 0 : 0) }
        let served = try worker(Array(stream.utf8), in: folder)
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.responses.count == jobs.count)
        for (index, job) in jobs.enumerated() {
            let alone = try run(
                RepositoryPaths.executable, ["convert"] + job.map { $0.replacingOccurrences(of: "w/", with: "p/") },
                currentDirectory: folder.path)
            let response = served.responses[index]
            #expect(response["exitCode"] as? Int == Int(alone.status), "job \(index): \(response)")
            #expect(response["requestId"] as? Int == 0)
            let output = (response["output"] as? String ?? "").replacingOccurrences(of: "w/", with: "p/")
            #expect(output == alone.stderr + alone.text, "job \(index)")
            if let target = job.last, alone.status == 0 {
                let made = readFile(folder.file(target))
                #expect(made != nil && made == readFile(folder.file(target.replacingOccurrences(of: "w/", with: "p/"))))
            }
        }
        #expect(!exists(folder.file("w/.cafconv-manifest")))
    }

    @Test("a parameter file's empty line is an empty argument, as `\"\"` on a command line")
    func flagfileEmptyLine() throws {
        let folder = TempDirectory()
        folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 3000).bytes)
        let arguments = ["convert", "in.wav", "-o", "out.caf", "-d", "", "LEF32"]
        let direct = try run(RepositoryPaths.executable, arguments, currentDirectory: folder.path)
        #expect(direct.status == 64, "\(direct.stderr)")
        folder.write("params", Array((arguments.joined(separator: "\n") + "\n").utf8))
        let flagfile = try run(RepositoryPaths.executable, ["--flagfile=params"], currentDirectory: folder.path)
        #expect(flagfile.status == 64, "\(flagfile.stderr)")
        #expect(!exists(folder.file("out.caf")))
    }

    @Test("afconvert's -u property value: a worker request, a parameter file and a command line translate it alike")
    func afconvertProperties() throws {
        let folder = TempDirectory()
        folder.write("in.wav", WAVFixture.signal(.int16, channels: 2, frames: 3000).bytes)
        func line(_ out: String) -> [String] { ["-f", "caff", "-d", "LEI16@22050", "-u", "srcq", "20", "in.wav", out] }
        let alone = try run(RepositoryPaths.executable, ["afconvert"] + line("alone.caf"), currentDirectory: folder.path)
        #expect(alone.status == 0, "\(alone.stderr)")
        let made = try #require(readFile(folder.file("alone.caf")))
        // The property in a parameter file, as a Bazel action passes its arguments.
        folder.write("params", Array((line("flagfile.caf").joined(separator: "\n") + "\n").utf8))
        let flagfile = try run(RepositoryPaths.executable, ["afconvert", "--flagfile=params"], currentDirectory: folder.path)
        #expect(flagfile.status == 0, "\(flagfile.stderr)")
        #expect(readFile(folder.file("flagfile.caf")) == made)
        // A worker started as afconvert, and a convert worker given a request that names afconvert.
        let served = try worker(Array(request(line("worker.caf")).utf8), in: folder, startup: ["afconvert"])
        #expect(served.responses.first?["exitCode"] as? Int == 0, "\(served.responses)")
        #expect(readFile(folder.file("worker.caf")) == made)
        let named = try worker(Array(request(["afconvert"] + line("named.caf")).utf8), in: folder)
        #expect(named.responses.first?["exitCode"] as? Int == 0, "\(named.responses)")
        #expect(readFile(folder.file("named.caf")) == made)
        // A property without an equivalent is refused by name on every path.
        let refused = ["-u", "pgcm", "2", "in.wav", "x.caf"]
        let refusedAlone = try run(RepositoryPaths.executable, ["afconvert"] + refused, currentDirectory: folder.path)
        let refusedServed = try worker(Array(request(refused).utf8), in: folder, startup: ["afconvert"])
        #expect(refusedAlone.status == 64 && refusedAlone.stderr.contains("-u pgcm is not supported"), "\(refusedAlone.stderr)")
        #expect(refusedServed.responses.first?["exitCode"] as? Int == 64)
        #expect(refusedServed.responses.first?["output"] as? String == refusedAlone.stderr + refusedAlone.text)
    }

    @Test("a request naming the worker's own stdin or stdout (-, -o -, /dev/stdin) is refused, and the worker goes on")
    func standardStreamsRefused() throws {
        let folder = TempDirectory()
        folder.write("a.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let stream =
            request(["-q", "a.wav", "-o", "-"], id: 1) + request(["-q", "-", "-o", "b.caf"], id: 2)
            + request(["-q", "/dev/stdin", "-o", "c.caf"], id: 3) + request(["-q", "a.wav", "-o", "a.caf"], id: 4)
        let served = try worker(Array(stream.utf8), in: folder)
        #expect(served.status == 0, "\(served.stderr)")
        #expect(served.responses.map { $0["requestId"] as? Int } == [1, 2, 3, 4])
        #expect(served.responses.map { $0["exitCode"] as? Int } == [64, 64, 64, 0])
        for response in served.responses.prefix(3) {
            #expect((response["output"] as? String)?.contains("carry Bazel's protocol") == true, "\(response)")
        }
        #expect(exists(folder.file("a.caf")))
    }

    @Test("requestId is echoed; a request that is not JSON is answered (exit 64) and the worker goes on")
    func badRequests() throws {
        let folder = TempDirectory()
        folder.write("a.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let stream =
            request(["-q", "a.wav", "-o", "a.caf"], id: 7) + #"{"arguments": [1, 2]}"# + "{\"arguments\": [\"x\",]}"
            + request(["-q", "a.wav", "-o", "b.caf"], id: 9)
        let served = try worker(Array(stream.utf8), in: folder)
        #expect(served.status == 0)
        #expect(served.responses.map { $0["exitCode"] as? Int } == [0, 64, 64, 0])
        #expect(served.responses.map { $0["requestId"] as? Int } == [7, 0, 0, 9])
        #expect((served.responses[1]["output"] as? String)?.contains("bad WorkRequest") == true)
        #expect(readFile(folder.file("a.caf")) == readFile(folder.file("b.caf")))
    }

    @Test("stdin ending inside a request, or a request over 4 MiB, ends the worker with status 1 and a reason")
    func brokenStreams() throws {
        let folder = TempDirectory()
        let cut = try worker(Array(#"{"arguments": ["a.wav""#.utf8), in: folder)
        #expect(cut.status == 1 && cut.stderr.contains("ended inside a request"), "\(cut.stderr)")
        let huge = try worker(Array(("{\"arguments\": [\"" + String(repeating: "x", count: 5 << 20) + "\"]}").utf8), in: folder)
        #expect(huge.status == 1 && huge.stderr.contains("longer than"), "\(huge.stderr)")
        let empty = try worker([], in: folder)
        #expect(empty.status == 0 && empty.responses.isEmpty)
    }

    @Test("bazel/cafconv.bzl's action: `convert --flagfile=PARAMS` as a process and the same lines as a worker request give the same bytes")
    func bazelActionCommandLine() throws {
        let folder = TempDirectory()
        folder.write("Sounds/sfx/hit.wav", WAVFixture.signal(.int16, channels: 2, frames: 900, seed: 4).bytes)
        folder.write("Sounds/cafconv.toml", Array("[defaults]\nformat = \"LEI16\"\n[[rule]]\nmatch = \"h*.wav\"\nformat = \"BEI24\"\n".utf8))
        // The lines the rule's Args write (multiline format), in its order.
        func lines(_ out: String) -> [String] {
            ["-q", "-d", "LEI16@22050", "-c", "1", "--rules", "Sounds/cafconv.toml", "--dither", "tpdf", "Sounds/sfx/hit.wav", "-o", out]
        }
        folder.write("params", Array((lines("bazel-out/process/hit.caf").joined(separator: "\n") + "\n").utf8))
        let process = try run(RepositoryPaths.executable, ["convert", "--flagfile=params"], currentDirectory: folder.path)
        #expect(process.status == 0 && process.text.isEmpty && process.stderr.isEmpty, "\(process.stderr)")
        let served = try worker(Array(request(lines("bazel-out/worker/hit.caf")).utf8), in: folder)
        #expect(served.responses.first?["exitCode"] as? Int == 0)
        let made = try #require(readFile(folder.file("bazel-out/process/hit.caf")))
        #expect(readFile(folder.file("bazel-out/worker/hit.caf")) == made)
        // Only the declared outputs were written.
        #expect(FileManager.default.subpaths(atPath: folder.file("bazel-out"))?.sorted() == ["process", "process/hit.caf", "worker", "worker/hit.caf"])
        // A parameter file that cannot be read is a usage error naming it.
        let missing = try run(RepositoryPaths.executable, ["convert", "--flagfile=nope"], currentDirectory: folder.path)
        #expect(missing.status == 64 && missing.stderr.contains("nope: cannot read the parameter file"), "\(missing.stderr)")
    }
}

import BinaryIO
import CommandLineKit
import JSONKit
import OutputFiles
import SystemLayer

/// `cafconv convert --persistent_worker`: Bazel's persistent-worker protocol, JSON flavour
/// (`--experimental_worker_allow_json_protocol` on Bazel 4.2, `requires-worker-protocol: json`
/// in the action's execution requirements). One long-lived process reads `WorkRequest`s from
/// stdin, a stream of JSON objects with or without newlines between them (Bazel 4.2 sends none),
/// runs each request's arguments as one `cafconv convert` would, in order, one at a time, and
/// writes a `WorkResponse` (`exitCode`, `output`: what that process would have printed, stdout
/// then stderr interleaved as written; `requestId` echoed) as one line on stdout. End of stdin
/// ends the process with status 0.
///
/// Bounded: a request is at most 4 MiB (a longer one ends the worker with an error on stderr,
/// which Bazel shows), the output sent back at most 1 MiB per request (the rest is cut, saying
/// so), and each request's state is freed before the next. Requests are served one after the
/// other (`requestId` is echoed, so a multiplexing Bazel gets correct answers, but not in
/// parallel; the rules do not declare `supports-multiplex-workers`).
enum PersistentWorker {
    static let flag = "--persistent_worker"
    static let outputLimit = 1 << 20

    /// Serves requests until stdin ends. `startup` is the command line without the flag (Bazel
    /// puts it after the tool's own arguments: `cafconv convert --persistent_worker`).
    static func serve(startup: [String], run: ([String]) -> Int32) -> Int32 {
        // The protocol owns the real stdout: requests' own printing goes to a capture file.
        let protocolOut = fcntl(1, F_DUPFD_CLOEXEC, 3)
        guard protocolOut >= 0 else {
            Console.error("cafconv: error: --persistent_worker: cannot duplicate stdout (errno \(errno))")
            return ExitStatus.failure
        }
        // One file in memory for every request's printing, emptied before each.
        let capture = cafconv_anonymous_file("cafconv-worker-output")
        defer { if capture >= 0 { Syscall.close(capture) } }
        var splitter = JSONStreamSplitter()
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = block.withUnsafeMutableBytes { buffer in
                Syscall.retryOnInterrupt { Syscall.read(0, buffer.baseAddress, buffer.count) }
            }
            if got < 0 {
                Console.error("cafconv: error: --persistent_worker: cannot read stdin (errno \(errno))")
                return ExitStatus.failure
            }
            if got == 0 { break }
            for document in splitter.feed(block[0..<got]) {
                let response = handle(document, startup: startup, capture: capture, run: run)
                guard send(Array((response.text(pretty: false) + "\n").utf8), to: protocolOut) else {
                    return ExitStatus.failure
                }
            }
            if let failure = splitter.failure {
                Console.error("cafconv: error: --persistent_worker: \(failure)")
                return ExitStatus.failure
            }
        }
        if splitter.isInsideDocument {
            Console.error("cafconv: error: --persistent_worker: stdin ended inside a request")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }

    /// The request's fields the worker reads.
    struct Request: Equatable {
        var arguments: [String]
        var requestID: Int
        var cancel: Bool
    }

    /// Reads a `WorkRequest` (unknown fields ignored, as protobuf's JSON mapping says).
    static func request(_ document: [UInt8]) -> Result<Request, JSONParser.Failure> {
        let value: JSONValue
        do throws(JSONParser.Failure) { value = try JSONParser.parse(document) } catch { return .failure(error) }
        guard case .object(let fields) = value else {
            return .failure(JSONParser.Failure(offset: 0, reason: "a WorkRequest is an object"))
        }
        var request = Request(arguments: [], requestID: 0, cancel: false)
        if case .array(let arguments)? = fields["arguments"] {
            for argument in arguments {
                guard case .string(let text) = argument else {
                    return .failure(JSONParser.Failure(offset: 0, reason: "arguments must be strings"))
                }
                request.arguments.append(text)
            }
        }
        // Protobuf's JSON mapping writes lowerCamelCase and reads the original names too.
        if case .number(let id)? = fields["requestId"] ?? fields["request_id"], let number = Int(id) {
            request.requestID = number
        }
        if case .bool(let cancel)? = fields["cancel"] { request.cancel = cancel }
        return .success(request)
    }

    /// The response to one document.
    static func handle(_ document: [UInt8], startup: [String], capture: Int32, run: ([String]) -> Int32) -> JSONValue {
        switch request(document) {
        case .failure(let failure):
            return response(id: 0, status: ExitStatus.usage, output: "cafconv: error: bad WorkRequest: \(failure)\n")
        case .success(let request):
            // Served one at a time: a cancelled request has been answered already.
            if request.cancel { return response(id: request.requestID, status: 0, output: "", cancelled: true) }
            let arguments: [String]
            switch expand(request.arguments) {
            case .failure(let why): return response(id: request.requestID, status: ExitStatus.usage, output: why.message)
            case .success(let expanded): arguments = expanded
            }
            if let stream = arguments.first(where: standardStreams.contains) ?? streamByIdentity(in: arguments) {
                return response(
                    id: request.requestID, status: ExitStatus.usage,
                    output:
                        "cafconv: error: \(stream): a persistent worker's stdin and stdout carry Bazel's protocol, "
                        + "so a request cannot read or write them; name files\n")
            }
            let (status, output) = captured(in: capture) { run(commandLine(startup: startup, request: arguments)) }
            return response(id: request.requestID, status: status, output: output)
        }
    }

    /// The arguments that name the worker's own stdin or stdout (`-` in or out, and their device
    /// names): a request given one is refused, since reading them would eat the requests that
    /// follow and writing them would corrupt the responses.
    static let standardStreams: Set<String> = ["-", "/dev/stdin", "/dev/stdout", "/dev/fd/0", "/dev/fd/1"]

    /// The argument that is the worker's own stdin or stdout by identity (device and inode,
    /// following symlinks: `/proc/self/fd/0`, a symlink to `/dev/stdin`), or `nil`. A stream
    /// that is a character device (a terminal, `/dev/null`) is not compared: a request may name
    /// `/dev/null`, and Bazel's streams are pipes.
    static func streamByIdentity(in arguments: [String]) -> String? {
        let streams = [Int32(0), 1].compactMap(FileSystem.identity(ofDescriptor:)).filter { !$0.isCharacterDevice }
        guard !streams.isEmpty else { return nil }
        return arguments.first { argument in
            guard let identity = FileSystem.identity(of: argument) else { return false }
            return streams.contains { $0.identity == identity }
        }
    }

    /// The subcommands a request may name.
    static let subcommands = [Convert.name, Info.name, Verify.name, Report.name, AFConvert.name, AFInfo.name]

    /// The command line of one request: the startup arguments (the subcommand) and the request's
    /// (which may name the subcommand again).
    static func commandLine(startup: [String], request: [String]) -> [String] {
        if let first = request.first, subcommands.contains(first) { return request }
        return startup + request
    }

    /// The prefix of a parameter-file argument: `--flagfile=PATH` stands for PATH's lines, one
    /// argument each (Bazel's `use_param_file("--flagfile=%s")` in `multiline` format; not `@PATH`,
    /// which would make a source named `@x.wav` impossible).
    static let flagfilePrefix = "--flagfile="

    /// Arguments with `--flagfile=FILE` replaced by FILE's lines: at most 1 MiB per file, no nesting.
    struct Refusal: Error {
        var message: String
    }

    static func expand(_ arguments: [String]) -> Result<[String], Refusal> {
        var expanded: [String] = []
        for argument in arguments {
            guard argument.hasPrefix(flagfilePrefix), argument.count > flagfilePrefix.count else {
                expanded.append(argument)
                continue
            }
            let path = String(argument.dropFirst(flagfilePrefix.count))
            let fd = path.withCString { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
            guard fd >= 0 else { return .failure(Refusal(message: "cafconv: error: \(path): cannot read the parameter file\n")) }
            defer { Syscall.close(fd) }
            var bytes: [UInt8] = []
            var block = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let got = block.withUnsafeMutableBytes { buffer in
                    Syscall.retryOnInterrupt { Syscall.read(fd, buffer.baseAddress, buffer.count) }
                }
                if got <= 0 { break }
                bytes += block[0..<got]
                if bytes.count > 1 << 20 { return .failure(Refusal(message: "cafconv: error: \(path): parameter file over 1 MiB\n")) }
            }
            // One argument a line, an empty line an empty argument (as `""` on a command line);
            // the newline that ends the last line ends it, it does not start another.
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            if bytes.isEmpty || bytes.last == 0x0A { lines.removeLast() }
            expanded += lines.map { PathBytes.decode($0) }
        }
        return .success(expanded)
    }

    static func response(id: Int, status: Int32, output: String, cancelled: Bool = false) -> JSONValue {
        var fields: [String: JSONValue] = [
            "exitCode": .integer(status), "output": .string(output), "requestId": .integer(id),
        ]
        if cancelled { fields["wasCancelled"] = .bool(true) }
        return .object(fields)
    }

    /// Runs `body` with stdout and stderr going to `capture` (an anonymous file in memory, never
    /// in a folder: a sandbox may not even have a writable /tmp), emptied first, and returns its
    /// status and what it printed (at most ``outputLimit`` bytes, as UTF-8 with bad bytes replaced).
    static func captured(in capture: Int32, _ body: () -> Int32) -> (Int32, String) {
        let savedOut = fcntl(1, F_DUPFD_CLOEXEC, 3)
        let savedErr = fcntl(2, F_DUPFD_CLOEXEC, 3)
        guard capture >= 0, savedOut >= 0, savedErr >= 0, ftruncate(capture, 0) == 0, lseek(capture, 0, SEEK_SET) == 0 else {
            for fd in [savedOut, savedErr] where fd >= 0 { Syscall.close(fd) }
            // No place to capture: run with output discarded rather than corrupt the protocol.
            return (body(), "")
        }
        Console.flush()
        _ = dup2(capture, 1)
        _ = dup2(capture, 2)
        let status = body()
        Console.flush()
        _ = dup2(savedOut, 1)
        _ = dup2(savedErr, 2)
        Syscall.close(savedOut)
        Syscall.close(savedErr)
        let size = Int(clamping: lseek(capture, 0, SEEK_END))
        var bytes = [UInt8](repeating: 0, count: min(size, outputLimit))
        let got = bytes.withUnsafeMutableBytes { pread(capture, $0.baseAddress, $0.count, 0) }
        bytes = Array(bytes.prefix(max(0, got)))
        var text = String(decoding: bytes, as: UTF8.self)
        if size > outputLimit { text += "\n[cafconv: \(size - outputLimit) more bytes of output cut]\n" }
        return (status, text)
    }

    static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var done = 0
            while done < raw.count {
                let wrote = Syscall.retryOnInterrupt { write(fd, base + done, raw.count - done) }
                if wrote <= 0 { return false }
                done += wrote
            }
            return true
        }
    }
}

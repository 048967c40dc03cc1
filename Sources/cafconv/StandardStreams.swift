import OutputFiles
import SystemLayer

/// `-` as input (stdin) and as output file (stdout), and inputs that are pipes or character
/// devices (`/dev/stdin`, `<(...)`), for `convert` and `afconvert` alike, through a private
/// temporary folder: the engine reads and writes files (every reader seeks or reads the source
/// more than once, and outputs are proved before they are put in place), so such an input is
/// spooled into the folder first and the proved CAF is copied to stdout afterwards. Nothing is
/// ever written under the name `-`. Memory: one 64 KiB buffer.
final class StandardStreams: Sendable {
    /// A failure of the spool or the copy, as one sentence.
    struct Failure: Error {
        var message: String
    }

    /// The private folder (mode 0700), below `$TMPDIR` or `/tmp`.
    let folder: String

    init() throws(Failure) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/cafconv-pipe-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard made != nil else {
            throw Failure(message: "cannot make a temporary folder in \(base): \(String(cString: strerror(errno)))")
        }
        folder = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path of `name` in the private folder.
    func path(_ name: String) -> String { folder + "/" + name }

    /// Copies stdin to `name` in the private folder; returns its path.
    func spoolStandardInput(to name: String) throws(Failure) -> String {
        try spool(from: STDIN_FILENO, reading: "standard input", to: name)
    }

    /// Copies what the pipe or device at `source` gives until its end to `name` in the private
    /// folder; returns its path.
    func spool(_ source: String, to name: String) throws(Failure) -> String {
        let input = FileSystem.withPath(source) { Syscall.open($0, O_RDONLY | O_CLOEXEC) }
        guard input >= 0 else { throw Failure(message: "cannot open \(source): \(String(cString: strerror(errno)))") }
        defer { _ = Syscall.close(input) }
        return try spool(from: input, reading: source, to: name)
    }

    private func spool(from input: Int32, reading: String, to name: String) throws(Failure) -> String {
        let target = path(name)
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard output >= 0 else { throw Failure(message: "cannot create \(target): \(String(cString: strerror(errno)))") }
        defer { _ = Syscall.close(output) }
        try Self.copy(from: input, to: output, reading: reading, writing: target)
        return target
    }

    /// Copies the file at `source` to stdout.
    func copyToStandardOutput(_ source: String) throws(Failure) {
        let input = Syscall.open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Failure(message: "cannot open \(source): \(String(cString: strerror(errno)))") }
        defer { _ = Syscall.close(input) }
        try Self.copy(from: input, to: STDOUT_FILENO, reading: source, writing: "standard output")
    }

    /// Deletes the private folder and what it holds (only files this run made: the folder is
    /// private).
    func remove() {
        if let directory = opendir(folder) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { unlink(path(name)) }
            }
            closedir(directory)
        }
        rmdir(folder)
    }

    /// Copies `input` to `output` until the end of `input`, through one 64 KiB buffer.
    static func copy(from input: Int32, to output: Int32, reading: String, writing: String) throws(Failure) {
        let size = 1 << 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = Syscall.read(input, buffer, size)
            if count == 0 { return }
            guard count > 0 else { throw Failure(message: "cannot read \(reading): \(String(cString: strerror(errno)))") }
            var done = 0
            while done < count {
                let written = Syscall.retryOnInterrupt { write(output, buffer + done, count - done) }
                guard written > 0 else {
                    throw Failure(message: "cannot write \(writing): \(String(cString: strerror(errno)))")
                }
                done += written
            }
        }
    }
}

import BinaryIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// cafconv as root in a container, on folders other people can write: it replaces only regular
/// files it owns, creates nothing beside what it refuses, and never takes an unreadable rules file
/// for an empty one (issue 28).
@Suite("safe as root: outputs, depfiles and rules files, end to end")
struct ContainerSafetyEndToEndTests {
    static let wave = WAVFixture.signal(.int16, channels: 1, frames: 300).bytes
    static let isRoot = getuid() == 0

    /// Runs cafconv under `timeout`, so a hang fails the test (status 124) instead of the suite.
    func cafconv(_ arguments: [String], seconds: Int = 60) throws -> ProcessResult {
        try run("/usr/bin/timeout", ["-s", "KILL", String(seconds), RepositoryPaths.executable] + arguments)
    }

    /// The file type bits of `path`, not following a symlink.
    func kind(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    /// Makes a Unix socket file at `path` (left bound until the test ends).
    func makeSocket(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return bound == 0 ? fd : -1
    }

    @Test("a character device at -o (as /dev/null is) is refused: it stays a device and no manifest appears beside it",
          .enabled(if: isRoot, "mknod needs root"))
    func deviceOutput() throws {
        let folder = TempDirectory()
        let input = folder.write("in/a.wav", Self.wave)
        let devices = folder.file("dev")
        try #require(mkdir(devices, 0o755) == 0)
        let null = folder.file("dev/null")
        try #require(mknod(null, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0)
        let result = try cafconv(["convert", input, "-o", null])
        #expect(result.status == 1, "\(result.text)\(result.stderr)")
        #expect(kind(null) == S_IFCHR, "the device was replaced")
        #expect(result.stderr.contains("is a character device"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: devices) == ["null"], "something was created beside it")
    }

    @Test("a FIFO, a socket, a symlink or a folder at -o is refused, left as it was, and nothing is made beside it")
    func otherKindsOfOutput() throws {
        let folder = TempDirectory()
        let input = folder.write("in/a.wav", Self.wave)
        let outside = folder.write("outside.caf", Self.wave)
        let places = folder.file("out")
        try #require(mkdir(places, 0o755) == 0)
        try #require(mkfifo(folder.file("out/fifo.caf"), 0o644) == 0)
        let socketDescriptor = makeSocket(folder.file("out/socket.caf"))
        defer { if socketDescriptor >= 0 { close(socketDescriptor) } }
        try #require(socketDescriptor >= 0)
        try #require(symlink(outside, folder.file("out/link.caf")) == 0)
        try #require(mkdir(folder.file("out/folder.caf"), 0o755) == 0)
        let expected: [(String, mode_t, String)] = [
            ("fifo.caf", S_IFIFO, "is a FIFO"), ("socket.caf", S_IFSOCK, "is a socket"),
            ("link.caf", S_IFLNK, "is a symbolic link"),
        ]
        for (name, type, words) in expected {
            let result = try cafconv(["convert", input, "-o", folder.file("out/\(name)")], seconds: 30)
            #expect(result.status == 1, "\(name): \(result.text)\(result.stderr)")
            #expect(kind(folder.file("out/\(name)")) == type, "\(name) was replaced")
            #expect(result.stderr.contains(words), "\(name): \(result.stderr)")
        }
        #expect(readFile(outside) == Self.wave, "written through the symlink")
        // A folder named as the output file: the output goes into it, as with any folder.
        let names = try FileManager.default.contentsOfDirectory(atPath: places).sorted()
        #expect(names == ["fifo.caf", "folder.caf", "link.caf", "socket.caf"], "\(names)")
    }

    @Test("a folder run fails the one output that is a FIFO and converts the rest")
    func fifoInAMirroredTree() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        folder.write("in/b.wav", Self.wave)
        try #require(mkdir(folder.file("out"), 0o755) == 0)
        try #require(mkfifo(folder.file("out/a.caf"), 0o644) == 0)
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")], seconds: 30)
        #expect(result.status == 1)
        #expect(kind(folder.file("out/a.caf")) == S_IFIFO)
        #expect(kind(folder.file("out/b.caf")) == S_IFREG)
        #expect(result.stderr.contains("is a FIFO"), "\(result.stderr)")
    }

    @Test("--depfile onto a FIFO or a device is refused; it is never replaced")
    func depfileOntoAFIFO() throws {
        let folder = TempDirectory()
        let input = folder.write("a.wav", Self.wave)
        let fifo = folder.file("deps.d")
        try #require(mkfifo(fifo, 0o644) == 0)
        let result = try cafconv(["convert", input, "-o", folder.file("a.caf"), "--depfile", fifo], seconds: 30)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(kind(fifo) == S_IFIFO)
        #expect(result.stderr.contains("is a FIFO"), "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp") }
        #expect(names.isEmpty, "temporary files left: \(names)")
    }

    @Test("a cafconv.toml that is a dangling symlink is an error, not the defaults")
    func danglingRulesFile() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        try #require(symlink(folder.file("missing.toml"), folder.file("in/cafconv.toml")) == 0)
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status != 0, "\(result.text)\(result.stderr)")
        #expect(result.stderr.contains("cafconv.toml"), "\(result.stderr)")
        #expect(kind(folder.file("out/a.caf")) == nil, "converted with the defaults")
    }

    @Test("--rules naming a /proc pseudo-file, a FIFO or a folder is an error, not an empty rules file")
    func pseudoRulesFiles() throws {
        let folder = TempDirectory()
        let input = folder.write("a.wav", Self.wave)
        let fifo = folder.file("rules.fifo")
        try #require(mkfifo(fifo, 0o644) == 0)
        for rules in ["/proc/self/status", fifo, folder.path] {
            let result = try cafconv(["convert", input, "-o", folder.file("a.caf"), "--rules", rules], seconds: 30)
            #expect(result.status != 0 && result.status != 124, "\(rules): \(result.status) \(result.stderr)")
            #expect(kind(folder.file("a.caf")) == nil, "\(rules): converted anyway")
        }
    }
}

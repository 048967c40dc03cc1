import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 34, item 2: one input file and `-o FILE` is the mode for build systems. It reads only
/// that file and the `--rules` file, writes only its output (and `--depfile`), keeps no state,
/// and its bytes depend on nothing but the source, the rules and the options. Checked without
/// strace: by what exists afterwards, and by comparing runs from other paths, times and users.
@Suite("Hermetic single-file runs")
struct HermeticEndToEndTests {
    static let rules = "[defaults]\nformat = \"BEI24\"\n"

    /// Every path under `root` (folders end with `/`), sorted.
    func listing(_ root: String) -> [String] {
        let names = FileManager.default.subpaths(atPath: root) ?? []
        return names.map { name in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory)
            return isDirectory.boolValue ? name + "/" : name
        }.sorted()
    }

    @Test("writes only its output and depfile: no manifest, no temporary, other files left alone")
    func writesOnlyItsOutput() throws {
        let folder = TempDirectory()
        folder.write("src/hit.wav", WAVFixture.signal(.int16, channels: 2, frames: 400, seed: 3).bytes)
        folder.write("src/rules.toml", Array(Self.rules.utf8))
        // Files a stateful run would read or clean up: a cafconv.toml beside the source and in
        // the output folder, and an old temporary file in the output folder.
        folder.write("src/cafconv.toml", Array("[defaults]\nformat = \"LEF32\"\n".utf8))
        folder.write("out/cafconv.toml", Array("[defaults]\nformat = \"LEF32\"\n".utf8))
        folder.write("out/.old.caf.cafconv-1234.tmp", Array("stale".utf8))
        let before = listing(folder.path)
        for round in 0..<2 {
            let result = try run(
                RepositoryPaths.executable,
                [
                    "convert", "-q", "--rules", "src/rules.toml", "src/hit.wav", "-o", "out/hit.caf", "--depfile",
                    "out/hit.caf.d",
                ], currentDirectory: folder.path)
            #expect(result.status == 0, "round \(round): \(result.stderr)")
            #expect(listing(folder.path) == (before + ["out/hit.caf", "out/hit.caf.d"]).sorted(), "round \(round)")
        }
        // The --rules file was the one applied (BEI24), not a cafconv.toml lying about.
        let info = try run(RepositoryPaths.executable, ["info", folder.file("out/hit.caf")])
        #expect(info.text.contains("24-bit signed integer, big-endian"), "\(info.text)")
        #expect(readFile(folder.file("out/.old.caf.cafconv-1234.tmp")) == Array("stale".utf8))
    }

    @Test("a second run over an unchanged source keeps the output file as it was (same inode and time)")
    func keepsIdenticalOutput() throws {
        let folder = TempDirectory()
        folder.write("a.wav", WAVFixture.signal(.int16, channels: 1, frames: 300, seed: 1).bytes)
        let arguments = ["convert", "-q", folder.file("a.wav"), "-o", folder.file("a.caf")]
        #expect(try run(RepositoryPaths.executable, arguments).status == 0)
        let first = stamp(folder.file("a.caf"))
        Thread.sleep(forTimeInterval: 0.02)
        #expect(try run(RepositoryPaths.executable, arguments).status == 0)
        #expect(stamp(folder.file("a.caf")) == first)
        // Other bytes (other options) do replace it.
        #expect(try run(RepositoryPaths.executable, arguments + ["-d", "LEI24"]).status == 0)
        #expect(stamp(folder.file("a.caf")) != first)
    }

    /// Size, modification time and inode of a file.
    func stamp(_ path: String) -> [Int64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
    }

    static var canSwitchUser: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    @Test("the same bytes from other paths, names, working folders, times, time zones and hosts' users")
    func reproducible() throws {
        let source = WAVFixture.signal(.int16, channels: 2, frames: 700, seed: 9).bytes
        let first = TempDirectory()
        first.write("Sounds/sfx/hit.wav", source)
        first.write("rules.toml", Array(Self.rules.utf8))
        let a = try run(
            RepositoryPaths.executable,
            ["convert", "-q", "--rules", "rules.toml", "Sounds/sfx/hit.wav", "-o", "Build/hit.caf"],
            currentDirectory: first.path, environment: ["TZ": "UTC", "USER": "alice", "HOME": "/tmp"])
        #expect(a.status == 0, "\(a.stderr)")
        let second = TempDirectory("other-place")
        setTimes(second.write("deep/er/take 2.wav", source), seconds: 1_000_000)
        second.write("x/other-rules.toml", Array(Self.rules.utf8))
        let b = try run(
            RepositoryPaths.executable,
            [
                "convert", "-q", "--rules", second.file("x/other-rules.toml"), second.file("deep/er/take 2.wav"), "-o",
                second.file("o/renamed.caf"),
            ], currentDirectory: "/", environment: ["TZ": "Asia/Tokyo", "USER": "bob", "LANG": "de_DE.UTF-8"])
        #expect(b.status == 0, "\(b.stderr)")
        let bytes = try #require(readFile(first.file("Build/hit.caf")))
        #expect(readFile(second.file("o/renamed.caf")) == bytes)
        // Another user (nobody), when this test runs as root.
        if Self.canSwitchUser {
            let third = TempDirectory("as-nobody")
            chmod(third.path, 0o777)
            third.write("in.wav", source)
            third.write("rules.toml", Array(Self.rules.utf8))
            let c = try run(
                "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", RepositoryPaths.executable, "convert", "-q",
                    "--rules", third.file("rules.toml"), third.file("in.wav"), "-o", third.file("out.caf"),
                ], environment: ["USER": "nobody", "HOME": "/nonexistent"])
            #expect(c.status == 0, "\(c.stderr)")
            #expect(readFile(third.file("out.caf")) == bytes)
        }
    }
}

/// Sets a file's access and modification times to `seconds` since the epoch.
private func setTimes(_ path: String, seconds: Int) {
    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
    _ = utimensat(AT_FDCWD, path, &times, 0)
}

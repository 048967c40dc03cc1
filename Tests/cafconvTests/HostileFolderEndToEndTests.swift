import BinaryIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An attacker who can write the output folder (or its manifest), and odd but legal file
/// systems: cafconv must never delete, overwrite or hang on what it did not make. Each test
/// reproduces one attack of issue 13 against the built binary.
@Suite("hostile output folders and odd files, end to end")
struct HostileFolderEndToEndTests {
    static let wave = WAVFixture.signal(.int16, channels: 1, frames: 300).bytes

    /// Runs cafconv under `timeout`, so a hang fails the test (status 124) instead of the suite.
    func cafconv(_ arguments: [String], seconds: Int = 60) throws -> ProcessResult {
        try run("/usr/bin/timeout", ["-s", "KILL", String(seconds), RepositoryPaths.executable] + arguments)
    }

    /// Size and modification time (ns) of a file, as a manifest records them (not following a symlink).
    func stamp(_ path: String) throws -> (size: UInt64, modified: Int64) {
        var info = stat()
        try #require(PathBytes.withCString(path, { lstat($0, &info) }) == 0, "\(path) missing")
        return (UInt64(info.st_size), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// One manifest record line (raw bytes for the output path), for a source that no longer exists.
    func record(_ output: [UInt8], stamp: (size: UInt64, modified: Int64)) -> [UInt8] {
        output + Array("\t/nonexistent/gone.wav\t1\t1\tv1\t\(stamp.size)\t\(stamp.modified)\tLEI16\tLEI16\t300\n".utf8)
    }

    /// A sealed manifest: header, lines, and the `end` line with the FNV-1a 64-bit hash.
    func sealed(_ lines: [[UInt8]]) -> [UInt8] {
        let body = Array("cafconv-manifest 2\n".utf8) + lines.flatMap { $0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return body + Array(("end " + String(repeating: "0", count: 16 - digits.count) + digits + "\n").utf8)
    }

    /// The lines of an existing sealed manifest (without header and end line).
    func lines(ofManifest path: String) throws -> [[UInt8]] {
        let bytes = try #require(readFile(path))
        let all = bytes.split(separator: 0x0A).map { Array($0) + [0x0A] }
        return Array(all.dropFirst().dropLast())
    }

    @Test("item 1: manifest keys with a NUL byte, '..' or a leading '/' are damaged records: --prune deletes nothing")
    func hostileKeys() throws {
        let folder = TempDirectory()
        let keep = folder.write("in/keep.wav", Self.wave)
        let outside = folder.write("outside.caf", Self.wave)
        let linked = folder.write("linked.caf", Self.wave)
        #expect(symlink(linked, folder.file("in/link")) == 0)
        let manifest = sealed([
            record(Array("keep.wav".utf8) + [0] + Array(".caf".utf8), stamp: try stamp(keep)),
            record(Array("link".utf8) + [0] + Array(".caf".utf8), stamp: try stamp(folder.file("in/link"))),
            record(Array("../outside.caf".utf8), stamp: try stamp(outside)),
            record(Array(outside.utf8), stamp: try stamp(outside)),
            record(Array("./../outside.caf".utf8), stamp: try stamp(outside)),
        ])
        folder.write("in/.cafconv-manifest", manifest)
        let result = try cafconv(["convert", "--prune", folder.file("in")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(readFile(keep) == Self.wave, "an input was deleted: \(result.stderr)")
        #expect(exists(folder.file("in/link")) && readFile(linked) == Self.wave)
        #expect(readFile(outside) == Self.wave)
        #expect(!result.stderr.contains("deleted"))
    }

    @Test("item 2: --prune never deletes through a symlinked folder, and names the output it refused")
    func pruneThroughSymlinkedFolder() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        #expect(try cafconv(["convert", folder.file("in"), "-o", folder.file("out")]).status == 0)
        let victim = folder.write("victim/keep.caf", Self.wave)
        #expect(symlink("../victim", folder.file("out/evil")) == 0)
        let manifest = folder.file("out/.cafconv-manifest")
        writeFile(
            manifest, sealed(try lines(ofManifest: manifest) + [record(Array("evil/keep.caf".utf8), stamp: try stamp(victim))]))
        let result = try cafconv(["convert", "--prune", folder.file("in"), "-o", folder.file("out")])
        #expect(readFile(victim) == Self.wave, "a file outside the output folder was deleted")
        #expect(result.status == 1)
        // Item 12: the error names the output that could not be deleted, not the vanished source.
        #expect(result.stderr.contains("error: \(folder.file("out/evil/keep.caf")):"), "\(result.stderr)")
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
    }

    @Test("item 2: a symlinked folder inside the output tree is never written through")
    func writeThroughSymlinkedFolder() throws {
        let folder = TempDirectory()
        folder.write("in/sub/a.wav", Self.wave)
        folder.write("in/b.wav", Self.wave)
        mkdir(folder.file("out"), 0o755)
        mkdir(folder.file("victim"), 0o755)
        #expect(symlink("../victim", folder.file("out/sub")) == 0)
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("sub/a.wav:") && result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.file("victim"))) == [])
        #expect(exists(folder.file("out/b.caf")))
    }

    @Test("item 3: temporary files are never opened through a planted symlink, whatever the PID")
    func plantedTemporaries() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        #expect(try cafconv(["convert", folder.file("in"), "-o", folder.file("out")]).status == 0)
        let victim = folder.write("victim", Array("precious".utf8))
        // Damage the manifest: the next save replaces it through a temporary file.
        let manifest = folder.file("out/.cafconv-manifest")
        var bytes = try #require(readFile(manifest))
        bytes[bytes.count - 3] ^= 1
        writeFile(manifest, bytes)
        // Symlinks at the names the old scheme predicted for the next few thousand PIDs.
        func plant(_ name: (Int) -> String) throws {
            let last =
                Int(
                    String(decoding: readFile("/proc/sys/kernel/ns_last_pid") ?? [], as: UTF8.self)
                        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            for pid in (last + 1)...(last + 3000) { symlink(victim, folder.file("out/" + name(pid))) }
        }
        try plant { "..cafconv-manifest.cafconv-\($0)-manifest.tmp" }
        let result = try cafconv(["convert", "--force", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(readFile(victim) == Array("precious".utf8), "a file was overwritten through a symlink")
        let rewritten = try #require(readFile(manifest))
        #expect(rewritten.starts(with: Array("cafconv-manifest 3\n".utf8)))
        var info = stat()
        #expect(lstat(manifest, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG)

        // Planted names for the output's temporary file only blocked the old scheme (O_EXCL):
        // names nobody can guess make the attack pointless.
        try plant { ".a.caf.cafconv-\($0)-0.tmp" }
        let again = try cafconv(["convert", "--force", folder.file("in"), "-o", folder.file("out")])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(readFile(victim) == Array("precious".utf8))
    }

    @Test("item 4: a FIFO manifest, a FIFO input, info and verify --against on FIFOs never block")
    func fifos() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        mkdir(folder.file("out"), 0o755)
        #expect(mkfifo(folder.file("out/.cafconv-manifest"), 0o644) == 0)
        #expect(mkfifo(folder.file("in/pipe.wav"), 0o644) == 0)
        for extra in [[], ["--check"], ["--dry-run"]] {
            let result = try cafconv(["convert"] + extra + [folder.file("in"), "-o", folder.file("out")], seconds: 20)
            #expect(result.status == 1, "\(extra): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("pipe.wav: not a regular file"), "\(result.stderr)")
            if !extra.isEmpty {
                #expect(result.stderr.contains(".cafconv-manifest is not a regular file"), "\(result.stderr)")
            }
        }
        let converted = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")], seconds: 20)
        #expect(converted.stderr.contains(".cafconv-manifest") && converted.stderr.contains("left alone"), "\(converted.stderr)")
        #expect(exists(folder.file("out/a.caf")))
        var info = stat()
        #expect(lstat(folder.file("out/.cafconv-manifest"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)

        #expect(mkfifo(folder.file("pipe.caf"), 0o644) == 0)
        let inspected = try cafconv(["info", folder.file("pipe.caf")], seconds: 20)
        #expect(inspected.status == 1 && inspected.stderr.contains("not a regular file"), "\(inspected.stderr)")

        // verify --against: the source of out/a.caf is now a FIFO.
        unlink(folder.file("in/a.wav"))
        #expect(mkfifo(folder.file("in/a.wav"), 0o644) == 0)
        let verified = try cafconv(["verify", "--against", folder.file("in"), folder.file("out")], seconds: 20)
        #expect(verified.status == 1, "\(verified.status) \(verified.stderr)")
        let said = verified.text + verified.stderr
        #expect(said.contains("a.caf") && said.contains("not a regular file"), "\(said)")

        // A FIFO named like a CAF in a folder given to verify: a failure naming it, not a skip.
        #expect(mkfifo(folder.file("out/pipe.caf"), 0o644) == 0)
        let walked = try cafconv(["verify", folder.file("out")], seconds: 20)
        let walkedSaid = walked.text + walked.stderr
        #expect(walked.status == 1 && walkedSaid.contains("pipe.caf"), "\(walkedSaid)")
    }

    @Test("item 5: names that are not UTF-8 are converted, checked and verified, and printed escaped")
    func nonUTF8Names() throws {
        let folder = TempDirectory()
        let bad = PathBytes.decode(Array("bad".utf8) + [0xFF] + Array(".wav".utf8))
        let badFolder = PathBytes.decode(Array("dir".utf8) + [0xFF])
        folder.write("in/" + bad, Self.wave)
        folder.write("in/good.wav", Self.wave)
        folder.write("in/" + badFolder + "/c.wav", Self.wave)
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("3 converted"), "\(result.stderr)")
        #expect(result.text.contains("bad\\xFF.wav"), "\(result.text)")
        let badOutput = folder.file("out/" + PathBytes.decode(Array("bad".utf8) + [0xFF] + Array(".caf".utf8)))
        #expect(exists(badOutput))
        #expect(exists(folder.file("out/" + badFolder + "/c.caf")))
        #expect(try cafconv(["convert", "--check", folder.file("in"), "-o", folder.file("out")]).status == 0)
        unlink(PathBytes.encode(badOutput).map { CChar(bitPattern: $0) } + [0])
        let check = try cafconv(["convert", "--check", folder.file("in"), "-o", folder.file("out")])
        #expect(check.status == 1, "the missing output of a non-UTF-8 name must be noticed: \(check.stderr)")

        // The same name given as an argument (argv is bytes too): found, and named escaped.
        let shell = try run(
            "/bin/sh",
            [
                "-c", "exec \"$0\" info --brief \"$(printf '%s/bad\\377.caf' \"$1\")\"", RepositoryPaths.executable,
                folder.file("out"),
            ])
        #expect(shell.status == 1, "\(shell.text) \(shell.stderr)")
        #expect(shell.stderr.contains("bad\\xFF.caf") && shell.stderr.contains("No such file"), "\(shell.stderr)")
        folder.write("out/" + PathBytes.decode(Array("bad".utf8) + [0xFF] + Array(".caf".utf8)), Array("junk".utf8))
        let named = try run(
            "/bin/sh",
            [
                "-c", "exec \"$0\" info --brief \"$(printf '%s/bad\\377.caf' \"$1\")\"", RepositoryPaths.executable,
                folder.file("out"),
            ])
        #expect(named.stderr.contains("bad\\xFF.caf: not a CAF"), "\(named.stderr)")

        folder.write("out/" + PathBytes.decode(Array("broken".utf8) + [0xFF] + Array(".caf".utf8)), Array("junk".utf8))
        let verified = try cafconv(["verify", folder.file("out")])
        #expect(verified.status == 1, "\(verified.stderr)")
        #expect((verified.text + verified.stderr).contains("broken\\xFF.caf"), "\(verified.text) \(verified.stderr)")
    }

    @Test("names with a newline, carriage return or escape print escaped: one line per file, whatever the name")
    func controlCharacterNames() throws {
        let folder = TempDirectory()
        let name = "fake\n1 converted, 0 failed\r\u{1B}[1A"
        folder.write("in/\(name).wav", Self.wave)
        folder.write("in/good.wav", Self.wave)
        let escaped = "fake\\x0A1 converted, 0 failed\\x0D\\x1B[1A"
        let convert = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(exists(folder.file("out/\(name).caf")))
        let lines = convert.text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 2, "\(convert.text)")
        #expect(convert.text.contains("in/\(escaped).wav -> "), "\(convert.text)")
        for output in [
            try cafconv(["verify", folder.file("out")]).text, try cafconv(["info", "--brief", folder.file("out")]).text,
        ] {
            #expect(!output.contains("\r") && !output.contains("\u{1B}"), "\(output)")
            #expect(output.contains(escaped), "\(output)")
            #expect(output.split(separator: "\n").count == 2, "\(output)")
        }
    }

    @Test("item 6: --check and --prune read the output root's manifest when every input is gone")
    func emptyInputs() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        folder.write("in/b.wav", Self.wave)
        #expect(try cafconv(["convert", folder.file("in"), "-o", folder.file("out")]).status == 0)
        unlink(folder.file("in/a.wav"))
        unlink(folder.file("in/b.wav"))
        let check = try cafconv(["convert", "--check", folder.file("in"), "-o", folder.file("out")])
        #expect(check.status == 1)
        #expect(check.stderr.contains("2 orphaned"), "\(check.stderr)")
        let prune = try cafconv(["convert", "--prune", folder.file("in"), "-o", folder.file("out")])
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(!exists(folder.file("out/a.caf")) && !exists(folder.file("out/b.caf")))
    }

    @Test("item 8: a foreign file named .cafconv-manifest is not read whole and never overwritten")
    func foreignManifest() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        let garbage = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let manifest = folder.write("out/.cafconv-manifest", garbage)
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(readFile(manifest) == garbage, "a foreign file was overwritten")
        #expect(result.status == 1)
        #expect(result.stderr.contains("not a cafconv manifest"), "\(result.stderr)")
        #expect(exists(folder.file("out/a.caf")))
    }

    @Test("an empty .cafconv-manifest (a new file cut short by a power cut) is replaced, and the run succeeds")
    func emptyManifest() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        let manifest = folder.write("out/.cafconv-manifest", [])
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(readFile(manifest).map { $0.starts(with: Array("cafconv-manifest 3\n".utf8)) } == true)
        let again = try cafconv(["convert", "--check", folder.file("in"), "-o", folder.file("out")])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test("item 10: the longest legal names convert (the temporary name never passes NAME_MAX)")
    func longNames() throws {
        let folder = TempDirectory()
        let ascii = String(repeating: "a", count: 251)  // a.wav and a.caf: 255 bytes
        let accented = String(repeating: "é", count: 125)  // 250 bytes + ".caf"
        folder.write("in/\(ascii).wav", Self.wave)
        folder.write("in/\(accented).wav", Self.wave)
        let result = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(exists(folder.file("out/\(ascii).caf")) && exists(folder.file("out/\(accented).caf")))
        #expect(temporaryFiles(under: folder.file("out")).isEmpty)
    }

    @Test("item 11: three concurrent runs into one folder leave a manifest that agrees with the files")
    func concurrentRuns() throws {
        let folder = TempDirectory()
        for index in 0..<30 { folder.write("in/f\(index).wav", Self.wave) }
        let runs = try (0..<3).map { _ in
            try BoundedProcess(RepositoryPaths.executable, ["convert", "-q", "-j", "2", folder.file("in"), "-o", folder.file("out")])
        }
        let outcomes = runs.map { $0.wait(timeout: 120) }
        #expect(outcomes.allSatisfy { $0.status == 0 }, "\(outcomes)")
        let next = try cafconv(["convert", folder.file("in"), "-o", folder.file("out")])
        #expect(next.stderr.contains("0 converted, 30 up to date"), "\(next.stderr)")
    }

    @Test("item 12: -o inside the input tree warns; NFC and NFD spellings are two files, not a clash")
    func smallerItems() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wave)
        #expect(try cafconv(["convert", folder.file("in"), "-o", folder.file("in/out")]).status == 0)
        let again = try cafconv(["convert", folder.file("in"), "-o", folder.file("in/out")])
        #expect(again.status == 0)
        #expect(again.stderr.contains("warning:") && again.stderr.contains("is the output folder"), "\(again.stderr)")

        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        folder.write("two/\(nfc).wav", Self.wave)
        folder.write("two/\(nfd).wav", WAVFixture.signal(.int16, channels: 2, frames: 500).bytes)
        let result = try cafconv(["convert", folder.file("two"), "-o", folder.file("two-out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("2 converted"), "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("two-out")).filter { $0.hasSuffix(".caf") }
        #expect(Set(names.map { Array($0.utf8) }).count == 2)
        // verify --against pairs each output with its own source, byte for byte.
        let verified = try cafconv(["verify", "--against", folder.file("two"), folder.file("two-out")])
        #expect(verified.status == 0, "\(verified.text) \(verified.stderr)")
    }
}

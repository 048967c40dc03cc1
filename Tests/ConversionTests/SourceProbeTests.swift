import Foundation
import TestSupport
import Testing

@testable import OutputFiles

#if canImport(Glibc)
    import Glibc
#endif

/// `FileSystem.SourceProbe` resolves each folder once and a file with one lstat(2); whatever the
/// path, it must give exactly what realpath(3) and stat(2) give (issue 34: the no-op run's
/// per-file system calls).
@Suite("source probe: the canonical path and stamp of realpath and stat, one folder lookup each")
struct SourceProbeTests {
    /// A tree with a file, a symlink to it, a symlinked folder, a dangling link and a folder.
    static func tree() -> TempDirectory {
        let folder = TempDirectory()
        folder.write("a/b/x.wav", Array("audio".utf8))
        folder.write("a/b/y.wav", Array("other audio".utf8))
        symlink("a/b/x.wav", folder.file("link.wav"))
        symlink("a/b", folder.file("linked"))
        symlink("a/b/none.wav", folder.file("dangling.wav"))
        return folder
    }

    /// `path` spelled relative to the working folder (`../../tmp/...`), without changing it.
    static func relative(_ path: String) -> String {
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        return String(repeating: "../", count: depth) + path.dropFirst()
    }

    @Test("every kind of path probes as realpath and stat, with the folder cache shared by all of them")
    func sameAsRealpathAndStat() {
        let folder = Self.tree()
        let root = folder.path
        let paths = [
            "\(root)/a/b/x.wav", "\(root)/a/b/y.wav", "\(root)/linked/x.wav", "\(root)/linked/y.wav", "\(root)/link.wav",
            "\(root)/dangling.wav", "\(root)/a/b/missing.wav", "\(root)/a/b", "\(root)/a/b/..", "\(root)/a/b/.",
            "\(root)//a//b/x.wav", "\(root)/a/b/x.wav/", "\(root)/a/../a/b/x.wav", "/tmp", Self.relative("\(root)/a/b/x.wav"),
            Self.relative("\(root)/linked/y.wav"), "x-not-here.wav",
        ]
        var probe = FileSystem.SourceProbe()
        for _ in 0..<2 {
            for path in paths {
                let (canonical, stamped) = probe.probe(path)
                let expected = FileSystem.stampAndChange(of: path)
                #expect(canonical == FileSystem.canonical(path), "canonical path of \(path)")
                #expect(stamped?.stamp == expected?.stamp && stamped?.changed == expected?.changed, "stamp of \(path)")
            }
        }
        #expect(probe.probe("\(root)/linked/x.wav").canonical == "\(FileSystem.canonical(root) ?? "")/a/b/x.wav")
    }

    @Test("a folder replaced by a symlink between runs is resolved again by a new probe")
    func newProbeSeesNewFolders() throws {
        let folder = Self.tree()
        var first = FileSystem.SourceProbe()
        #expect(first.probe(folder.file("c/x.wav")).canonical == nil)
        symlink("a/b", folder.file("c"))
        var second = FileSystem.SourceProbe()
        #expect(second.probe(folder.file("c/x.wav")).canonical == FileSystem.canonical(folder.file("a/b/x.wav")))
    }
}

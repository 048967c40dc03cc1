import ConversionModel
import Foundation
import TestSupport
import Testing

@testable import OutputFiles

#if canImport(Glibc)
    import Glibc
#endif

/// The commit path of an output (issue 34): an anonymous temporary file has no name until it is
/// linked straight to its target; whatever appears at the target meanwhile is never replaced
/// unless it is a regular file, and a regular file is replaced in one step.
@Suite("temporary files: anonymous until committed, only regular files replaced")
struct TemporaryFileTests {
    static let bytes: [UInt8] = Array("new contents".utf8)

    /// An anonymous temporary file for `target` in `folder`, holding ``bytes``.
    func written(_ folder: TempDirectory, _ target: String) throws -> FileSystem.TemporaryFile {
        let temporary = try FileSystem.TemporaryFile(in: FileSystem.Folder.open(folder.path), for: target, anonymous: true)
        let fd = try temporary.descriptor()
        defer { close(fd) }
        try FileSystem.writeAll(fd, Self.bytes, at: 0)
        return temporary
    }

    func kind(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    @Test("before the commit the folder holds no name for it; the commit links it to the target and leaves nothing else")
    func anonymousUntilCommitted() throws {
        let folder = TempDirectory()
        let temporary = try written(folder, "a.caf")
        #expect(try FileSystem.entries(of: folder.path).isEmpty, "the temporary file has a name before its commit")
        #expect(readFile(temporary.path) == Self.bytes, "readers that take a path cannot read it")
        let reopened = try FileSystem.openForUpdate(temporary.path)
        close(reopened)
        try temporary.commit()
        #expect(try FileSystem.entries(of: folder.path) == ["a.caf"])
        #expect(readFile(folder.file("a.caf")) == Self.bytes)
    }

    @Test("a regular file that appears at the target before the commit is replaced whole, and no temporary name stays")
    func regularFileReplaced() throws {
        let folder = TempDirectory()
        let temporary = try written(folder, "a.caf")
        folder.write("a.caf", Array("old".utf8))
        try temporary.commit()
        #expect(readFile(folder.file("a.caf")) == Self.bytes)
        #expect(try FileSystem.entries(of: folder.path) == ["a.caf"])
    }

    @Test("a symlink planted at the target before the commit is refused, left as it was, and never followed")
    func symlinkRefused() throws {
        let folder = TempDirectory()
        let victim = folder.write("victim.txt", Array("victim".utf8))
        let temporary = try written(folder, "a.caf")
        try #require(symlink(victim, folder.file("a.caf")) == 0)
        #expect(throws: ConversionError.self) { try temporary.commit() }
        #expect(kind(folder.file("a.caf")) == S_IFLNK)
        #expect(readFile(victim) == Array("victim".utf8))
    }

    @Test("a FIFO planted at the target before the commit is refused and stays a FIFO")
    func fifoRefused() throws {
        let folder = TempDirectory()
        let temporary = try written(folder, "a.caf")
        try #require(mkfifo(folder.file("a.caf"), 0o644) == 0)
        #expect(throws: ConversionError.self) { try temporary.commit() }
        #expect(kind(folder.file("a.caf")) == S_IFIFO)
    }
}

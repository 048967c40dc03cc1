import Foundation
import TestSupport
import Testing

/// Issue 34 probe, finding 2: `--prune` decides by content as the up-to-date check does.
@Suite("--prune deletes an orphan whose times changed but whose bytes are as cafconv wrote them")
struct PruneByContentEndToEndTests {
    @Test("a copy without times (cp -r) or a touched output: the orphan is pruned, with and without --shard")
    func prunedByDigest() throws {
        let folder = TempDirectory()
        for (index, name) in ["a", "b", "c", "d"].enumerated() {
            folder.write("s/\(name).wav", WAVFixture.signal(.int16, channels: 1, frames: 300, seed: UInt64(index)).bytes)
        }
        let built = try run(RepositoryPaths.executable, ["convert", "-q", "s", "-o", "built"], currentDirectory: folder.path)
        #expect(built.status == 0, "\(built.stderr)")
        Thread.sleep(forTimeInterval: 0.02)
        for copy in ["restored", "sharded"] {
            let copied = try run("/bin/cp", ["-r", "built", copy], currentDirectory: folder.path)
            #expect(copied.status == 0, "\(copied.stderr)")
        }
        try FileManager.default.removeItem(atPath: folder.file("s/b.wav"))
        try FileManager.default.removeItem(atPath: folder.file("s/c.wav"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: folder.file("built/b.caf"))
        for target in ["restored", "built"] {
            let pruned = try run(RepositoryPaths.executable, ["convert", "--prune", "s", "-o", target], currentDirectory: folder.path)
            #expect(pruned.status == 0, "\(target): \(pruned.stderr)")
            #expect(!pruned.stderr.contains("not pruned"), "\(target): \(pruned.stderr)")
            #expect(!exists(folder.file("\(target)/b.caf")) && !exists(folder.file("\(target)/c.caf")), "\(target): \(pruned.text)")
            #expect(exists(folder.file("\(target)/a.caf")) && exists(folder.file("\(target)/d.caf")))
        }
        for shard in 1...2 {
            let pruned = try run(
                RepositoryPaths.executable, ["convert", "--prune", "--shard", "\(shard)/2", "s", "-o", "sharded"],
                currentDirectory: folder.path)
            #expect(pruned.status == 0, "shard \(shard): \(pruned.stderr)")
            #expect(!pruned.stderr.contains("not pruned"), "shard \(shard): \(pruned.stderr)")
        }
        #expect(!exists(folder.file("sharded/b.caf")) && !exists(folder.file("sharded/c.caf")))
        // Bytes that differ from the record are still left alone.
        folder.write("s/e.wav", WAVFixture.signal(.int16, channels: 1, frames: 300, seed: 9).bytes)
        _ = try run(RepositoryPaths.executable, ["convert", "-q", "s", "-o", "built"], currentDirectory: folder.path)
        let caf = try #require(FileManager.default.contents(atPath: folder.file("built/e.caf")))
        var changed = [UInt8](caf)
        changed[changed.count - 1] ^= 0xFF
        folder.write("built/e.caf", changed)
        try FileManager.default.removeItem(atPath: folder.file("s/e.wav"))
        let kept = try run(RepositoryPaths.executable, ["convert", "--prune", "s", "-o", "built"], currentDirectory: folder.path)
        #expect(kept.stderr.contains("not pruned: changed since cafconv wrote it") && exists(folder.file("built/e.caf")), "\(kept.stderr)")
    }
}

import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import Foundation
import IncrementalState
import OutputFiles
import Rules
import Synchronization
import TestSupport
import Testing
import Transcoding
import Verification

/// Whether this process may mount a small tmpfs (root in a container that allows it).
let canMount: Bool = {
    guard getuid() == 0, let mount = which("mount"), let umount = which("umount") else { return false }
    let folder = TempDirectory("cafconv-mount-probe")
    guard (try? run(mount, ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder.path]))?.status == 0 else { return false }
    _ = try? run(umount, [folder.path])
    return true
}()

/// A tmpfs mounted on a fresh folder for the life of the value.
final class SmallDisk {
    let folder = TempDirectory("cafconv-disk")
    var path: String { folder.path }

    init(options: String) throws {
        let result = try run(try #require(which("mount")), ["-t", "tmpfs", "-o", options, "tmpfs", folder.path])
        try #require(result.status == 0, "mount failed: \(result.stderr)")
    }

    deinit { _ = try? run(which("umount") ?? "/bin/umount", [folder.path]) }
}

@Suite("Faults: interruption, full and read-only disks, symlinks, stale temporaries")
struct FaultTests {
    @Test("a cancelled run starts nothing, leaves no temporary file and says it was interrupted")
    func cancelledBeforeStart() {
        let folder = TempDirectory()
        sourceTree(folder)
        let cancellation = Cancellation()
        cancellation.cancel()
        let report = Engine.run(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 2),
            cancellation: cancellation)
        #expect(report.interrupted)
        #expect(report.totals.skipped == 6)
        #expect(report.files.allSatisfy { $0.reason == Cancellation.reason })
        #expect(temporaryFiles(under: folder.path).isEmpty)
        #expect(!exists(folder.file("out/f1.caf")))
    }

    @Test("cancelling mid-file stops between blocks: finished files stay valid and recorded, the rest is done next time")
    func cancelledMidRun() throws {
        let folder = TempDirectory()
        sourceTree(folder, count: 8, frames: 20000)
        // Tiny blocks through libsndfile's pump (the direct road has no sample blocks): 2500 blocks
        // a file, and as many in the proof that reads the output back. The condition trips halfway
        // through the second file.
        let checks = Mutex(0)
        let cancellation = Cancellation(also: {
            checks.withLock {
                $0 += 1; return $0 > 7500
            }
        })
        let options = ConversionOptions(jobs: 1, blockSamples: 16, directPayload: false)
        let report = Engine.run(
            inputs: [folder.file("in")], output: folder.file("out"), options: options, cancellation: cancellation)
        #expect(report.interrupted)
        #expect(report.totals.converted == 1)
        #expect(report.totals.skipped == 7)
        #expect(temporaryFiles(under: folder.path).isEmpty)
        #expect(try expectValidOutputs(folder.file("out")) == 1)
        let again = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(again.totals.upToDate == 1 && again.totals.converted == 7)
    }

    @Test("temporary files nobody holds locked are removed; those a live run holds are kept, whatever its PID")
    func staleTemporaries() {
        let folder = TempDirectory()
        sourceTree(folder, count: 3)
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1))
        let dead = folder.write("out/.f1.caf.cafconv-2147483000-4.tmp", [1, 2, 3])
        let deadManifest = folder.write("out/..cafconv-manifest.cafconv-2147483001-manifest.tmp", [1])
        let deadNew = folder.write("out/.f3.caf.cafconv-0123456789abcdef.tmp", [1])
        // A run in another PID namespace: its PID means nothing here, but it holds the lock.
        let live = folder.write("out/.f2.caf.cafconv-2147483002-1.tmp", [1, 2, 3])
        let holder = open(live, O_RDONLY)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)
        let foreign = folder.write("out/.notes.tmp", [1])
        let victim = folder.write("victim", [9])
        #expect(symlink(victim, folder.file("out/.x.caf.cafconv-1-1.tmp")) == 0)
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1))
        #expect(!exists(dead) && !exists(deadManifest) && !exists(deadNew))
        #expect(exists(live) && exists(foreign))
        #expect(exists(victim), "a symlink named like a temporary file is never followed")
    }

    @Test("a full disk: a clear per-file error, nothing half-written, the small file still converts", .enabled(if: canMount))
    func fullDisk() throws {
        let disk = try SmallDisk(options: "size=96k")
        let folder = TempDirectory()
        folder.write("in/big.wav", WAVFixture.signal(.int16, channels: 2, frames: 60000).bytes)
        folder.write("in/small.wav", WAVFixture.signal(.int16, channels: 1, frames: 100).bytes)
        let report = Engine.convert(inputs: [folder.file("in")], output: disk.path + "/out", options: ConversionOptions(jobs: 1))
        let big = try #require(report.files.first { $0.input.hasSuffix("big.wav") })
        #expect(big.status == .failed)
        #expect(big.reason?.contains("space") == true, "\(big.reason ?? "")")
        #expect(!exists(disk.path + "/out/big.caf"))
        #expect(report.files.first { $0.input.hasSuffix("small.wav") }?.status == .converted)
        #expect(temporaryFiles(under: disk.path).isEmpty)
        #expect(try expectValidOutputs(disk.path) == 1)
    }

    @Test("a read-only output folder: each file fails clearly and nothing is written", .enabled(if: canMount))
    func readOnly() throws {
        let disk = try SmallDisk(options: "size=64k,ro")
        let folder = TempDirectory()
        sourceTree(folder, count: 2)
        let report = Engine.convert(inputs: [folder.file("in")], output: disk.path, options: ConversionOptions(jobs: 1))
        #expect(report.totals.failed == 2)
        #expect(report.files.allSatisfy { $0.reason?.contains("Read-only file system") == true }, "\(report.files.map(\.reason))")
    }

    @Test("symlinks: files and folders are followed, loops are not, broken links are named")
    func symlinks() throws {
        let folder = TempDirectory()
        folder.write("elsewhere/real.wav", WAVFixture.signal(.int16, channels: 1, frames: 50).bytes)
        folder.write("in/plain.wav", WAVFixture.signal(.int16, channels: 1, frames: 50).bytes)
        symlink(folder.file("elsewhere/real.wav"), folder.file("in/linked.wav"))
        symlink(folder.file("elsewhere"), folder.file("in/linkedfolder"))
        symlink(folder.file("in"), folder.file("in/loop"))
        symlink(folder.file("nowhere.wav"), folder.file("in/broken.wav"))
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1))
        #expect(report.totals.converted == 3)
        #expect(exists(folder.file("out/linked.caf")) && exists(folder.file("out/linkedfolder/real.caf")))
        let broken = try #require(report.files.first { $0.input.hasSuffix("broken.wav") })
        #expect(broken.status == .failed && broken.error == .input(.brokenLink))
        #expect(!exists(folder.file("out/loop")))
    }
}

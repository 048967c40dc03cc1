import Foundation
import TestSupport
import Testing

/// A folder of short files costs the kernel little per file: the block buffers each file's
/// conversion allocates (a few hundred KiB a job) come back from the heap for the next file
/// instead of being mapped, faulted in and zero-filled again (`cafconv_keep_freed_memory`).
/// Counted in page faults, not timed: the count does not depend on the machine's load.
@Suite("memory reused from file to file, end to end")
struct MemoryReuseEndToEndTests {
    /// The minor page faults of `convert -j 1 -d LEF32` over `count` one-second stereo WAVs.
    static func faults(files count: Int) throws -> Int {
        let folder = TempDirectory()
        let samples = (0..<48000).flatMap { frame -> [Int32] in
            let value = Int32((sin(Double(frame) * 2 * .pi * 440 / 48000) * 12000).rounded())
            return [value, -value]
        }
        let wav = WAVFixture(encoding: .int16, channels: 2, sampleRate: 48000, integers: samples).bytes
        for index in 0..<count { _ = folder.write("in/tone\(index).wav", wav) }
        let run = try BoundedProcess.runOutcome(
            RepositoryPaths.executable, ["convert", folder.file("in"), "-o", folder.file("out"), "-q", "-j", "1", "-d", "LEF32"])
        #expect(run.outcome.status == 0, "\(run.stderr)")
        return run.outcome.minorFaults
    }

    @Test("each further file takes fewer page faults than its block buffers span")
    func pageFaultsPerFile() throws {
        let few = try Self.faults(files: 4)
        let many = try Self.faults(files: 24)
        let perFile = Double(many - few) / 20
        // One job's buffers for 65,536 samples: 256 KiB of integers and 512 KiB of doubles for
        // the encoder, as much again for the proof. Each file faulted them in anew before the
        // allocator kept them (~510 faults a file here; ~33 since): what is left is libsndfile's
        // per-file state and the kernel's own bookkeeping.
        #expect(perFile < 120, "\(perFile) page faults per file (\(few) for 4 files, \(many) for 24)")
    }
}

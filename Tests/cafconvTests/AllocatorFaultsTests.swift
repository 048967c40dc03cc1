import Foundation
import TestSupport
import Testing

/// Issue 34, scaling with cores: a conversion's buffers are reused from file to file instead of
/// being handed back to the kernel and faulted in again (Sources/cafconv/Allocator.swift). Counts
/// the kernel's minor page faults of the process (`wait4`'s rusage), not time.
@Suite("Page faults per converted file")
struct AllocatorFaultsTests {
    @Test("a run over many files faults in fresh pages for far fewer files than glibc's defaults do")
    func faultsPerFile() throws {
        let folder = TempDirectory()
        for index in 0..<40 {
            folder.write("in/f\(index).wav", WAVFixture.signal(.int16, channels: 2, frames: 60000 + index, seed: UInt64(index)).bytes)
        }
        var perFile: [String: Double] = [:]
        for allocator in ["cafconv", "glibc"] {
            let environment = allocator == "glibc" ? ["CAFCONV_MALLOC=glibc"] : []
            let one = try Self.minorFaults(
                ["convert", "-q", "-j", "1", folder.file("in/f0.wav"), "-o", folder.file("\(allocator)-one.caf")], environment)
            let all = try Self.minorFaults(
                ["convert", "-q", "-j", "1", folder.file("in"), "-o", folder.file("\(allocator)-all")], environment)
            perFile[allocator] = Double(all - one) / 39
        }
        let tuned = perFile["cafconv"] ?? .infinity
        let glibc = perFile["glibc"] ?? 0
        #expect(tuned * 3 < glibc, "page faults per file: \(perFile)")
    }

    /// The minor page faults of one `cafconv` run (started with posix_spawn, reaped with wait4).
    static func minorFaults(_ arguments: [String], _ environment: [String]) throws -> Int {
        let program = RepositoryPaths.executable
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let inherited = ProcessInfo.processInfo.environment.filter { $0.key != "CAFCONV_MALLOC" }.map { "\($0.key)=\($0.value)" }
        var envp: [UnsafeMutablePointer<CChar>?] = (inherited + environment).map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, nil, nil, &argv, &envp)
        #expect(spawned == 0, "posix_spawn: \(spawned)")
        var status: Int32 = 0
        var usage = rusage()
        #expect(wait4(pid, &status, 0, &usage) == pid)
        #expect(status == 0, "cafconv \(arguments): status \(status)")
        return usage.ru_minflt
    }
}

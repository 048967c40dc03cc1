import Foundation
import TestSupport
import Testing

/// Issue 34: every job commits into the one shared output folder, so the directory operations
/// per output are what the kernel's per-folder lock serializes. Counted with strace (skipped
/// where it is not installed).
@Suite("directory operations per output, counted with strace")
struct CommitSyscallsEndToEndTests {
    static let strace = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let wave = WAVFixture.signal(.int16, channels: 1, frames: 300).bytes
    static let operations = ["link", "linkat", "rename", "renameat", "renameat2", "unlink", "unlinkat", "mknodat"]

    /// The directory operations of `convert arguments` whose arguments name `stem` (an output or
    /// its temporary name), as `syscall(...)` lines.
    func operations(on stem: String, _ arguments: [String], in folder: TempDirectory) throws -> [String] {
        let log = folder.file("strace.log")
        let trace = "trace=" + Self.operations.joined(separator: ",")
        let result = try run(
            "/usr/bin/timeout",
            ["-s", "KILL", "120", try #require(Self.strace), "-f", "-qq", "-e", trace, "-o", log, RepositoryPaths.executable]
                + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let text = String(decoding: try #require(readFile(log)), as: UTF8.self)
        // `-f` starts each line with the thread's id.
        return text.split(separator: "\n").map { line in
            String(line.drop { $0.isNumber }.drop { $0 == " " })
        }.filter { $0.contains(stem) && !$0.contains("resumed") }
    }

    @Test(
        "a new output costs one directory operation (linkat to its name); replacing one is an exchange, never a plain rename",
        .enabled(if: strace != nil, "strace is not installed"))
    func directoryOperationsPerOutput() throws {
        let folder = TempDirectory()
        folder.write("in/kick.wav", Self.wave)
        let arguments = ["convert", "-q", "-j", "1", "-d", "LEI16", folder.file("in"), "-o", folder.file("out")]
        let first = try operations(on: "kick", arguments, in: folder)
        #expect(first.count == 1, "\(first)")
        #expect(first.first?.contains("linkat(") == true && first.first?.contains("\"kick.caf\"") == true, "\(first)")
        #expect(readFile(folder.file("out/kick.caf")) != nil)

        let again = try operations(on: "kick", ["convert", "--force"] + arguments.dropFirst(), in: folder)
        #expect(again.count == 3, "\(again)")
        #expect(again.contains { $0.hasPrefix("renameat2(") && $0.contains("RENAME_EXCHANGE") }, "\(again)")
        #expect(!again.contains { $0.hasPrefix("rename(") || $0.hasPrefix("renameat(") }, "\(again)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("out")).filter { $0.contains("kick") }
        #expect(names == ["kick.caf"], "a temporary file was left: \(names)")
    }
}

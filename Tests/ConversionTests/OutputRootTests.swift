import BinaryIO
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

#if canImport(Glibc)
    import Glibc
#endif

/// The output root is opened once per run and used by descriptor; temporary files are never at a
/// name someone can plant (issue 28).
@Suite("output roots and depfiles against a hostile folder")
struct OutputRootTests {
    static let wave = WAVFixture.signal(.int16, channels: 1, frames: 300).bytes

    func names(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    @Test("an output folder swapped for a symlink mid-run: later files never go where the link points")
    func rootSwappedMidRun() throws {
        let folder = TempDirectory()
        for index in 0..<4 { folder.write("in/s\(index).wav", Self.wave) }
        let output = folder.file("od")
        let elsewhere = folder.file("elsewhere")
        try #require(mkdir(elsewhere, 0o755) == 0)
        let swapped = Atomic<Bool>(false)
        let report = Engine.run(inputs: [folder.file("in")], output: output, options: ConversionOptions(jobs: 1)) {
            step in
            guard step.result.status == .converted, !swapped.exchange(true, ordering: .relaxed) else { return }
            _ = rename(output, output + ".moved")
            _ = symlink(elsewhere, output)
        }
        let didSwap = swapped.load(ordering: .relaxed)
        #expect(didSwap)
        #expect(names(elsewhere).isEmpty, "written into the symlink's target: \(names(elsewhere))")
        let converted = report.files.filter { $0.status == .converted }
        #expect(converted.count == 1, "\(report.files.map { "\($0.output ?? ""): \($0.status) \($0.reason ?? "")" })")
        // The files after the swap, and the manifest's save, fail: the report names no place a file is not.
        for file in report.files where file.status == .failed {
            let moved = ConversionError.output(.rootMoved(path: output))
            let manifest = ConversionError.manifest(.notRecorded(.manifest(.notWrittenBecause(moved))))
            #expect(file.error == moved || file.error == manifest, "\(file.reason ?? "")")
        }
        #expect(report.files.filter { $0.status == .failed && $0.code == .output }.count == 3)
    }

    @Test("the depfile's temporary file is not at a name anyone can plant: a hard link there is never written through")
    func depfileTemporaryIsUnguessable() throws {
        let folder = TempDirectory()
        let outside = folder.write("outside.txt", Array("keep me\n".utf8))
        let depfile = folder.file("deps.d")
        // The name the temporary file used to have: PATH.cafconv-PID.tmp.
        try #require(link(outside, depfile + ".cafconv-\(getpid()).tmp") == 0)
        try Depfile.write(Array("out.caf: in.wav\n".utf8), to: depfile)
        #expect(readFile(outside) == Array("keep me\n".utf8), "wrote through a planted hard link")
        #expect(readFile(depfile) == Array("out.caf: in.wav\n".utf8))
        #expect(names(folder.path).filter { $0.hasPrefix(".deps.d") }.isEmpty, "temporary file left")
    }

    @Test("a depfile path held by a symlink is refused and the link's target kept")
    func depfileSymlinkRefused() throws {
        let folder = TempDirectory()
        let outside = folder.write("outside.txt", Array("keep me\n".utf8))
        let depfile = folder.file("deps.d")
        try #require(symlink(outside, depfile) == 0)
        #expect(throws: ConversionError.self) { try Depfile.write(Array("out.caf: in.wav\n".utf8), to: depfile) }
        #expect(readFile(outside) == Array("keep me\n".utf8))
        var info = stat()
        #expect(lstat(depfile, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
    }
}

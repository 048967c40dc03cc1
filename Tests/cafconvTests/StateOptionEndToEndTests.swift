import Foundation
import TestSupport
import Testing

/// State only where it helps (issue 32): `--no-state` for folder runs, and a warning for a
/// single output file whose name does not say CAF.
@Suite("convert --no-state and output names, end to end")
struct StateOptionEndToEndTests {
    @Test("--no-state: a folder run writes no .cafconv-manifest and converts everything again")
    func noState() throws {
        let folder = TempDirectory()
        _ = folder.write("in/a.wav", WAVFixture.signal(.int16, channels: 1, frames: 500).bytes)
        _ = folder.write("in/b.wav", WAVFixture.signal(.int16, channels: 2, frames: 500).bytes)
        let arguments = ["convert", "--no-state", folder.file("in"), "-o", folder.file("out")]
        for _ in 0..<2 {
            let result = try run(RepositoryPaths.executable, arguments)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("2 converted"), "\(result.stderr)")
        }
        #expect(exists(folder.file("out/a.caf")) && exists(folder.file("out/b.caf")))
        #expect(!exists(folder.file("out/.cafconv-manifest")))
        // Beside the inputs too.
        let beside = try run(RepositoryPaths.executable, ["convert", "--no-state", folder.file("in")])
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(!exists(folder.file("in/.cafconv-manifest")))
        // --check and --prune need the manifest.
        for option in ["--check", "--prune"] {
            let refused = try run(RepositoryPaths.executable, arguments + [option])
            #expect(refused.status == 64, "\(refused.stderr)")
            #expect(refused.stderr.contains("--no-state"), "\(refused.stderr)")
        }
    }

    @Test("convert -o alert.wav writes CAF and warns that the name does not end in .caf; -o alert.caf does not")
    func outputName() throws {
        let folder = TempDirectory()
        let input = folder.write("alert-source.wav", WAVFixture.signal(.int16, channels: 1, frames: 500).bytes)
        let named = try run(RepositoryPaths.executable, ["convert", input, "-o", folder.file("alert.wav")])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stderr.contains("warning: \(folder.file("alert.wav")): the output is a CAF file"), "\(named.stderr)")
        #expect(readFile(folder.file("alert.wav"))?.starts(with: Array("caff".utf8)) == true)
        let plain = try run(RepositoryPaths.executable, ["convert", input, "-o", folder.file("alert.caf")])
        #expect(plain.status == 0 && !plain.stderr.contains("warning"), "\(plain.stderr)")
    }
}

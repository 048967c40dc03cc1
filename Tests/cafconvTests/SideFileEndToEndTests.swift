import Foundation
import TestSupport
import Testing

/// Issue 34 probe, finding 1: `--depfile`, `--report` and the `-o` of one input file never
/// overwrite an input, the rules file, an output, a manifest or each other.
@Suite("Files written besides the outputs never overwrite one the run reads or writes")
struct SideFileEndToEndTests {
    /// A source `a.wav`, a rules file `r.toml` and a folder input `F/src` with `b.wav`.
    func project(_ folder: TempDirectory) {
        folder.write("a.wav", WAVFixture.signal(.int16, channels: 2, frames: 300, seed: 1).bytes)
        folder.write("F/src/b.wav", WAVFixture.signal(.int16, channels: 1, frames: 300, seed: 2).bytes)
        folder.write("r.toml", Array("[defaults]\nformat = \"LEI16\"\n".utf8))
    }

    func contents(_ folder: TempDirectory) -> [String: Data] {
        var result: [String: Data] = [:]
        for name in ["a.wav", "F/src/b.wav", "r.toml", "F/out/b.caf", "F/out/.cafconv-manifest"] {
            result[name] = FileManager.default.contents(atPath: folder.file(name))
        }
        return result
    }

    @Test("--depfile, --report or -o naming a source, the rules file, an output, a manifest or each other: exit 64, nothing written")
    func refused() throws {
        let folder = TempDirectory()
        project(folder)
        let first = try run(RepositoryPaths.executable, ["convert", "-q", "F/src", "-o", "F/out"], currentDirectory: folder.path)
        #expect(first.status == 0, "\(first.stderr)")
        try FileManager.default.createDirectory(atPath: folder.file("x"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.file("link.wav"), withDestinationPath: "a.wav")
        let cases: [([String], String)] = [
            (["a.wav", "-o", "a.caf", "--depfile", "a.wav"], "is the input a.wav"),
            (["a.wav", "-o", "a.caf", "--depfile", "link.wav"], "is the input a.wav"),
            (["a.wav", "-o", "a.caf", "--report", "x/../a.wav"], "is the input a.wav"),
            (["a.wav", "-o", "b.caf", "--depfile", "./b.caf"], "is the output b.caf"),
            (["--rules", "r.toml", "a.wav", "-o", "c.caf", "--depfile", "r.toml"], "is the rules file r.toml"),
            (["--rules", "r.toml", "a.wav", "-o", "r.toml"], "-o r.toml is the rules file r.toml"),
            (["a.wav", "-o", "v.caf", "--depfile", "v.d", "--report", "./v.d"], "is the same file as --depfile v.d"),
            (["F/src", "-o", "F/out", "--depfile", "F/out/b.caf"], "would be an output inside the output folder F/out"),
            (["F/src", "-o", "F/out", "--depfile", "F/out/.cafconv-manifest"], "would be cafconv's state file"),
            (["F/src", "-o", "F/out", "--report", "F/src/b.wav"], "is an audio file inside the input folder F/src"),
            // Without -o, the CAF written beside its source.
            (["a.wav", "--report", "a.caf"], "is the output a.caf of a.wav"),
            (["a.wav", "--depfile", "./a.caf"], "is the output a.caf of a.wav"),
        ]
        let before = contents(folder)
        for (arguments, message) in cases {
            let result = try run(RepositoryPaths.executable, ["convert"] + arguments, currentDirectory: folder.path)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(contents(folder) == before, "\(arguments) changed a file")
            for name in ["a.caf", "b.caf", "c.caf", "v.caf", "v.d"] { #expect(!exists(folder.file(name)), "\(arguments): \(name)") }
        }
        // Side files of their own are written as before.
        let fine = try run(
            RepositoryPaths.executable, ["convert", "-q", "F/src", "-o", "F/out", "--depfile", "F/out.d", "--report", "F/out.html"],
            currentDirectory: folder.path)
        #expect(fine.status == 0 && exists(folder.file("F/out.d")) && exists(folder.file("F/out.html")), "\(fine.stderr)")
    }
}

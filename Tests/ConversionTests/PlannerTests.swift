import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Planning: folders, mirroring, names")
struct PlannerTests {
    static let wav = WAVFixture.signal(.int16, channels: 1, frames: 10).bytes

    @Test("a folder tree is mirrored under -o; audio extensions are picked up (a WAV named .aiff too: content decides)")
    func mirrors() {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wav)
        folder.write("in/B.WAV", Self.wav)
        folder.write("in/deep/er/c.wave", Self.wav)
        folder.write("in/notes.txt", Array("x".utf8))
        folder.write("in/d.aiff", Self.wav)
        let plan = Planner.plan(inputs: [folder.file("in")], output: folder.file("out"))
        #expect(plan.failures.isEmpty)
        #expect(
            plan.jobs.map(\.output) == [
                folder.file("out/B.caf"), folder.file("out/a.caf"), folder.file("out/d.caf"), folder.file("out/deep/er/c.caf"),
            ])
        #expect(plan.ignored.map(\.input) == [folder.file("in/notes.txt")])
    }

    /// The walk takes a file's or folder's kind from the directory listing (`d_type`) and
    /// `stat`s only the rest: symlinks to files and folders are still followed, a FIFO and a
    /// broken link still fail by name, in the listing's order.
    @Test("symlinks, a FIFO and a broken link in a walked folder: followed or refused as stat(2) sees them")
    func walkKinds() {
        let folder = TempDirectory()
        folder.write("real/r.wav", Self.wav)
        folder.write("in/a.wav", Self.wav)
        symlink(folder.file("real/r.wav"), folder.file("in/b.wav"))
        symlink(folder.file("real"), folder.file("in/c"))
        symlink(folder.file("nowhere.wav"), folder.file("in/d.wav"))
        mkfifo(folder.file("in/e.wav"), 0o600)
        let plan = Planner.plan(inputs: [folder.file("in")], output: folder.file("out"))
        #expect(
            plan.jobs.map(\.output) == [folder.file("out/a.caf"), folder.file("out/b.caf"), folder.file("out/c/r.caf")])
        #expect(plan.failures.map(\.input) == [folder.file("in/d.wav"), folder.file("in/e.wav")])
        #expect(plan.failures.map(\.reason) == [FileResult.failed("", error: .input(.brokenLink)).reason, FileResult.failed("", error: .input(.specialFileInFolder)).reason])
    }

    @Test("without -o each output sits beside its input")
    func beside() {
        let folder = TempDirectory()
        folder.write("in/x/kick.wav", Self.wav)
        let plan = Planner.plan(inputs: [folder.file("in")], output: nil)
        #expect(plan.jobs == [Job(input: folder.file("in/x/kick.wav"), output: folder.file("in/x/kick.caf"))])
    }

    @Test("one file with -o: a file path, or into an existing folder")
    func singleFile() {
        let folder = TempDirectory()
        let input = folder.write("snare.wav", Self.wav)
        #expect(Planner.plan(inputs: [input], output: folder.file("x.caf")).jobs.map(\.output) == [folder.file("x.caf")])
        folder.write("dest/.keep", [])
        #expect(Planner.plan(inputs: [input], output: folder.file("dest")).jobs.map(\.output) == [folder.file("dest/snare.caf")])
    }

    @Test("two inputs that map to one output: both fail, naming each other")
    func clash() {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wav)
        folder.write("in/a.wave", Self.wav)
        let plan = Planner.plan(inputs: [folder.file("in")], output: folder.file("out"))
        #expect(plan.jobs.isEmpty)
        #expect(plan.failures.count == 2)
        #expect(
            plan.failures.first?.error
                == .output(.sameOutput(others: [folder.file("in/a.wave")], output: folder.file("out/a.caf"))))
    }

    @Test("a missing input is a failure, not a crash")
    func missing() {
        let plan = Planner.plan(inputs: ["/nonexistent/nothing.wav"], output: nil)
        #expect(plan.jobs.isEmpty)
        #expect(plan.failures.first?.error == .input(.missing))
    }

    @Test("an output folder inside the input tree is not walked")
    func outputInsideInput() throws {
        let folder = TempDirectory()
        folder.write("in/a.wav", Self.wav)
        folder.write("in/out/old.wav", Self.wav)
        let plan = Planner.plan(inputs: [folder.file("in")], output: folder.file("in/out"))
        #expect(plan.jobs.map(\.input) == [folder.file("in/a.wav")])
    }

    @Test("one file into -o NAME whose extension is not .caf: the plan carries the typed warning")
    func outputNotNamedCAF() {
        let folder = TempDirectory()
        let input = folder.write("alert.wav", Self.wav)
        let plan = Planner.plan(inputs: [input], output: folder.file("alert-out.wav"))
        #expect(plan.hermetic)
        #expect(plan.warnings == [.outputNotNamedCAF(path: folder.file("alert-out.wav"))])
        #expect(Planner.plan(inputs: [input], output: folder.file("alert.CAF")).warnings.isEmpty)
        #expect(Planner.plan(inputs: [input], output: nil).warnings.isEmpty)
    }
}

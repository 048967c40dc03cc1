import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

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

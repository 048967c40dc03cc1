@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// The input, output and manifest failures and the run warnings render to the sentences cafconv
/// has always printed (scripts and people read them): each case with its code, word for word.
@Suite("Run failures and warnings: one sentence per case")
struct RunFailureSentenceTests {
    static let noEntry = String(cString: strerror(ENOENT))

    @Test("input failures: code input, the sentences as before")
    func input() {
        let cases: [(InputFailure, String)] = [
            (.missing, "no such file or folder"),
            (.notFileOrFolder, "not a regular file or folder"),
            (.nothingFound(extensions: ["wav", "aif"], leftOut: 0), "no audio files found (*.wav, *.aif, searched recursively)"),
            (
                .nothingFound(extensions: ["wav"], leftOut: 2),
                "no audio files found (*.wav, searched recursively); 2 left out by --include/--exclude"
            ),
            (.specialFileInFolder, "not a regular file (a FIFO, socket or device); not read"),
            (.brokenLink, "broken symbolic link: its target is missing or the link loops"),
            (.notRegularFile, "not a regular file (a FIFO, socket, device or folder); not read"),
        ]
        for (failure, sentence) in cases {
            #expect(ConversionError.input(failure).message == sentence)
            #expect(ConversionError.input(failure).code == .input)
        }
        #expect(Planner.nothingFound.hasPrefix("no audio files found (*.wav, *.wave, "))
    }

    @Test("output failures: code output (a depfile's keeps its reason's), paths shown escaped")
    func output() {
        let raw = "out/bad\u{10FFFF}"
        let cases: [(OutputFailure, String)] = [
            (.folderNotCreated(path: "out/a", errno: ENOENT), "cannot create folder out/a: \(Self.noEntry)"),
            (.fileInTheWay(path: raw), "cannot create folder out/bad\\xFF: a file is in the way"),
            (.folderNotOpened(path: "out", errno: ENOENT), "cannot open folder out: \(Self.noEntry)"),
            (
                .symbolicLink(path: "out/l"),
                "out/l is a symbolic link; cafconv never follows links inside an output folder"
            ),
            (.notReplaceable(path: "out/x.caf", kind: .fifo), "out/x.caf is a FIFO; cafconv replaces only regular files"),
            (.replaced(path: "out/.t"), "cannot open out/.t: it was replaced by something else"),
            (.temporaryNotCreated(folder: "out", errno: ENOENT), "cannot create a file in out: \(Self.noEntry)"),
            (.temporaryNotOpened(errno: ENOENT), "cannot open the temporary file: \(Self.noEntry)"),
            (.temporaryReplaced(path: "out/.t"), "the temporary file out/.t was replaced by someone else"),
            (
                .rootMoved(path: "out"),
                "the output folder out was moved or replaced during the run; nothing written there"
            ),
            (.notMovedIntoPlace(errno: ENOENT), "cannot move the finished file into place: \(Self.noEntry)"),
            (
                .outputIsSource,
                "its output would be the source itself; a CAF source is never overwritten: convert it into another folder with -o"
            ),
            (.outputIsAnInput(output: "a.caf"), "the output path a.caf is an input; refusing to overwrite it"),
            (
                .sameOutput(others: ["a.aif"], output: "out/a.caf"),
                "a.aif is also converted to out/a.caf; none of them is converted: rename one or narrow the inputs with --exclude"
            ),
            (
                .sameOutput(others: ["a.aif", "a.flac"], output: "out/a.caf"),
                "a.aif, a.flac are also converted to out/a.caf; none of them is converted: rename one or narrow the inputs with --exclude"
            ),
        ]
        for (failure, sentence) in cases {
            #expect(ConversionError.output(failure).message == sentence)
            #expect(ConversionError.output(failure).code == .output)
        }
        let reopened = OutputFailure.notReopened(path: "out/.t", errno: ENOENT)
        #expect(reopened.message == "cannot open out/.t: \(Self.noEntry)" && reopened.code == .io)
        let depfile = OutputFailure.depfileNotWritten(.io(errno: ENOENT, doing: "writing failed"))
        #expect(depfile.message == "cannot write the depfile: writing failed: \(Self.noEntry)")
        #expect(depfile.code == .io)
    }

    @Test("manifest failures: code manifest, a nested reason's sentence kept")
    func manifest() {
        let cases: [(ManifestFailure, String)] = [
            (.leftAlone(.notAManifest), "it is not a cafconv manifest; it is left alone (move it away to record again)"),
            (.leftAlone(.notRegularFile), "it is not a regular file; it is left alone (move it away to record again)"),
            (
                .leftAlone(.unreadable(errno: EACCES)),
                "it cannot be read: \(String(cString: strerror(EACCES))); it is left alone (move it away to record again)"
            ),
            (.notWritten(errno: ENOSPC), "cannot write it: \(String(cString: strerror(ENOSPC)))"),
            (.notWrittenBecause(.output(.notMovedIntoPlace(errno: ENOENT))), "cannot write it: cannot move the finished file into place: \(Self.noEntry)"),
            (.vanished, "cannot write it: it vanished"),
            (
                .notRecorded(.manifest(.leftAlone(.notAManifest))),
                "cannot record what was converted: it is not a cafconv manifest; it is left alone (move it away to record again)"
            ),
        ]
        for (failure, sentence) in cases {
            #expect(ConversionError.manifest(failure).message == sentence)
            #expect(ConversionError.manifest(failure).code == .manifest)
        }
        #expect(ConversionError.interrupted.message == "interrupted" && ConversionError.interrupted.code == .interrupted)
    }

    @Test("run warnings: the sentences as before")
    func warnings() {
        let cases: [(RunWarning, String)] = [
            (
                .manifestLeftAlone(path: "out/.cafconv-manifest", why: .notAManifest),
                "out/.cafconv-manifest is not a cafconv manifest: it is left alone, and nothing can be recorded"
            ),
            (
                .outputFolderInsideInputs(path: "in/out"),
                "in/out is the output folder, inside the input tree: it is not searched for inputs"
            ),
            (
                .patternMatchesNothing(rules: "in/cafconv.toml", line: 3, glob: "voice/**"),
                "in/cafconv.toml:3: match 'voice/**' matches no file"
            ),
        ]
        for (warning, sentence) in cases { #expect(ConversionWarning.run(warning).message == sentence) }
    }

    @Test("the file-system layer throws the cases with their data")
    func fileSystemSites() throws {
        let folder = TempDirectory()
        let missing = folder.file("gone.tmp")
        #expect(throws: ConversionError.output(.notReopened(path: missing, errno: ENOENT))) {
            try FileSystem.openForUpdate(missing)
        }
        let file = folder.write("file", [1])
        #expect(throws: ConversionError.output(.fileInTheWay(path: file))) { try FileSystem.makeDirectories(file) }
        let fifo = folder.file("pipe.wav")
        try #require(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ConversionError.input(.notRegularFile)) { try FileSystem.openForReading(fifo) }
    }
}

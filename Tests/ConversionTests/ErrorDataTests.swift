@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import SndFile
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Conversion errors keep the data of their cause: libsndfile's error number, `errno` and the
/// path; `message` and `code` render every case in one place.
@Suite("Failure data")
struct ErrorDataTests {
    @Test("an io case keeps errno and the path; its sentence is what it did and strerror")
    func ioCase() {
        let error = ConversionError.io(errno: ENOENT, doing: "cannot open it", path: "/x")
        #expect(error.code == .io)
        #expect(error.message == "cannot open it: No such file or directory")
        #expect(error.description == error.message)
        guard case .io(let number, _, let path) = error else { Issue.record("not io"); return }
        #expect(number == ENOENT && path == "/x")
    }

    @Test("a libsndfile case keeps libsndfile's number and message; a typed case gives its area's code and sentence")
    func libsndfileAndOtherCases() {
        let error = ConversionError.libsndfile(code: 1, message: "Format not recognised.", doing: "reading failed")
        #expect(error.code == .libsndfile && error.message == "reading failed: Format not recognised.")
        let other = ConversionError.proof(.frameDiffers(frame: 7))
        #expect(other.code == .proof)
        #expect(other.message == "the written CAF failed verification: frame 7 differs from the source's decoding")
    }

    @Test("a failed system call reaches the error with its errno and path")
    func realSystemCall() throws {
        let folder = TempDirectory()
        let missing = folder.file("missing.wav")
        do {
            _ = try FileSystem.openForReading(missing)
            Issue.record("opened a missing file")
        } catch {
            guard case .io(let number, let doing, let path) = error else { Issue.record("\(error)"); return }
            #expect(number == ENOENT && doing == "cannot open it" && path == missing)
            #expect(error.message == "cannot open it: No such file or directory")
        }
    }

    @Test("libsndfile's error number survives in SndFileError")
    func libsndfileNumber() throws {
        let folder = TempDirectory()
        let text = folder.write("notes.wav", Array("this is not a sound file, only some text".utf8))
        do {
            _ = try SoundFile.open(readingFrom: text)
            Issue.record("libsndfile opened a text file")
        } catch {
            // SF_ERR_UNRECOGNISED_FORMAT: libsndfile's own number for a file it does not know.
            #expect(error.code == 1, "\(error.message)")
        }
    }

    @Test("a record takes its reason and its code from the error, in one place")
    func recordTakesBoth() throws {
        let error = ConversionError.io(errno: EACCES, doing: "cannot open it", path: "/x")
        let result = FileResult.failed("/x", error: error)
        #expect(result.status == .failed && result.reason == error.message && result.code == .io)
        let typed = FileResult.failed("/x", error: .manifest(.vanished))
        #expect(typed.reason == ManifestFailure.vanished.message && typed.code == .manifest)
    }
}

import Foundation
import TestSupport
import Testing

/// libsndfile and libsoxr are opened with dlopen when a run first needs them, not linked: runs
/// that do not need them start without them, and a library that cannot be loaded fails the files
/// that need it with the reason, never the process.
@Suite("libsndfile and libsoxr loaded on first use, end to end")
struct LibraryLoadingEndToEndTests {
    /// A folder holding files named like the libraries that are not libraries: with it first on
    /// `LD_LIBRARY_PATH`, dlopen finds them and refuses them.
    static func brokenLibraries(_ folder: TempDirectory, _ names: [String]) -> [String: String] {
        for name in names { _ = folder.write("lib/" + name, Array("not a shared library\n".utf8)) }
        return ["LD_LIBRARY_PATH": folder.file("lib")]
    }

    @Test("without libsndfile and libsoxr, the binary still starts, and info, --version and up-to-date runs work")
    func startsWithoutThem() throws {
        let folder = TempDirectory()
        let wav = folder.write("in/a.wav", WAVFixture.signal(.int16, channels: 1, frames: 500).bytes)
        let caf = folder.file("out/a.caf")
        // A folder run: it keeps a manifest (a single file with -o FILE keeps none, and always converts).
        let made = try run(RepositoryPaths.executable, ["convert", "-q", folder.file("in"), "-o", folder.file("out")])
        #expect(made.status == 0, "\(made.stderr)")
        let broken = Self.brokenLibraries(folder, ["libsndfile.so.1", "libsoxr.so.0"])
        let version = try run(RepositoryPaths.executable, ["--version"], environment: broken)
        #expect(version.status == 0, "\(version.stderr)")
        let info = try run(RepositoryPaths.executable, ["info", "--brief", wav, caf], environment: broken)
        #expect(info.status == 0 && info.text.contains("a.caf"), "\(info.stderr)")
        let again = try run(
            RepositoryPaths.executable, ["convert", folder.file("in"), "-o", folder.file("out")], environment: broken)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("1 up to date"), "\(again.stderr)")
    }

    @Test("a libsndfile that cannot be loaded fails each file with the reason, and leaves nothing behind")
    func brokenLibsndfile() throws {
        let folder = TempDirectory()
        for name in ["a.wav", "b.wav"] {
            _ = folder.write("in/" + name, WAVFixture.signal(.int16, channels: 2, frames: 300).bytes)
        }
        let broken = Self.brokenLibraries(folder, ["libsndfile.so.1"])
        let result = try run(
            RepositoryPaths.executable, ["convert", folder.file("in"), "-o", folder.file("out")], environment: broken)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("libsndfile.so.1 cannot be loaded"), "\(result.stderr)")
        #expect(result.stderr.contains("a.wav") && result.stderr.contains("b.wav"), "\(result.stderr)")
        #expect(result.stderr.contains("0 converted, 2 failed"), "\(result.stderr)")
        #expect(!exists(folder.file("out/a.caf")) && !exists(folder.file("out/b.caf")))
        #expect(temporaryFiles(under: folder.file("out")).isEmpty)
    }

    @Test("a libsoxr that cannot be loaded fails only the files that are resampled, with the reason")
    func brokenLibsoxr() throws {
        let folder = TempDirectory()
        let wav = folder.write("a.wav", WAVFixture.signal(.int16, channels: 2, frames: 300, sampleRate: 48000).bytes)
        let broken = Self.brokenLibraries(folder, ["libsoxr.so.0"])
        let resampled = try run(
            RepositoryPaths.executable, ["convert", wav, "-d", "LEI16@22050", "-o", folder.file("r.caf")],
            environment: broken)
        #expect(resampled.status == 1, "\(resampled.stderr)")
        #expect(resampled.stderr.contains("libsoxr.so.0 cannot be loaded"), "\(resampled.stderr)")
        #expect(!exists(folder.file("r.caf")))
        let kept = try run(
            RepositoryPaths.executable, ["convert", wav, "-d", "LEI16", "-c", "1", "-o", folder.file("m.caf")],
            environment: broken)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(exists(folder.file("m.caf")))
    }
}

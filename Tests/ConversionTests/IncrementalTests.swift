import BinaryIO
import CAFKit
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

/// Size and nanosecond modification time of a file, to prove it was not touched.
func stamp(_ path: String) -> [Int64]? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
}

/// Every file name under `path`, relative, sorted (hidden files included).
func tree(_ path: String) -> [String] {
    guard let names = FileManager.default.subpaths(atPath: path) else { return [] }
    return names.filter { !isFolder(path + "/" + $0) }.sorted()
}

func isFolder(_ path: String) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
}

/// A folder `in/` of `count` small WAV files, some in subfolders.
func sourceTree(_ folder: TempDirectory, count: Int = 6, frames: Int = 500) {
    for index in 0..<count {
        let name = index % 3 == 0 ? "in/sub/f\(index).wav" : "in/f\(index).wav"
        folder.write(name, WAVFixture.signal(.int16, channels: 2, frames: frames, seed: UInt64(index)).bytes)
    }
}

func statuses(_ report: ConversionReport) -> [String: FileResult.Status] {
    Dictionary(report.files.map { (($0.output ?? $0.input), $0.status) }, uniquingKeysWith: { first, _ in first })
}

@Suite("Incremental runs: manifest, up to date, force, dry run, orphans")
struct IncrementalTests {
    let options = ConversionOptions(jobs: 2)

    @Test("a re-run converts nothing and touches no output; the manifest records every output")
    func rerunIsNoOp() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let first = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(first.totals.converted == 6)
        let manifest = try #require(readFile(folder.file("out/.cafconv-manifest")))
        let lines = String(decoding: manifest, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 8 && lines.first == "cafconv-manifest 3" && lines.last?.hasPrefix("end ") == true)
        let before = tree(folder.file("out")).map { stamp(folder.file("out/" + $0)) }
        let second = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(second.totals.upToDate == 6)
        #expect(second.totals.converted == 0)
        #expect(second.files.allSatisfy { $0.status == .upToDate && $0.formatOut == "LEI16" && $0.frames == 500 })
        #expect(tree(folder.file("out")).map { stamp(folder.file("out/" + $0)) } == before)
    }

    @Test("a changed source, a missing output, a changed output and changed options are converted again")
    func outOfDate() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let input = folder.file("in")
        let output = folder.file("out")
        _ = Engine.convert(inputs: [input], output: output, options: options)
        folder.write("in/f1.wav", WAVFixture.signal(.int16, channels: 2, frames: 501).bytes)
        unlink(folder.file("out/f2.caf"))
        writeFile(folder.file("out/f4.caf"), Array("user edit".utf8))
        let report = Engine.convert(inputs: [input], output: output, options: options)
        let byOutput = statuses(report)
        #expect(byOutput[folder.file("out/f1.caf")] == .converted)
        #expect(byOutput[folder.file("out/f2.caf")] == .converted)
        #expect(byOutput[folder.file("out/f4.caf")] == .converted)
        #expect(report.totals.converted == 3 && report.totals.upToDate == 3)
        let bytes = try #require(readFile(folder.file("out/f4.caf")))
        #expect(CAFValidator.validate(try CAFFile(reading: MemoryByteSource(bytes))).isEmpty)

        let bigEndian = ConversionOptions(endian: .big, jobs: 2)
        #expect(Engine.convert(inputs: [input], output: output, options: bigEndian).totals.converted == 6)
        #expect(Engine.convert(inputs: [input], output: output, options: bigEndian).totals.upToDate == 6)
        // -j does not change the bytes, so it does not make anything out of date.
        #expect(
            Engine.convert(inputs: [input], output: output, options: ConversionOptions(endian: .big, jobs: 1)).totals
                .upToDate == 6)
    }

    @Test("--force converts everything again")
    func force() {
        let folder = TempDirectory()
        sourceTree(folder)
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        let report = Engine.convert(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 2, force: true))
        #expect(report.totals.converted == 6)
    }

    @Test("a dry run writes nothing and says what would be converted and why")
    func dryRun() {
        let folder = TempDirectory()
        sourceTree(folder)
        let dry = ConversionOptions(jobs: 2, dryRun: true)
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: dry)
        #expect(report.totals.outOfDate == 6)
        #expect(report.files.allSatisfy { $0.status == .outOfDate && $0.reason == "no output yet" })
        #expect(!exists(folder.file("out")))
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        folder.write("in/f1.wav", WAVFixture.signal(.int16, channels: 2, frames: 7).bytes)
        let manifest = readFile(folder.file("out/.cafconv-manifest"))
        let again = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: dry)
        #expect(again.totals.outOfDate == 1 && again.totals.upToDate == 5)
        #expect(again.files.first { $0.status == .outOfDate }?.reason == "the source changed")
        #expect(readFile(folder.file("out/.cafconv-manifest")) == manifest)
        #expect(!again.isCurrent)
    }

    @Test("outputs whose source is gone are orphaned; --prune deletes only the .caf files cafconv recorded")
    func orphans() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let input = folder.file("in")
        let output = folder.file("out")
        _ = Engine.convert(inputs: [input], output: output, options: options)
        folder.write("out/mine.caf", Array("not made by cafconv".utf8))
        unlink(folder.file("in/f1.wav"))
        unlink(folder.file("in/sub/f3.wav"))
        unlink(folder.file("in/f2.wav"))
        writeFile(folder.file("out/f2.caf"), Array("edited by hand".utf8))
        let report = Engine.convert(inputs: [input], output: output, options: options)
        #expect(report.totals.orphaned == 3)
        #expect(report.files.filter { $0.status == .orphaned }.map(\.input).allSatisfy { $0.hasSuffix(".wav") })
        #expect(exists(folder.file("out/f1.caf")))
        let pruneDry = Engine.convert(
            inputs: [input], output: output, options: ConversionOptions(jobs: 2, dryRun: true, prune: true))
        #expect(pruneDry.totals.orphaned == 3 && exists(folder.file("out/f1.caf")))
        let pruned = Engine.convert(inputs: [input], output: output, options: ConversionOptions(jobs: 2, prune: true))
        #expect(pruned.totals.pruned == 2)
        #expect(!exists(folder.file("out/f1.caf")))
        #expect(!exists(folder.file("out/sub/f3.caf")))
        #expect(exists(folder.file("out/f2.caf")), "changed by hand: kept")
        #expect(pruned.files.first { $0.output == folder.file("out/f2.caf") }?.status == .orphaned)
        #expect(exists(folder.file("out/mine.caf")), "never recorded: never deleted")
        #expect(exists(folder.file("out/sub/f0.caf")))
    }

    @Test(
        "a run of files given by name looks only at its own records; a missing input at the records of its source; --prune at all")
    func orphanScope() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let output = folder.file("out")
        _ = Engine.convert(inputs: [folder.file("in")], output: output, options: options)
        unlink(folder.file("in/f1.wav"))
        unlink(folder.file("in/f2.wav"))
        // One file into the shared folder (as a build rule runs it), by file name and into the folder.
        for target in [folder.file("out/f4.caf"), output] {
            let one = Engine.convert(
                inputs: [folder.file("in/f4.wav")], output: target, options: ConversionOptions(jobs: 1, force: true))
            #expect(one.totals.converted == 1 && one.totals.orphaned == 0, "\(one.files.map(\.status))")
            #expect(one.files.count == 1)
        }
        let checked = Engine.convert(
            inputs: [folder.file("in/f4.wav"), folder.file("in/f5.wav")], output: output,
            options: ConversionOptions(jobs: 1, dryRun: true))
        #expect(checked.totals.orphaned == 0 && checked.totals.upToDate == 2)
        let kept = Manifest.load(folder: output).entries.keys.map(\.text)
        #expect(kept.contains("f1.caf") && kept.contains("f2.caf"), "records of other files are kept: \(kept)")
        // A missing input names the records made from it, and only those.
        let missing = Engine.convert(inputs: [folder.file("in/f1.wav")], output: output, options: options)
        #expect(missing.files.filter { $0.status == .orphaned }.map(\.output) == [folder.file("out/f1.caf")])
        // The folder run still reports both.
        #expect(Engine.convert(inputs: [folder.file("in")], output: output, options: options).totals.orphaned == 2)
        // --prune with a file input into the folder prunes the whole output folder's orphans (a
        // file input with -o naming the output file keeps no state: issue 34's single-file mode).
        let pruned = Engine.convert(
            inputs: [folder.file("in/f4.wav")], output: output,
            options: ConversionOptions(jobs: 1, prune: true))
        #expect(pruned.totals.pruned == 2 && !exists(folder.file("out/f1.caf")) && !exists(folder.file("out/f2.caf")))
    }

    @Test("an empty input (a build variable that expanded to nothing) answers for no record")
    func emptyMissingInput() throws {
        let folder = TempDirectory()
        sourceTree(folder)
        let output = folder.file("out")
        _ = Engine.convert(inputs: [folder.file("in")], output: output, options: options)
        unlink(folder.file("in/f1.wav"))
        unlink(folder.file("out/f2.caf"))
        unlink(folder.file("in/f2.wav"))
        let run = Engine.convert(inputs: ["", folder.file("in/f4.wav")], output: output, options: options)
        #expect(run.totals.failed == 1 && run.totals.upToDate == 1)
        #expect(run.totals.orphaned == 0, "\(run.files.filter { $0.status == .orphaned }.map(\.output))")
        let kept = Manifest.load(folder: output).entries.keys.map(\.text)
        #expect(kept.contains("f2.caf"), "another file's record is not dropped: \(kept)")
    }

    @Test("a missing input's canonical path resolves its deepest existing folder")
    func canonicalMissing() {
        let folder = TempDirectory()
        folder.write("real/x", [0])
        symlink(folder.file("real"), folder.file("link"))
        let real = FileSystem.canonical(folder.file("real")) ?? ""
        #expect(Engine.canonicalMissing(folder.file("link/gone/a.wav")) == real + "/gone/a.wav")
        #expect(Engine.canonicalMissing(folder.file("link/gone/../b.wav")) == real + "/b.wav")
        #expect(Engine.isPath(real + "/gone/a.wav", at: real + "/gone"))
        #expect(!Engine.isPath(real + "/gone2/a.wav", at: real + "/gone"))
        #expect(Engine.isPath(real + "/gone", at: real + "/gone"))
    }

    @Test("same inputs and options give byte-identical outputs with -j 1 and -j 4")
    func deterministic() throws {
        let folder = TempDirectory()
        sourceTree(folder, count: 12, frames: 3000)
        folder.write("in/float.wav", WAVFixture.signal(.float32, channels: 6, frames: 999).bytes)
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("one"), options: ConversionOptions(jobs: 1))
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("four"), options: ConversionOptions(jobs: 4))
        let names = tree(folder.file("one")).filter { $0.hasSuffix(".caf") }
        #expect(names.count == 13)
        #expect(tree(folder.file("four")) == tree(folder.file("one")))
        for name in names {
            #expect(readFile(folder.file("one/" + name)) == readFile(folder.file("four/" + name)), "\(name) differs")
        }
    }

    @Test("names with spaces, tabs, newlines and non-ASCII letters are recorded and found again")
    func awkwardNames() throws {
        let folder = TempDirectory()
        let names = ["in/with space.wav", "in/tab\there.wav", "in/new\nline.wav", "in/éèà ü 音.wav", "in/back\\slash.wav"]
        for name in names { folder.write(name, WAVFixture.signal(.int16, channels: 1, frames: 100).bytes) }
        let first = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(first.totals.converted == names.count, "\(first.files.compactMap(\.reason))")
        let second = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(second.totals.upToDate == names.count)
    }

    @Test("a damaged manifest is not trusted: everything is converted again")
    func damagedManifest() {
        let folder = TempDirectory()
        sourceTree(folder)
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        let manifest = readFile(folder.file("out/.cafconv-manifest")) ?? []
        writeFile(folder.file("out/.cafconv-manifest"), Array(manifest.prefix(manifest.count / 2)) + [0xFF, 0x09])
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(report.totals.converted == 6, "a damaged manifest decides nothing")
        writeFile(folder.file("out/.cafconv-manifest"), Array("something else\n".utf8))
        #expect(Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options).totals.converted == 6)
    }

    @Test("without -o the manifest sits in the input folder and outputs beside inputs are never inputs")
    func besideInputs() {
        let folder = TempDirectory()
        sourceTree(folder)
        let first = Engine.convert(inputs: [folder.file("in")], output: nil, options: options)
        #expect(first.totals.converted == 6)
        #expect(exists(folder.file("in/.cafconv-manifest")))
        #expect(exists(folder.file("in/sub/f0.caf")))
        let second = Engine.convert(inputs: [folder.file("in")], output: nil, options: options)
        // The six CAFs beside their sources are ignored (the manifest records them), not inputs.
        #expect(second.files.count == 12 && second.totals.upToDate == 6 && second.totals.ignored == 6)
        #expect(second.files.filter { $0.status == .ignored }.allSatisfy { $0.reason?.contains("cafconv wrote it") == true })
    }

    @Test("an output folder inside the input tree: our outputs are never converted again")
    func outputInsideInputs() {
        let folder = TempDirectory()
        sourceTree(folder)
        let first = Engine.convert(inputs: [folder.file("in")], output: folder.file("in/build"), options: options)
        #expect(first.totals.converted == 6)
        folder.write("in/build/stray.wav", WAVFixture.signal(.int16, channels: 1, frames: 10).bytes)
        let second = Engine.convert(inputs: [folder.file("in")], output: folder.file("in/build"), options: options)
        #expect(second.files.count == 6 && second.totals.upToDate == 6)
        #expect(!exists(folder.file("in/build/build")))
    }
}

@Suite("Manifest safety")
struct ManifestSafetyTests {
    @Test("--prune never follows a manifest record that points outside the output folder")
    func noEscape() throws {
        let folder = TempDirectory()
        sourceTree(folder, count: 1)
        _ = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1))
        let victim = folder.write("victim.caf", Array("keep me".utf8))
        var info = stat()
        _ = stat(victim, &info)
        let line =
            "../victim.caf\t/nonexistent/gone.wav\t1\t1\tx\t\(info.st_size)\t"
            + "\(Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))\tLEI16\tLEI16\t1\n"
        let (seal, manifest) = Manifest.check(try #require(readFile(folder.file("out/.cafconv-manifest"))))
        #expect(seal == .sealed)
        let body = Array(manifest) + Array(line.utf8)
        writeFile(folder.file("out/.cafconv-manifest"), body + Array(Manifest.seal(body).utf8))
        #expect(Manifest.load(folder: folder.file("out")).entries.count == 1, "the record is read, then refused")
        let report = Engine.convert(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1, prune: true))
        #expect(report.totals.pruned == 0 && report.totals.orphaned == 0)
        #expect(exists(victim))
    }

    /// A converted `in/` → `out/` tree of `count` files and the manifest's path.
    func converted(_ folder: TempDirectory, count: Int = 3) -> String {
        sourceTree(folder, count: count)
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1))
        #expect(report.totals.converted == count)
        return folder.file("out/.cafconv-manifest")
    }

    func rerun(_ folder: TempDirectory, force: Bool = false) -> ConversionReport {
        Engine.convert(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1, force: force))
    }

    @Test("a manifest with any byte changed, or cut short, decides nothing: every output is converted again")
    func tornManifest() throws {
        let folder = TempDirectory()
        let path = converted(folder)
        let good = try #require(readFile(path))
        // A digit of a stamp changed to another digit would still parse: only the end line catches it.
        let digit = try #require(good.indices.dropFirst(good.count / 2).first { (0x30...0x38).contains(good[$0]) })
        var changed = good
        changed[digit] += 1
        let damaged = [changed, Array(good.dropLast(1)), Array(good.dropLast(30)), Array(good.prefix(good.count / 2))]
        for bytes in damaged {
            writeFile(path, bytes)
            #expect(Manifest.load(folder: folder.file("out")).isDamaged)
            let plan = Engine.convert(
                inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1, dryRun: true))
            #expect(plan.files.allSatisfy { $0.reason?.contains("is damaged") == true }, "\(plan.files.map(\.reason))")
            #expect(rerun(folder).totals.converted == 3)
            #expect(Manifest.check(try #require(readFile(path))).seal == .sealed, "written back whole and sealed")
            #expect(rerun(folder).totals.upToDate == 3)
        }
    }

    @Test("a damaged manifest still names orphans, but --prune does not act on it")
    func damagedOrphans() throws {
        let folder = TempDirectory()
        let path = converted(folder)
        unlink(folder.file("in/f1.wav"))
        var bytes = try #require(readFile(path))
        bytes.removeLast(2)
        writeFile(path, bytes)
        let report = Engine.convert(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1, prune: true))
        #expect(report.totals.orphaned == 1 && report.totals.pruned == 0)
        #expect(report.files.contains { $0.status == .orphaned && $0.reason?.contains("is damaged") == true })
        #expect(exists(folder.file("out/f1.caf")))
        // Written back sealed, the record is trusted again: now --prune deletes the orphan.
        let next = Engine.convert(
            inputs: [folder.file("in")], output: folder.file("out"), options: ConversionOptions(jobs: 1, prune: true))
        #expect(next.totals.pruned == 1)
        #expect(!exists(folder.file("out/f1.caf")))
    }

    @Test("a manifest another run holds locked is replaced by rename instead of waiting")
    func lockedManifest() throws {
        let folder = TempDirectory()
        let path = converted(folder)
        let inode = stamp(path)?[3]
        let holder = open(path, O_RDONLY)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)
        #expect(rerun(folder, force: true).totals.converted == 3)
        #expect(stamp(path)?[3] != inode)
        #expect(rerun(folder).totals.upToDate == 3)
    }

    @Test("saving rewrites the manifest in place: the same inode run after run")
    func inPlace() throws {
        let folder = TempDirectory()
        let path = converted(folder)
        let inode = stamp(path)?[3]
        #expect(rerun(folder, force: true).totals.converted == 3)
        #expect(stamp(path)?[3] == inode)
        #expect(temporaryFiles(under: folder.file("out")).isEmpty)
    }

    @Test("a manifest that is a symlink or has another hard link is replaced, never written through")
    func linkedManifest() throws {
        let folder = TempDirectory()
        let path = converted(folder)
        let manifest = try #require(readFile(path))
        let victim = folder.write("victim", manifest)
        unlink(path)
        #expect(symlink(victim, path) == 0)
        #expect(rerun(folder, force: true).totals.converted == 3)
        #expect(readFile(victim) == manifest)
        var info = stat()
        #expect(lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG)

        unlink(path)
        #expect(link(victim, path) == 0)
        #expect(rerun(folder, force: true).totals.converted == 3)
        #expect(readFile(victim) == manifest)
        #expect(rerun(folder).totals.upToDate == 3)
    }

    @Test("a version 1 manifest (no end line) is still read")
    func versionOne() throws {
        let folder = TempDirectory()
        let path = converted(folder)
        let (seal, body) = Manifest.check(try #require(readFile(path)))
        #expect(seal == .sealed)
        let version1 = Array("cafconv-manifest 1".utf8) + body.drop { $0 != 0x0A }
        writeFile(path, version1)
        #expect(rerun(folder).totals.upToDate == 3)
        #expect(readFile(path) == version1, "nothing changed, so nothing was written")
        #expect(rerun(folder, force: true).totals.converted == 3)
        #expect(readFile(path)?.starts(with: Array("cafconv-manifest 3\n".utf8)) == true)
    }
}

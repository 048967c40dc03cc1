import SoundLevels
import BinaryIO
import CommandLineKit
import Dispatch
import Synchronization
import Conversion
import ConversionModel
import Inspection
import OutputFiles
import SoundReport
import SystemLayer
import Transcoding
import Verification

/// `cafconv report`: one self-contained HTML page of sound files.
struct Report {
    static let paths = Positionals(
        "paths", help: "Audio files (any source convert reads) or folders to search for them.",
        completion: .fileTypes(Planner.audioExtensions))
    static let output = Option<String>("output", short: "o", help: "The HTML file to write.", completion: .files)
    static let against = Option<String>(
        "against", valueName: "source",
        help:
            "Put each CAF file beside its source (a file, or a folder mirrored as convert -o mirrors it), paired and compared as verify --against does: both waveforms, the proof and a lossy codec's SNR.",
        completion: .fileTypes(Planner.audioExtensions))
    static let title = Option<String>("title", help: "The page's title (default: Sound report).")
    static let jobs = Option<Int>(
        "jobs", short: "j", help: "Read this many files at once (default: the number of processors).")

    static let name = "report"
    static let abstract = "Write one HTML page of sound files: format, levels, waveforms, loops, failures."
    static let command = Command(
        name,
        abstract: abstract,
        discussion: """
            Reads every file given or found under folders (the sources convert reads, searched \
            recursively as convert searches them) once, block by block, and writes one HTML file \
            that needs nothing else (no network, no external script, style, font or image): a \
            summary (counts by format, total sizes, the loudest and quietest files, failures \
            first), then one row per file with its format line (as info --brief), duration, size, \
            bit rate, channels, rate, sample peak, true peak (4x oversampled), integrated \
            loudness (BS.1770, libebur128; the true peak is libebur128's too), warnings or failure, and a waveform per channel (the min/max envelope, \
            400 columns at most) with its loops, markers and regions drawn at their frames. The \
            table sorts by any column and filters by name; the same files give the same page.

            --against pairs each CAF file with its source as verify --against does: the source's \
            envelope is drawn beneath the file's on one time axis, with the proof (or the broken \
            rule) and the SNR of a lossy codec.

            Exit status: 0 the page was written and every file was read; 1 a file failed (the page \
            is written and shows why) or the page could not be written; 64 usage error.
            """,
        positionals: paths,
        options: [output, against, title, jobs])

    let paths: [String]
    let output: String
    let against: String?
    let title: String
    let jobs: Int

    init(_ invocation: Invocation) throws(CommandLineError) {
        paths = invocation.positionals
        if paths.isEmpty { throw CommandLineError("give at least one file or folder") }
        guard let output = invocation[Self.output], !output.isEmpty else {
            throw CommandLineError("give the HTML file to write with -o")
        }
        self.output = output
        against = invocation[Self.against]
        title = invocation[Self.title] ?? "Sound report"
        jobs = invocation[Self.jobs] ?? Syscall.processorCount
        if jobs < 1 { throw CommandLineError("--jobs must be at least 1") }
    }

    func run() -> Int32 {
        let start = FileSystem.now()
        let entries = against.map(paired) ?? measured()
        let measuredAt = FileSystem.now()
        guard Self.write(entries, title: title, to: output, readIn: measuredAt &- start) else { return ExitStatus.failure }
        let failed = entries.filter { $0.failure != nil }
        for entry in failed {
            Console.error("\(Output.errorPrefix()) \(PathBytes.display(entry.sound.path)): \(PathBytes.display(entry.failure ?? ""))")
        }
        return failed.isEmpty ? ExitStatus.success : ExitStatus.failure
    }

    /// Renders `entries` and writes the page to `output` through a temporary file and a rename
    /// (as a depfile is written), then says on stderr what it holds and how long it took;
    /// `false` (the error said) when it cannot be written.
    /// `decodedAgain`: for `convert --report`, the files decoded for the page after the run.
    static func write(
        _ entries: [ReportEntry], title: String, to output: String, readIn: UInt64, quiet: Bool = false,
        decodedAgain: Int? = nil
    ) -> Bool {
        let renderStart = FileSystem.now()
        let html = HTMLReport.render(entries, title: title)
        let rendered = FileSystem.now() &- renderStart
        do throws(ConversionError) {
            let folder = try FileSystem.Folder.open(FileSystem.directoryName(output))
            let temporary = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(output))
            let fd = try temporary.descriptor()
            defer { FileSystem.closeFile(fd) }
            try FileSystem.writeAll(fd, Array(html.utf8), at: 0)
            try temporary.commit()
        } catch {
            Console.error("\(Output.errorPrefix()) \(PathBytes.display(output)): cannot write the report: \(error.message)")
            return false
        }
        func milliseconds(_ nanoseconds: UInt64) -> String { HTMLText.fixed(Double(nanoseconds) / 1e6, 1) + " ms" }
        if quiet { return true }
        let failed = entries.filter { $0.failure != nil }.count
        let again = decodedAgain.map { ", \($0) decoded again after the run" } ?? ""
        Console.error(
            PathBytes.display(
                "\(output): \(entries.count) \(entries.count == 1 ? "file" : "files"), \(failed) failed (read in \(milliseconds(readIn))\(again), page of \(html.utf8.count) bytes made in \(milliseconds(rendered)))"
            ))
        return true
    }

    /// The entries of a conversion's report: each output beside its source, with the proof and
    /// the warnings the conversion gave, failures with their reason. A converted file's levels
    /// and its source's were measured while the run decoded them (`FileResult.outputLevels`,
    /// `sourceLevels`): here they are only described (`info` reads their headers). What the run
    /// did not decode to its end is decoded once here: up-to-date files, a failed file's source,
    /// and outputs whose codec's proof has no meter (IMA4, Opus).
    static func entries(of report: ConversionReport, jobs: Int) -> [ReportEntry] {
        let files = report.files.filter { [.converted, .upToDate, .failed].contains($0.status) }
        func how(_ file: FileResult, _ levels: SoundLevels?) -> SoundMeasurement.How {
            levels.map { .levels($0) } ?? .decode
        }
        let sources = SoundMeasurement.entries(files.map { ($0.input, $0.input, how($0, $0.sourceLevels)) }, jobs: jobs)
        let written = files.filter { $0.status != .failed }
        let outputs = SoundMeasurement.entries(
            written.map { ($0.input, $0.output ?? $0.input, how($0, $0.outputLevels)) }, jobs: jobs)
        var nextOutput = outputs.makeIterator()
        return zip(files, sources).map { file, source in
            let name = PathBytes.display(file.input)
            var entry: ReportEntry
            if file.status == .failed {
                entry = ReportEntry(
                    name: name, sound: ReportSound(path: PathBytes.display(file.output ?? file.input)),
                    failure: PathBytes.display(file.reason ?? "failed"))
                entry.source = source.sound
                if source.failure == nil { entry.sound = source.sound }
            } else {
                entry = nextOutput.next() ?? source
                entry.name = name
                entry.source = source.sound
                entry.proof = file.proof?.description
                entry.snr = file.proof?.snr
                if file.status == .upToDate { entry.proof = "up to date" + (entry.proof.map { "; " + $0 } ?? "") }
            }
            for warning in file.warnings.map({ PathBytes.display($0.message) }) where !entry.warnings.contains(warning) {
                entry.warnings.append(warning)
            }
            return entry
        }
    }

    /// Every file given or found, measured.
    func measured() -> [ReportEntry] {
        var entries: [ReportEntry?] = []
        var work: [(slot: Int, name: String, path: String)] = []
        for path in paths {
            switch FileSystem.kind(of: path) {
            case .directory:
                let found = Planner.files(under: path, matching: Planner.isAudioName)
                if found.isEmpty {
                    entries.append(
                        ReportEntry(
                            name: PathBytes.display(path), sound: ReportSound(path: PathBytes.display(path)),
                            failure: Planner.nothingFound))
                }
                for relative in found {
                    work.append((entries.count, relative, FileSystem.joined(path, relative)))
                    entries.append(nil)
                }
            case .missing:
                entries.append(
                    ReportEntry(
                        name: PathBytes.display(path), sound: ReportSound(path: PathBytes.display(path)),
                        failure: "no such file or folder"))
            case .file, .other:
                work.append((entries.count, path, path))
                entries.append(nil)
            }
        }
        let measured = SoundMeasurement.entries(work.map { ($0.name, $0.path, .decode) }, jobs: jobs)
        for (item, entry) in zip(work, measured) { entries[item.slot] = entry }
        return entries.compactMap { $0 }
    }

    /// Every CAF file given or found, paired with its source by `verify --against`.
    func paired(with source: String) -> [ReportEntry] {
        let report = Verifier.verify(paths: paths, options: VerifyOptions(against: source))
        let outputs = SoundMeasurement.entries(report.files.map { (name(of: $0.path), $0.path, .decode) }, jobs: jobs)
        let sources = SoundMeasurement.entries(report.files.compactMap { $0.against.map { ($0, $0, .decode) } }, jobs: jobs)
        var nextSource = sources.makeIterator()
        return zip(report.files, outputs).map { verdict, measured in
            var entry = measured
            if verdict.against != nil { entry.source = nextSource.next()?.sound }
            entry.proof = verdict.comparison?.description
            entry.snr = verdict.comparison?.snr
            if !verdict.failures.isEmpty {
                let broken = verdict.failures.map { String(describing: $0) }.joined(separator: "; ")
                entry.failure = entry.failure.map { $0 + "; " + broken } ?? broken
            }
            for warning in verdict.warnings where !entry.warnings.contains(warning) { entry.warnings.append(warning) }
            return entry
        }
    }

    /// `path` below the folder given that holds it, else as it is.
    func name(of path: String) -> String {
        for folder in paths {
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
        }
        return path
    }
}

/// One file read for the report: described by `Inspection` (format line, loops, markers,
/// regions) and decoded once by the source table `convert` uses (`SourceAudio.open`), block by
/// block, into a `SoundMeter`.
enum SoundMeasurement {
    /// Frames read per block.
    static let blockFrames = 4096

    /// What is done to a file for its row.
    enum How: Sendable {
        /// Decoded once, into its levels.
        case decode
        /// Described, with the levels a conversion measured while it decoded it.
        case levels(SoundLevels)
    }

    /// Each of `files` (name, path, how) measured, in order, by up to `jobs` threads.
    static func entries(_ files: [(name: String, path: String, how: How)], jobs: Int) -> [ReportEntry] {
        let results = Mutex([ReportEntry?](repeating: nil, count: files.count))
        let next = Mutex(0)
        let work = files.map { SendableFile(name: $0.name, path: $0.path, how: $0.how) }
        @Sendable func worker(_: Int) {
            while true {
                let slot = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard slot < work.count else { return }
                let file = work[slot]
                let entry: ReportEntry
                switch file.how {
                case .decode: entry = Self.entry(name: file.name, path: file.path)
                case .levels(let levels):
                    var described = described(name: file.name, path: file.path).entry
                    described.sound.apply(levels)
                    entry = described
                }
                results.withLock { $0[slot] = entry }
            }
        }
        let workers = min(max(1, jobs), files.count)
        if workers == 1 { worker(0) } else if workers > 1 { DispatchQueue.concurrentPerform(iterations: workers, execute: worker) }
        return results.withLock { $0 }.enumerated().map { index, entry in
            entry ?? ReportEntry(name: work[index].name, sound: ReportSound(path: work[index].path), failure: "not measured")
        }
    }

    struct SendableFile: Sendable {
        var name: String
        var path: String
        var how: How
    }

    /// Files decoded for a page (``entry(name:path:)``), counted: `convert --report` says how
    /// many it read again after the run.
    static let decodes = Atomic<Int>(0)

    /// `path` described and decoded once, block by block, into its levels.
    static func entry(name: String, path: String) -> ReportEntry {
        var (entry, decodable) = described(name: name, path: path)
        // A file `info` finds invalid is still drawn when it decodes (convert reads many such).
        guard decodable else { return entry }
        decodes.add(1, ordering: .relaxed)
        do {
            entry.sound.apply(try LevelTap.measure(try SourceAudio.open(path)))
        } catch {
            // The decoder's message names the file first: the row names it already.
            let message = error.message.hasPrefix(path + ": ") ? String(error.message.dropFirst(path.count + 2)) : error.message
            if entry.failure == nil { entry.failure = PathBytes.display(message) }
        }
        return entry
    }

    /// `path` as `info` describes it (format line, size, loops, markers, regions), not decoded;
    /// and whether it is worth decoding.
    static func described(name: String, path: String) -> (entry: ReportEntry, decodable: Bool) {
        let info = Inspector.inspect(path: path)
        var sound = ReportSound(path: PathBytes.display(path))
        var failure: String?
        var status = FileStatus()
        if FileSystem.status(path, &status) == 0, status.st_size >= 0 { sound.bytes = UInt64(status.st_size) }
        if info.format != nil {
            sound.container = InfoText.containerName(info)
            sound.format = info.formatDescription ?? info.format
            let line = InfoText.briefLine(info)
            let prefix = info.path + ": "
            sound.formatLine = line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line
            sound.channels = info.channels
            sound.sampleRate = info.sampleRate
            sound.frames = info.frames.flatMap { Int64(exactly: $0) }
            sound.marks = marks(info)
            if let error = info.error { failure = error }
        } else if info.error == "empty file (0 bytes)" {
            failure = info.error
        }
        if sound.container == nil {
            let dot = FileSystem.baseName(path).lastIndex(of: ".")
            let ext = dot.map { String(FileSystem.baseName(path)[$0...].dropFirst()) } ?? ""
            sound.container = ext.isEmpty ? nil : ext.uppercased()
        }
        let entry = ReportEntry(
            name: PathBytes.display(name), sound: sound, warnings: info.warnings.map { PathBytes.display($0.message) },
            failure: failure.map(PathBytes.display))
        return (entry, failure == nil || info.format != nil)
    }

    /// The loops, markers and regions `info` found, in the file's frames.
    static func marks(_ info: AudioFileInfo) -> [ReportMark] {
        var marks: [ReportMark] = []
        for loop in info.loops {
            let label = loop.name ?? (loop.role.map { "\($0) loop" } ?? "loop")
            marks.append(ReportMark(kind: .loop, start: Double(loop.start), end: Double(loop.end), label: label))
        }
        for region in info.regions {
            guard let start = region.start else { continue }
            marks.append(
                ReportMark(
                    kind: .region, start: start, end: region.end, label: region.name.isEmpty ? "region \(region.id)" : region.name))
        }
        for marker in info.markers {
            marks.append(ReportMark(kind: .marker, start: marker.frame, label: marker.name.isEmpty ? marker.type : marker.name))
        }
        return marks
    }
}

import BinaryIO
import CommandLineKit
import Conversion
import ConversionModel
import IncrementalState
import Inspection
import OutputFiles
import Rules
import SourceInspection
import SystemLayer
import Transcoding
import Verification

/// `cafconv info`: what is inside CAF, WAV and AIFF files, and the other sources convert reads.
struct Info {
    static let brief = Flag("brief", help: "One line per file, like file(1).")
    static let json = Flag("json", help: "Print one JSON array, one object per file.")
    static let loudness = Flag(
        "loudness",
        help:
            "Measure each file's loudness instead (ITU-R BS.1770-4 / EBU R 128: integrated, range, true peak, sample peak, maximum momentary and short-term); decodes the audio of every format convert reads.")
    static let jobs = Option<Int>(
        "jobs", short: "j", help: "With --loudness, measure this many files at once (default: all cores).")

    static let name = "info"
    static let abstract = "Describe audio files (CAF, WAV, AIFF, FLAC, MP3, Ogg...): format, byte order, frames, chunks."
    static let command = Command(
        name,
        abstract: abstract,
        discussion: """
            Folders are searched recursively for the files convert reads (any case); a folder \
            without any is an error. The container is told from the magic bytes, not the name: a \
            .caf that is really AIFF is reported as AIFF. CAF, WAV and AIFF are read by cafconv's \
            own readers, and CAF files are also checked against the rules of the CAF \
            specification (the first broken rule is reported as the file's error); Ogg Opus is \
            read from its pages; FLAC, MP3, Ogg Vorbis, Wave64 and .au through libsndfile (and \
            libmpg123 for MP3's frame count), as convert decodes them. Bit rate, packet sizes and \
            the source bit depth are afinfo's (cafconv afinfo prints them in afinfo's words).

            Descriptions go to stdout; errors, and with --brief each file's warnings, go to stderr \
            right after the file's line.

            Exit status: 0 every file is readable and valid; 1 any file is unreadable or invalid \
            (its error names the byte offset and the rule), or a folder held no audio file; 64 \
            usage error.

            With --loudness, each file (folders: every name convert takes) is decoded as convert \
            decodes it and measured with libebur128. A clip shorter than one 400 ms gating block \
            has no BS.1770 integrated loudness: it reads the ungated K-weighted loudness of the \
            whole clip instead, marked "short clip". Silence (and anything below the -70 LUFS \
            absolute gate) has no level: "silent" in text, null in JSON.
            """,
        positionals: Positionals(
            "files", help: "Audio files, or folders to search for them.",
            completion: .fileTypes(Planner.audioExtensions)),
        options: [brief, json, loudness, jobs])

    let files: [String]
    let brief: Bool
    let json: Bool
    let loudness: Bool
    let jobs: Int

    /// Reads and checks the options.
    init(_ invocation: Invocation) throws(CommandLineError) {
        files = invocation.positionals
        brief = invocation[Self.brief]
        json = invocation[Self.json]
        if files.isEmpty { throw CommandLineError("give at least one file or folder") }
        if brief && json { throw CommandLineError("--brief and --json cannot be used together") }
        loudness = invocation[Self.loudness]
        jobs = invocation[Self.jobs] ?? Syscall.processorCount
        if jobs < 1 { throw CommandLineError("--jobs must be at least 1") }
        if invocation[Self.jobs] != nil && !loudness { throw CommandLineError("--jobs needs --loudness") }
    }

    func run() -> Int32 {
        if loudness { return LoudnessText.run(files, brief: brief, json: json, jobs: jobs) }
        var failed = false
        var reports: [AudioFileInfo] = []
        var described = 0
        func describe(_ path: String) {
            let report = M4AInfo.inspect(path: path) ?? SourceInspector.inspect(path: path)
            if report.error != nil { failed = true }
            if json {
                reports.append(report)
                return
            }
            if brief {
                Console.output(InfoText.briefLine(report))
                for warning in report.warnings {
                    Console.error("\(Output.warningPrefix()) \(report.path): \(PathBytes.display(warning.message))")
                }
            } else {
                if described > 0 { Console.output("") }
                for line in InfoText.block(report) { Console.output(line) }
            }
            described += 1
            if let error = report.error { Console.error("\(Output.errorPrefix()) \(report.path): \(PathBytes.display(error))") }
        }
        for path in files {
            guard Planner.isFolder(path) else {
                describe(path)
                continue
            }
            let found = Planner.files(under: path, matching: FileSystem.isAudioName)
            if found.isEmpty {
                failed = true
                let reason = Planner.nothingFound
                // With --json the folder is an entry of the array, like any file that fails.
                if json {
                    reports.append(Inspector.failure(path, error: reason))
                } else {
                    Console.error("\(Output.errorPrefix()) \(PathBytes.display(path)): \(reason)")
                }
            }
            for relative in found { describe(path.hasSuffix("/") ? path + relative : path + "/" + relative) }
        }
        if json { Console.output(Output.json(reports)) }
        return failed ? ExitStatus.failure : ExitStatus.success
    }
}

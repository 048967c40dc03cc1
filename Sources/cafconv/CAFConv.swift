import BinaryIO
import CommandLineKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import SystemLayer
import Transcoding
import Verification

/// The `cafconv` command: subcommands only. Arguments are parsed by `CommandLineKit` from the
/// declarative tables of each subcommand (not swift-argument-parser, whose reflection doubled the
/// process's start-up time).
@main
enum CAFConv {
    static let version = "0.1.0"

    static let program = Program(
        root: Command(
            "cafconv",
            abstract: "Convert audio files (WAV, AIFF, CAF, FLAC, MP3...) to CAF, and inspect and verify CAF files.",
            discussion: """
                Results go to stdout; errors (each starting with 'cafconv: error:'), warnings and \
                summaries go to stderr. Every line is written whole, so a log that captures both \
                streams stays readable.

                Exit status: 0 success; 1 some file failed (each one is named on stderr), or a \
                command found nothing to do (a folder without audio files for convert, without CAF \
                files for verify, without audio files for info); 64 usage error (also when no \
                subcommand is given); 130 interrupted.
                """,
            // Each table is built only when its subcommand runs (or help, the manual or a
            // completion script shows it): a process converts one file or prints its version.
            subcommands: [
                Subcommand(Convert.name, abstract: Convert.abstract) { Convert.command },
                Subcommand(Info.name, abstract: Info.abstract) { Info.command },
                Subcommand(Verify.name, abstract: Verify.abstract) { Verify.command },
                Subcommand(Report.name, abstract: Report.abstract) { Report.command },
                Subcommand(AFConvert.name, abstract: AFConvert.abstract) { AFConvert.command },
                Subcommand(AFInfo.name, abstract: AFInfo.abstract) { AFInfo.command },
            ]),
        version: version,
        // The manual is dated by SOURCE_DATE_EPOCH (make install sets the last commit's time) or
        // by when this executable was built: never a date written here that goes stale.
        manualDate: nil,
        files: [
            Program.Entry(
                ".cafconv-manifest",
                "What convert made and from what, in the output folder (or the input folder when outputs are written beside inputs): it decides what is up to date and what --prune may delete. A text file; deleting it only makes the next run convert everything again."
            ),
            Program.Entry(
                ".NAME.caf.cafconv-PID-N.tmp",
                "A file being written, beside its output; renamed into place once checked. Left only by a run that was killed; the next run deletes it."
            ),
        ],
        environment: [
            Program.Entry("NO_COLOR", "When set and not empty, error: and warning: are not coloured."),
            Program.Entry("TERM", "When unset or dumb, no progress line is drawn and nothing is coloured."),
            Program.Entry("SOURCE_DATE_EPOCH", "The date --generate-manual writes into the manual page."),
            Program.Entry(
                "TMPDIR",
                "Where convert and afconvert make the private folder (mode 0700) that holds a piped input (-, /dev/stdin, <(...)) and the CAF for -o - when it is not linear PCM (default /tmp)."
            ),
            Program.Entry(
                "CAFCONV_PROGRESS_INTERVAL_MS",
                "The pace of convert's progress inside files, in milliseconds (default: 250 on a terminal and for --progress json, 5000 for the heartbeat in a log); for tests."
            ),
        ],
        examples: [
            Program.Example(
                "cafconv convert Sounds -o Build/Sounds",
                "Convert a tree of WAV files to little-endian CAF; run again, only what changed is converted:"),
            Program.Example("cafconv convert -d LEI16 music.wav -o music.caf", "Convert one file to 16-bit little-endian:"),
            Program.Example(
                "cafconv convert --check -q Sounds -o Build/Sounds",
                "In CI, fail when an output is missing, out of date or orphaned, and list them:"),
            Program.Example(
                "cafconv verify --endian little --against Sounds Build/Sounds",
                "Check every CAF against the specification, the byte order and its source, sample by sample:"),
            Program.Example("cafconv info --brief Build/Sounds", "Describe every audio file under a folder, one line each:"),
            Program.Example(
                "curl -s https://example.com/tts.wav | cafconv convert - -o - > tts.caf",
                "Convert from a pipe to a pipe (the CAF goes out once it is proved):"),
        ])

    /// Whether `argument` is an option with which `convert` converts nothing (see `main`).
    static func convertsNothing(_ argument: String) -> Bool {
        switch argument {
        case "-h", "--help", "--version", "--dry-run", "--check": true
        default: false
        }
    }

    static func main() {
        // Each file's block buffers are reused from the heap, not mapped and zero-filled again.
        cafconv_keep_freed_memory()
        // Arguments are bytes: a path that is not UTF-8 is kept as it is (PathBytes), not repaired.
        var arguments = (1..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map { PathBytes.decode(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? ""
        }
        // Invoked as `afconvert` or `afinfo` (links to cafconv): their command lines.
        let invokedAs = CommandLine.arguments.first.map { FileSystem.baseName($0) }
        if invokedAs == AFConvert.name { arguments.insert(AFConvert.name, at: 0) }
        if invokedAs == AFInfo.name { arguments.insert(AFInfo.name, at: 0) }
        // A conversion opens its sources with libsndfile: it starts loading now, on another thread,
        // so that its dynamic linking overlaps the parsing and the planning (see Engine.run).
        // Only a hint: a run it misses loads libsndfile at its first file, one it wrongly starts for
        // spends CPU time on another thread, so it looks for the options that convert nothing.
        if arguments.first == Convert.name || arguments.first == AFConvert.name, !arguments.contains(where: convertsNothing) {
            Engine.preloadLibraries()
        }
        // Bazel starts a persistent worker as the tool's command line plus this flag.
        if arguments.contains(PersistentWorker.flag) {
            let status = PersistentWorker.serve(startup: arguments.filter { $0 != PersistentWorker.flag }, run: run)
            Console.flush()
            exit(status)
        }
        // A Bazel action's arguments come in a parameter file (--flagfile=PATH) whether or not a
        // worker runs it.
        let expanded: [String]
        switch PersistentWorker.expand(arguments) {
        case .success(let all): expanded = all
        case .failure(let refusal):
            Console.error(refusal.message, terminator: "")
            exit(ExitStatus.usage)
        }
        let status = run(expanded)
        Console.flush()
        exit(status)
    }

    /// Runs one command line (a process's, or one persistent-worker request's, after its
    /// `--flagfile` is expanded) to its exit status.
    static func run(_ arguments: [String]) -> Int32 {
        var arguments = arguments
        if arguments.first == AFConvert.name {
            // afconvert's refused options are named whole (-hf) before the parser splits them, and
            // -u/-ue take two words: written as the options they are.
            do throws(CommandLineError) { arguments = [AFConvert.name] + (try AFConvert.translated(Array(arguments.dropFirst()))) } catch {
                Console.error(program.errorText(error))
                return Program.usageErrorStatus
            }
        }
        return program.run(arguments) { invocation throws(CommandLineError) in
            switch invocation.path.first {
            case Convert.name: return try Convert(invocation).run()
            case Info.name: return try Info(invocation).run()
            case Verify.name: return try Verify(invocation).run()
            case Report.name: return try Report(invocation).run()
            case AFConvert.name: return try AFConvert(invocation).run()
            case AFInfo.name: return try AFInfo(invocation).run()
            default: throw CommandLineError("no subcommand '\(invocation.path.joined(separator: " "))'")
            }
        }
    }
}

/// What a subcommand's `run()` returns: the process's exit status.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let interrupted: Int32 = 130
}

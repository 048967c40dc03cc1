import BinaryIO
import CommandLineKit
import Conversion
import Inspection
import SourceInspection

/// `cafconv afinfo` (and the executable invoked as `afinfo`): Apple's afinfo's output, field by
/// field (`AFInfoText`), for every source `convert` reads, so that scripts that grep afinfo's
/// lines run unchanged. docs/afinfo.md lists what is printed and what differs.
struct AFInfo {
    static let name = "afinfo"
    static let abstract = "Describe audio files in afinfo's words (Mac scripts that grep afinfo run unchanged)."

    static let files = Positionals(
        "audio_files", help: "The audio files to describe (any source convert reads).",
        completion: .fileTypes(Planner.audioExtensions))
    static let brief = Flag("brief", short: "b", help: "Print a brief description of each file: name, type, duration and format.")
    static let real = Flag(
        "real", short: "r",
        help: "Get the duration from the real packet count: accepted; cafconv always counts the packets, so it changes nothing.")
    static let info = Flag("info", short: "i", help: "Also print the file's information strings (afinfo's info dictionary).")

    /// afinfo's options cafconv does not have, with why (`nil`: not one of afinfo's).
    static func refusal(_ spelling: String) -> String? {
        switch spelling {
        case "-x", "--xml":
            "afinfo's \(spelling) is not supported: cafconv does not write afinfo's XML; cafconv info --json is its machine-readable report"
        case "--leaks":
            "afinfo's --leaks is not supported: it runs macOS's leaks tool, which this system does not have"
        default: nil
        }
    }

    static let command: Command = {
        var command = Command(
            name,
            abstract: abstract,
            discussion: """
                afinfo's grammar: afinfo [option...] audio_file(s), options before or after the files. \
                Each file is described as afinfo does: File, File type ID, Num Tracks, Data format \
                (2 ch,  44100 Hz, Int16), the channel layout, estimated duration, audio bytes, audio \
                packets, bit rate, packet size upper bound, maximum packet size, audio data file \
                offset, optimized, the valid, priming and remainder frames of a CAF, and the source bit \
                depth, between ---- lines. FLAC, MP3, Ogg Vorbis and Opus, Wave64 and .au files are \
                read through the libraries convert decodes them with. -x (XML) and --leaks are refused \
                by name with the reason. Invoked under the name afinfo (a link to cafconv), the \
                executable runs this command.

                Exit status: 0 every file was described; 1 a file is unreadable or breaks a rule of \
                its format (named on stderr, after what could be read); 64 usage error.
                """,
            positionals: files,
            options: [brief, real, info])
        command.foreignOption = refusal
        return command
    }()

    let files: [String]
    let brief: Bool
    let info: Bool

    /// Reads and checks the options.
    init(_ invocation: Invocation) throws(CommandLineError) {
        files = invocation.positionals
        if files.isEmpty { throw CommandLineError("give at least one audio file") }
        brief = invocation[Self.brief]
        info = invocation[Self.info]
    }

    func run() -> Int32 {
        var failed = false
        for path in files {
            let report = M4AInfo.inspect(path: path) ?? SourceInspector.inspect(path: path)
            if report.format != nil {
                for line in brief ? AFInfoText.brief(report) : AFInfoText.block(report, info: info) { Console.output(line) }
            }
            if let error = report.error {
                failed = true
                Console.error("\(Output.errorPrefix()) \(report.path): \(PathBytes.display(error))")
            }
        }
        return failed ? ExitStatus.failure : ExitStatus.success
    }
}

import ArgumentParser
import Conversion

extension EndianChoice: ExpressibleByArgument {}

/// `cafconv convert`: WAV files and folders to CAF.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert WAV files and folders to CAF with an explicit byte order.",
        discussion: """
            Folders are searched recursively for *.wav and *.wave files (any case); other files are \
            ignored. Files are recognised by their content: a .wav that is not RIFF/WAVE is an error. \
            With -o and a folder (or several inputs), the output folder mirrors each input tree; \
            without -o, each CAF is written beside its input.

            By default the source's sample format is kept where CAF can hold it: unsigned 8-bit \
            becomes signed I8 with the same waveform; ADPCM and GSM 6.10 become 16-bit. Samples are \
            little-endian unless --endian or -d says otherwise. Integer <-> float conversion is not \
            normalised: an N-bit sample s becomes s / 2^(N-1); floats become round(x * 2^(N-1)), \
            clipped.

            Each output is written to a temporary file beside it, read back and checked, then \
            renamed into place; a failed file leaves nothing at its output path. Inputs are never \
            modified.

            Re-runs are incremental, like make: an output is converted again only when it is \
            missing, its source changed (size or modification time), the conversion options \
            changed, or the output itself was changed. The state lives in a .cafconv-manifest file \
            in the output folder (or in the input folder when outputs are written beside inputs). \
            --force converts everything; --dry-run prints the plan and writes nothing; --check \
            writes nothing and exits 1 when anything is out of date. Outputs cafconv made whose \
            source is gone are reported as orphaned; --prune deletes them.

            On a terminal a progress line is drawn on stderr. SIGINT or SIGTERM stops the run: no \
            new file is started, temporary files are deleted, the exit status is 130, and the next \
            run finishes the work.

            Exit status: 0 every input converted or up to date; 1 any input failed (or, with \
            --check, anything is out of date); 64 usage error; 130 interrupted.
            """
    )

    @Argument(help: "WAV files or folders to convert.")
    var inputs: [String] = []

    @Option(name: [.short, .long], help: "Output file, or folder when converting folders or several inputs.")
    var output: String?

    @Option(help: "Byte order of the output samples (default: little).")
    var endian: EndianChoice?

    @Option(
        name: [.customShort("d"), .long],
        help: ArgumentHelp(
            "Output data format: \(DataFormat.examples). Default: the source's format.",
            valueName: "format"))
    var dataFormat: String?

    @Option(name: [.short, .long], help: "Convert this many files at once (default: all cores).")
    var jobs: Int?

    @Flag(help: "Convert every input, even when its output is up to date.")
    var force = false

    @Flag(help: "Print what would be converted, what is up to date and what is orphaned; write nothing.")
    var dryRun = false

    @Flag(help: "Write nothing; exit 1 when any output is missing, out of date or orphaned.")
    var check = false

    @Flag(help: "Delete outputs that cafconv made whose source is gone (only .caf files it recorded).")
    var prune = false

    @Flag(help: "Print one JSON report on stdout instead of text.")
    var json = false

    @Flag(name: [.short, .long], help: "Print only errors.")
    var quiet = false

    @Flag(name: [.short, .long], help: "Print more detail for each file.")
    var verbose = false

    func options() throws(UsageError) -> ConversionOptions {
        let format = try dataFormat.map { text throws(UsageError) in try DataFormat(parsing: text) }
        let options = ConversionOptions(
            dataFormat: format, endian: endian, jobs: jobs, force: force, dryRun: dryRun || check, prune: prune)
        try options.validate()
        return options
    }

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one WAV file or folder") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        do { _ = try options() } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        let options = try options()
        let cancellation = Cancellation()
        let interruption = Interruption(cancellation)
        defer { interruption.stop() }
        let terminal = Terminal.current
        let style = Output.Style(
            json: json, quiet: quiet, verbose: verbose, dryRun: options.dryRun, check: check, color: terminal.color)
        let line = terminal.interactive && !quiet && !json && !options.dryRun ? ProgressLine() : nil
        var progress: (@Sendable (Engine.Progress) -> Void)? = nil
        if let line { progress = { step in line.update(step) } }
        let report = Engine.run(
            inputs: inputs, output: output, options: options, cancellation: cancellation, progress: progress)
        line?.clear()
        Output.render(report, style: style)
        if report.interrupted { throw ExitCode(130) }
        if !report.succeeded || (check && !report.isCurrent) { throw ExitCode(1) }
    }
}

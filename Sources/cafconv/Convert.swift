import CommandLineKit
import Conversion

/// `cafconv convert`: WAV files and folders to CAF.
struct Convert {
    static let inputs = Positionals(
        "inputs", help: "WAV files or folders to convert.", completion: .fileTypes(["wav", "wave"]))
    static let output = Option<String>(
        "output", short: "o", help: "Output file, or folder when converting folders or several inputs.",
        completion: .files)
    static let endian = Option<EndianChoice>("endian", help: "Byte order of the output samples (default: little).")
    static let dataFormat = SharedOptions.dataFormat(
        help: "Output data format: \(DataFormat.examples). Default: the source's format.")
    static let bitRate = Option<Int>(
        "bit-rate", short: "b", valueName: "bits-per-second",
        help: "Total bit rate of -d aac, as afconvert's -b (default: 64000 per channel, 128000 stereo).")
    static let jobs = Option<Int>("jobs", short: "j", help: "Convert this many files at once (default: all cores).")
    static let force = Flag("force", help: "Convert every input, even when its output is up to date.")
    static let dryRun = Flag(
        "dry-run", help: "Print what would be converted, what is up to date and what is orphaned; write nothing.")
    static let check = Flag(
        "check", help: "Write nothing; list what is missing, out of date or orphaned, and exit 1 if anything is.")
    static let prune = Flag(
        "prune", help: "Delete outputs that cafconv made whose source is gone (only .caf files it recorded).")
    static let verbose = Flag("verbose", short: "v", help: "Print more detail for each file.")

    static let command = Command(
        "convert",
        abstract: "Convert WAV files and folders to CAF with an explicit byte order.",
        discussion: """
            Folders are searched recursively for *.wav and *.wave files (any case); other files are \
            ignored, and a folder without any is an error. Files are recognised by their content: a \
            .wav that is not RIFF/WAVE is an error. With -o and a folder (or several inputs), the \
            output folder mirrors each input tree (an existing file in its place is a usage error); \
            without -o, each CAF is written beside its input.

            By default the source's sample format is kept where CAF can hold it: unsigned 8-bit \
            becomes signed I8 with the same waveform; ADPCM and GSM 6.10 become 16-bit. Samples are \
            little-endian unless --endian or -d says otherwise. Integer <-> float conversion is not \
            normalised: an N-bit sample s becomes s / 2^(N-1); floats become round(x * 2^(N-1)), \
            clipped. -d ulaw and -d alaw code each sample to the nearest G.711 level of the same \
            sign, from its exact value (not rounded to 16 bits first); µ-law and A-law sources \
            kept in their law are copied byte for byte. -d aac writes AAC-LC with libavcodec's \
            encoder (loaded at the first AAC job; Debian package libavcodec59) at -b bits per second \
            (default 64000 per channel), gapless: the pakt holds the encoder's priming and the \
            source's exact frame count, and each file is decoded and checked after writing (length, \
            alignment, SNR). An AAC CAF given as input is decoded to linear PCM (16-bit by default).

            Each output is written to a temporary file beside it, read back and checked, then \
            renamed into place; a failed file leaves nothing at its output path. Inputs are never \
            modified.

            Re-runs are incremental, like make: an output is converted again only when it is \
            missing, its source changed (size or modification time), the conversion options \
            changed, or the output itself was changed. The state lives in a .cafconv-manifest file \
            in the output folder (or in the input folder when outputs are written beside inputs). \
            --force converts everything; --dry-run prints the plan and writes nothing; --check \
            writes nothing, lists on stdout each output that is missing, out of date or orphaned \
            (also with -q) and exits 1 if there is any (or an input is unreadable). Outputs cafconv \
            made whose source is gone are reported as orphaned; --prune deletes them, and the \
            folders that held nothing else.

            Results go to stdout, one line per file, in the order of the inputs. Errors and warnings \
            go to stderr as soon as each file is done (above the progress line, drawn when stderr \
            is a terminal); when any file failed, the failed files are listed again before the \
            summary, which is the last line on stderr. SIGINT or SIGTERM stops the run: no new file \
            is started, temporary files are deleted, the exit status is 130, and the next run \
            finishes the work. A second signal stops at once (the next run deletes what is left).

            Exit status: 0 every input converted or up to date; 1 any input failed, or a folder \
            held no WAV file (with --check, also: anything is missing, out of date or orphaned); \
            64 usage error; 130 interrupted.
            """,
        positionals: inputs,
        options: [output, endian, dataFormat, bitRate, jobs, force, dryRun, check, prune, SharedOptions.report, verbose])

    let inputs: [String]
    let output: String?
    let options: ConversionOptions
    let check: Bool
    let json: Bool
    let quiet: Bool
    let verbose: Bool

    /// Reads and checks the options: every usage error is thrown here, before anything runs.
    init(_ invocation: Invocation) throws(CommandLineError) {
        inputs = invocation.positionals
        output = invocation[Self.output]
        check = invocation[Self.check]
        json = invocation[SharedOptions.json]
        quiet = invocation[SharedOptions.quiet]
        verbose = invocation[Self.verbose]
        if inputs.isEmpty { throw CommandLineError("give at least one WAV file or folder") }
        let jobs = invocation[Self.jobs]
        if let jobs, jobs < 1 { throw CommandLineError("--jobs must be at least 1") }
        if quiet && verbose { throw CommandLineError("--quiet and --verbose cannot be used together") }
        if let output, let blocker = Planner.fileInTheWay(of: output, inputs: inputs) {
            throw CommandLineError(
                blocker == output || blocker + "/" == output
                    ? "-o \(output) is a file, but a folder or several inputs are converted into a folder; remove it or choose another -o"
                    : "-o \(output): \(blocker) is a file, not a folder; remove it or choose another -o")
        }
        do throws(DataFormatError) {
            let format = invocation[Self.dataFormat]
            let options = ConversionOptions(
                dataFormat: format, endian: invocation[Self.endian], jobs: jobs, force: invocation[Self.force],
                dryRun: invocation[Self.dryRun] || check, prune: invocation[Self.prune],
                bitRate: invocation[Self.bitRate])
            try options.validate()
            self.options = options
        } catch {
            throw CommandLineError(error.message)
        }
    }

    func run() -> Int32 {
        let interruption = Interruption()
        defer { interruption.stop() }
        let terminal = Terminal.current
        let style = Output.Style(
            json: json, quiet: quiet, verbose: verbose, dryRun: options.dryRun, check: check, color: terminal.color)
        let line = terminal.interactive && !quiet && !json && !options.dryRun ? ProgressLine() : nil
        // Errors and warnings are printed as each file ends, not after the run.
        let log = LiveLog(style: style, line: line)
        let report = Engine.run(
            inputs: inputs, output: output, options: options, cancellation: interruption.cancellation,
            progress: { step in log.handle(step) })
        line?.clear()
        Output.render(report, style: style, printed: log.printed)
        if report.interrupted { return ExitStatus.interrupted }
        if !report.succeeded || (check && !report.isCurrent) { return ExitStatus.failure }
        return ExitStatus.success
    }
}

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
    static let jobs = Option<Int>("jobs", short: "j", help: "Convert this many files at once (default: all cores).")
    static let force = Flag("force", help: "Convert every input, even when its output is up to date.")
    static let dryRun = Flag(
        "dry-run", help: "Print what would be converted, what is up to date and what is orphaned; write nothing.")
    static let check = Flag(
        "check", help: "Write nothing; list what is missing, out of date or orphaned, and exit 1 if anything is.")
    static let prune = Flag(
        "prune", help: "Delete outputs that cafconv made whose source is gone (only .caf files it recorded).")
    static let verbose = Flag("verbose", short: "v", help: "Print more detail for each file.")
    static let depfile = Option<String>(
        "depfile", help: "Write each output's dependencies (its source and rules file) to this file, in Make syntax.",
        completion: .files)
    static let shard = Option<String>(
        "shard",
        help: "Convert only share K of N of the files (K/N, as in 2/4), chosen by a stable hash of each output path.")
    static let rules = Option<String>(
        "rules",
        help: "Take per-file settings from this rules file (TOML) instead of a cafconv.toml at each folder input.",
        completion: .fileTypes(["toml"]))

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
            kept in their law are copied byte for byte.

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

            Per-file settings come from a cafconv.toml at the root of a folder input, or from \
            --rules FILE: [defaults] and ordered [[rule]] tables whose match patterns (sfx/**, \
            **/*.wav) are matched against paths relative to the input root; the first matching \
            rule governs a file, and options on the command line win over rules and defaults. -v \
            shows the governing rule of each file; the summary gives bytes in and out per rule. \
            --depfile FILE writes each output's dependencies (source and rules file) in Make \
            syntax; --shard K/N converts one share of the files for a CI matrix (a run without \
            --shard over the gathered output folders merges their manifests).

            Results go to stdout, one line per file, in the order of the inputs. Errors and warnings \
            go to stderr as soon as each file is done (above the progress line, drawn when stderr \
            is a terminal); when any file failed, the failed files are listed again before the \
            summary, which is the last line on stderr. SIGINT or SIGTERM stops the run: no new file \
            is started, temporary files are deleted, the exit status is 130, and the next run \
            finishes the work. A second signal stops at once (the next run deletes what is left).

            Exit status: 0 every input converted or up to date; 1 any input failed, or a folder \
            held no WAV file (with --check, also: anything is missing, out of date or orphaned); \
            64 usage error (also a rules file with an error); 130 interrupted.
            """,
        positionals: inputs,
        options: [
            output, endian, dataFormat, rules, depfile, shard, jobs, force, dryRun, check, prune, SharedOptions.report, verbose,
        ])

    let inputs: [String]
    let output: String?
    let options: ConversionOptions
    let check: Bool
    let json: Bool
    let quiet: Bool
    let verbose: Bool
    let rulesFile: String?
    let depfile: String?
    /// Rules keys the command line sets: they win over rules files.
    let commandLineKeys: Set<RuleKey>

    /// Reads and checks the options: every usage error is thrown here, before anything runs.
    init(_ invocation: Invocation) throws(CommandLineError) {
        inputs = invocation.positionals
        output = invocation[Self.output]
        check = invocation[Self.check]
        json = invocation[SharedOptions.json]
        quiet = invocation[SharedOptions.quiet]
        verbose = invocation[Self.verbose]
        rulesFile = invocation[Self.rules]
        depfile = invocation[Self.depfile]
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
            var options = ConversionOptions(
                dataFormat: format, endian: invocation[Self.endian], jobs: jobs, force: invocation[Self.force],
                dryRun: invocation[Self.dryRun] || check, prune: invocation[Self.prune])
            options.shard = try invocation[Self.shard].map { text throws(DataFormatError) in try Shard(parsing: text) }
            try options.validate()
            self.options = options
            var keys: Set<RuleKey> = []
            if format != nil { keys.insert(.format) }
            if invocation[Self.endian] != nil || format?.byteOrder != nil { keys.insert(.endian) }
            commandLineKeys = keys
        } catch {
            throw CommandLineError(error.message)
        }
    }

    /// The rules files of the run: `--rules`, or a `cafconv.toml` at each folder input (only a
    /// `stat` per folder input when there is none: a run without rules reads no TOML).
    func ruleBook() throws(RuleError) -> RuleBook {
        if let rulesFile {
            return RuleBook(
                global: try RulesFile.load(rulesFile), globalPath: rulesFile, byRoot: [:], commandLine: commandLineKeys)
        }
        var byRoot: [String: ConversionRules] = [:]
        for input in inputs where byRoot[input] == nil {
            guard let path = RulesFile.path(atRoot: input) else { continue }
            byRoot[input] = try RulesFile.load(path)
        }
        return RuleBook(global: nil, globalPath: nil, byRoot: byRoot, commandLine: commandLineKeys)
    }

    func run() -> Int32 {
        let book: RuleBook
        do throws(RuleError) { book = try ruleBook() } catch {
            Console.error("\(Output.errorPrefix(color: Terminal.current.color)) \(error.description)")
            return ExitStatus.usage
        }
        let interruption = Interruption()
        defer { interruption.stop() }
        let terminal = Terminal.current
        let style = Output.Style(
            json: json, quiet: quiet, verbose: verbose, dryRun: options.dryRun, check: check, color: terminal.color)
        let line = terminal.interactive && !quiet && !json && !options.dryRun ? ProgressLine() : nil
        // Errors and warnings are printed as each file ends, not after the run.
        let log = LiveLog(style: style, line: line)
        let report = Engine.run(
            inputs: inputs, output: output, options: options, rules: book, cancellation: interruption.cancellation,
            progress: { step in log.handle(step) })
        line?.clear()
        Output.render(report, style: style, printed: log.printed)
        if let depfile, !report.interrupted {
            do throws(ConversionError) { try Depfile.write(Depfile.text(for: report), to: depfile) } catch {
                Console.error("\(Output.errorPrefix(color: terminal.color)) \(depfile): \(error.message)")
                return ExitStatus.failure
            }
        }
        if report.interrupted { return ExitStatus.interrupted }
        if !report.succeeded || (check && !report.isCurrent) { return ExitStatus.failure }
        return ExitStatus.success
    }
}

import BinaryIO
import CommandLineKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import SoundReport
import Transcoding
import Verification

/// `cafconv convert`: audio files and folders to CAF.
struct Convert {
    static let inputs = Positionals(
        "inputs", help: "Audio files (WAV, AIFF, FLAC, Ogg, MP3, AU, CAF...) or folders to convert.",
        completion: .fileTypes(Planner.audioExtensions))
    static let output = Option<String>(
        "output", short: "o", help: "Output file, or folder when converting folders or several inputs.",
        completion: .files)
    static let dataFormat = SharedOptions.dataFormat(
        help:
            "Output data format, afconvert's FMT[@RATE]: \(OutputCodecs.examples), with an optional sample rate in Hz (LEI16@22050); 0@RATE keeps the source's format and changes only the rate. Default: the source's format and rate."
    )
    static let check = Flag(
        "check", help: "Write nothing; list what is missing, out of date or orphaned, and exit 1 if anything is.")
    static let verbose = Flag("verbose", short: "v", help: "Print more detail for each file (and the files ignored).")
    static let progress = Option<ProgressMode>(
        "progress", valueName: "mode",
        help:
            "Progress inside files: auto (a live line on a terminal, a heartbeat line every 5 s in a log), json (JSON lines on stderr, docs/convert.md), none.")
    static let noState = Flag(
        "no-state",
        help: "Read and write no .cafconv-manifest: convert every input, record nothing (the build system decides what is up to date).")
    static let include = Option<Glob>(
        "include", valueName: "glob",
        help: "Take only the files of folder inputs that match this pattern (repeatable; see the discussion).",
        parse: { text in try Glob(text) })
    static let exclude = Option<Glob>(
        "exclude", valueName: "glob", help: "Leave out the files of folder inputs that match this pattern (repeatable).",
        parse: { text in try Glob(text) })
    static let fileType = Option<String>(
        "file", short: "f", valueName: "type", help: "Output file type, as afconvert's -f: caff (cafconv writes CAF only).")
    static let depfile = Option<String>(
        "depfile", help: "Write each output's dependencies (its source and rules file) to this file, in Make syntax.",
        completion: .files)
    static let htmlReport = Option<String>(
        "report", valueName: "file",
        help:
            "Also write an HTML report of the run to this file: each output beside its source (levels, waveforms, loops, the proof), failures first (see cafconv report).",
        completion: .files)
    static let rules = Option<String>(
        "rules",
        help: "Take per-file settings from this rules file (TOML) instead of a cafconv.toml at each folder input.",
        completion: .fileTypes(["toml"]))

    /// Why an afconvert option cafconv does not have is refused, with what to do instead (`nil`
    /// for any other spelling). An option cafconv gains (declared above) is found before this is
    /// asked.
    static func afconvertOption(_ spelling: String) -> String? {
        let why: String
        switch spelling {
        case "-l", "--channellayout": why = "cafconv copies the source's channel layout (from WAVE_FORMAT_EXTENSIBLE)"
        case "--src-complexity": why = "cafconv resamples with libsoxr; --src-quality (-r) chooses its recipe"
        // afconvert's -q (quality) is cafconv's --quiet: only its long spelling is listed.
        case "--bitrate", "--quality":
            why = "cafconv's AAC takes only the bit rate, -b (--bit-rate); libavcodec's encoder chooses the rest"
        case "--prime-method", "--prime-override", "--no-filler", "--codec-manuf":
            why = "cafconv writes no codec that needs priming or encoder options"
        case "--soundcheck-generate", "--soundcheck-read", "--media-kind", "--anchor-loudness", "--generate-hash",
            "--copy-hash", "-u", "--userproperty", "--gain":
            why = "cafconv writes the audio and its layout only"
        case "--read-track", "--write-track": why = "cafconv reads the one audio stream of each source"
        default: return nil
        }
        return "afconvert's \(spelling) is not supported: \(why)"
    }

    static let name = "convert"
    static let abstract = "Convert audio files and folders to CAF with an explicit byte order."
    static let command: Command = {
        var command = Command(
            name,
            abstract: abstract,
            discussion: """
                Sources: WAV (RIFF, RIFX, RF64, Wave64), AIFF and AIFF-C, CAF, FLAC, Ogg Vorbis, Ogg \
                Opus, MP3 and Sun/NeXT .au, recognised by their content, not their name; anything else \
                is an error naming the file. IMA4 (AIFF-C and CAF) sources are decoded by cafconv (to LEI16 by default); AAC CAF sources are decoded by libavcodec. \
                Folders are searched recursively for files named *.\(Planner.audioExtensions.joined(separator: ", *.")) \
                (any case); other files, hidden files and files cafconv wrote (its manifests record them) \
                are ignored, and a folder without any audio file is an error. --include and --exclude \
                (each repeatable) narrow what folders contribute: a pattern without '/' matches the file \
                name, one with '/' the path below the input folder; * and ? match within a name, [a-z] \
                one character of a set, ** whole folders (old/**, **/take-*.wav); --exclude wins. With \
                -v the ignored files are listed; the summary and --json count them. Two sources that \
                would become one output (a.wav and a.aif) are both refused before anything is written. \
                With -o and a folder (or several inputs), the output folder mirrors each input tree (an \
                existing file in its place is a usage error); without -o, each CAF is written beside its \
                input (a CAF source is never overwritten: convert it into another folder).

                By default the source's sample format is kept where CAF can hold it: unsigned 8-bit \
                becomes signed I8 with the same waveform; FLAC becomes linear PCM of its bit depth; \
                ALAC stays ALAC; MP3, Vorbis and Opus become 16-bit (LEI16); ADPCM and GSM 6.10 become \
                16-bit. Samples are \
                little-endian unless --endian or -d says otherwise. Integer <-> float conversion is not \
                normalised: an N-bit sample s becomes s / 2^(N-1); floats become round(x * 2^(N-1)), \
                clipped. -d ulaw and -d alaw code each sample to the nearest G.711 level of the same \
                sign, from its exact value (not rounded to 16 bits first); µ-law and A-law sources \
                kept in their law are copied byte for byte. -d ima4 writes Apple IMA4 (afconvert's \
                layout, exact length in the pakt) with cafconv's own encoder; the file is decoded again \
                and fails unless its SNR against the source reaches 10 dB. -d aac writes AAC-LC with \
                libavcodec's encoder (loaded at the first AAC job; Debian package libavcodec59) at -b \
                bits per second (default 64000 per channel), gapless: the pakt holds the encoder's \
                priming and the source's exact frame count, and each file is decoded and checked after \
                writing (length, alignment, SNR). An AAC CAF given as input is decoded to linear PCM \
                (16-bit by default).

                -d FMT@RATE resamples with libsoxr (quality vhq unless --src-quality says otherwise); \
                0@RATE keeps the source's format. The output holds round(frames x new rate / old \
                rate) frames, aligned with the source: no delay, no ring-off. -c N sets the channel \
                count: with --mix (the default) stereo -> mono averages L and R (each at -6 dB), mono \
                -> stereo copies, and N channels mix into 2 or 1 by ITU-R BS.775 from the source's \
                channel mask (centre and surrounds -3 dB, LFE dropped), scaled so that full scale \
                cannot clip; --no-mix keeps the first N channels (adding silent ones). Mixed or \
                resampled samples are rounded to the output's bits; --dither tpdf adds triangular \
                dither, the same for the same input, wherever samples lose precision.

                Loops, markers and text travel with the audio: 'smpl' loops become CAF 'inst', 'regn' \
                and 'mark' chunks, 'cue ' points named by 'LIST'/'adtl' become 'mark' markers named in \
                'strg', and 'LIST'/'INFO' and 'bext' text becomes 'info' with Apple's keys \
                (docs/metadata.md). A position past the end of the output is dropped with a \
                warning. -d aac outputs carry none (a warning says so when the source has any). \
                --strip-metadata writes none of them.

                Each output is written to a temporary file beside it, read back and checked, then \
                renamed into place; a failed file leaves nothing at its output path. Inputs are never \
                modified. Pipes: - reads the source from standard input, and an input that \
                is a pipe or a character device (/dev/stdin, <(...)) is read the same way; either is \
                copied to a private temporary folder first (every reader seeks), is converted alone, and \
                needs -o. -o - writes the CAF to standard output (result lines then go to stderr): \
                linear PCM is streamed as it is made, its 'data' size -1, each block proved before it \
                is written (a failure stops the stream, exit status 1); other formats are written and \
                proved in that folder first (nothing reaches stdout when the file fails); no file \
                named - is ever written.

                Re-runs are incremental, like make: an output is converted again only when it is \
                missing, its source's bytes changed, the conversion options changed, or the output \
                itself was changed (size and times decide when they match the record; when they \
                differ, as after a fresh checkout or a plain copy, an XXH3-128 digest of the bytes \
                does). The state lives in a .cafconv-manifest file in the output folder (or in the \
                input folder when outputs are written beside inputs). One input file with -o FILE \
                is the single-file mode for build systems: no manifest, it reads only the file and \
                --rules, writes only the output (kept as it is when the bytes are the same) and \
                --depfile, and converts every time (an output name that does not end in .caf gets a \
                warning: the file is CAF whatever its name). --no-state keeps no manifest for any run \
                (folders too): every input is converted. --persistent_worker serves Bazel's JSON worker \
                protocol on stdin and stdout; --flagfile=PATH reads arguments from PATH, one a line. \
                --force converts everything; --dry-run prints the plan and writes nothing; --check \
                writes nothing, lists on stdout each output that is missing, out of date or orphaned \
                (also with -q) and exits 1 if there is any (or an input is unreadable). Outputs cafconv \
                made whose source is gone are reported as orphaned; --prune deletes them, and the \
                folders that held nothing else. A folder input answers for every output recorded in \
                its output folder; a file given by name answers only for its own output (a run of one \
                file into a shared folder looks at no other record); a missing input, for the outputs \
                made from it. --prune looks at every record of the output folder, whatever the inputs.

                Per-file settings come from a cafconv.toml at the root of a folder input, or from \
                --rules FILE: [defaults] and ordered [[rule]] tables whose match patterns (sfx/**, \
                **/*.wav) are matched against paths relative to the input root; the first matching \
                rule governs a file, and options on the command line win over rules and defaults. -v \
                shows the governing rule of each file; the summary gives bytes in and out per rule. \
                --depfile FILE writes each output's dependencies (source and rules file) in Make \
                syntax (a name Make or Ninja would misread is refused). --depfile, --report and the \
                -o of one input file never name an input, the rules file, an output, a \
                .cafconv-manifest or each other (a usage error, nothing written). --shard K/N \
                converts one share of the files for a CI matrix (a run without --shard over the \
                gathered output folders merges their manifests).

                Results go to stdout, one line per file, in the order of the inputs. Errors and warnings \
                go to stderr as soon as each file is done (above the progress line, drawn when stderr \
                is a terminal); when any file failed, the failed files are listed again before the \
                summary, which is the last line on stderr. SIGINT or SIGTERM stops the run: no new file \
                is started, temporary files are deleted, the exit status is 130, and the next run \
                finishes the work. A second signal stops at once (the next run deletes what is left).

                Exit status: 0 every input converted or up to date; 1 any input failed, or a folder \
                held no audio file (with --check, also: anything is missing, out of date or orphaned); \
                64 usage error (also a rules file with an error); 130 interrupted.
                """,
            positionals: inputs,
            // The settings' options (Settings.all) where help has always listed them; a setting's
            // option not named here comes last.
            options: SettingOptions.list([
                output, setting("endian"), dataFormat, setting("bit-rate"), fileType, setting("channels"),
                setting("mix"), setting("no-mix"), setting("src-quality"), setting("dither"), include, exclude,
                setting("jobs"), setting("force"), rules, depfile, setting("shard"), setting("dry-run"), check,
                setting("prune"), noState, progress, SharedOptions.report, verbose, setting("strip-metadata"), htmlReport,
            ]))
        command.foreignOption = afconvertOption
        return command
    }()

    let inputs: [String]
    let output: String?
    let options: ConversionOptions
    let selection: Planner.Selection
    let check: Bool
    let json: Bool
    let quiet: Bool
    let verbose: Bool
    let rulesFile: String?
    let depfile: String?
    let htmlReport: String?
    /// `--no-state`: no manifest read or written.
    let keepsState: Bool
    /// `--progress`.
    let progressMode: ProgressMode
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
        htmlReport = invocation[Self.htmlReport]
        keepsState = !invocation[Self.noState]
        progressMode = invocation[Self.progress] ?? .auto
        if inputs.isEmpty { throw CommandLineError("give at least one audio file or folder") }
        if let type = invocation[Self.fileType], !["caff", "caf"].contains(type.lowercased()) {
            throw CommandLineError("-f \(type): cafconv writes CAF only; use -f caff or leave -f out")
        }
        selection = Planner.Selection(include: invocation.all(Self.include), exclude: invocation.all(Self.exclude))
        if quiet && verbose { throw CommandLineError("--quiet and --verbose cannot be used together") }
        if let why = PipedFiles.refusal(inputs: inputs, output: output) { throw CommandLineError(why) }
        if let why = Self.overwrittenFile(inputs: inputs, output: output, depfile: depfile, report: htmlReport, rules: rulesFile) {
            throw CommandLineError(why)
        }
        if output == "-" && json { throw CommandLineError("-o - writes the CAF to standard output: --json cannot go there too") }
        if let output, output != "-", let blocker = Planner.fileInTheWay(of: output, inputs: inputs) {
            throw CommandLineError(
                blocker == output || blocker + "/" == output
                    ? "-o \(output) is a file, but a folder or several inputs are converted into a folder; remove it or choose another -o"
                    : "-o \(output): \(blocker) is a file, not a folder; remove it or choose another -o")
        }
        do throws(DataFormatError) {
            var options = ConversionOptions()
            options.codecs = OutputCodecs.vocabulary
            commandLineKeys = try Setting.applyCommandLine(SettingOptions.given(in: invocation), to: &options)
            // --check plans as --dry-run does; it only reports differently.
            if check { options.dryRun = true }
            // --report: each job measures what it decodes anyway, for the page.
            options.measuresLevels = htmlReport != nil
            try options.validate()
            self.options = options
        } catch {
            throw CommandLineError(error.message)
        }
        if !keepsState && (check || options.prune) {
            throw CommandLineError("--no-state keeps no manifest: --\(check ? "check" : "prune") needs it")
        }
        if options.dryRun && (output == "-" || inputs.contains(where: PipedFiles.isPipe)) {
            throw CommandLineError("--dry-run and --check plan files: a pipe (-, -o -) is read or written only by a conversion")
        }
    }

    /// Why `--depfile`, `--report` or the `-o` of one input file would overwrite a file the run
    /// reads or writes otherwise (``Planner/overwrittenFile(by:inputs:output:rules:)``), or `nil`.
    /// Pipes (`-`, `-o -`) are not files the run could overwrite.
    static func overwrittenFile(inputs: [String], output: String?, depfile: String?, report: String?, rules: String?)
        -> String?
    {
        var written: [Planner.WrittenFile] = []
        if let depfile { written.append(.init(option: "--depfile", path: depfile)) }
        if let report { written.append(.init(option: "--report", path: report)) }
        if let output, output != "-", !output.hasSuffix("/"), !Planner.isFolder(output), inputs.count == 1,
            !inputs.contains(where: Planner.isFolder)
        {
            written.append(.init(option: "-o", path: output))
        }
        return Planner.overwrittenFile(
            by: written, inputs: inputs.filter { !PipedFiles.isPipe($0) }, output: output, rules: rules)
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
        let line =
            terminal.interactive && !quiet && !json && !options.dryRun && progressMode == .auto ? ProgressLine() : nil
        // Errors and warnings are printed as each file ends, not after the run.
        let log = LiveLog(style: style, line: line)
        // `-`, pipes and `-o -`: private copies the engine reads and writes (PipedFiles).
        let piped: PipedFiles
        do throws(StandardStreams.Failure) { piped = try PipedFiles(inputs: inputs, output: output) } catch {
            Console.error("\(Output.errorPrefix(color: terminal.color)) \(PathBytes.display(error.message))")
            return ExitStatus.failure
        }
        defer { piped.remove() }
        if piped.toStandardOutput { Console.divertOutput() }
        let names: @Sendable (String) -> String = { piped.named($0) }
        let display: ProgressDisplay? =
            options.dryRun ? nil : ProgressDisplay(mode: progressMode, quiet: quiet, json: json, line: line, named: names)
        var counters: (@Sendable (Job) -> FrameProgress?)? = nil
        if let display { counters = { job in display.counter(for: job) } }
        let report = piped.named(
            Engine.run(
                inputs: piped.inputs, output: piped.output, options: piped.streaming(options), selection: selection, rules: book,
                cancellation: interruption.cancellation, keepsState: keepsState,
                progress: { step in
                    display?.finished(step)
                    log.handle(piped.named(step))
                }, frames: counters))
        line?.clear()
        Output.render(report, style: style, printed: log.printed)
        if let depfile, !report.interrupted {
            do throws(ConversionError) { try Depfile.write(Depfile.bytes(for: report), to: depfile) } catch {
                Console.error("\(Output.errorPrefix(color: terminal.color)) \(PathBytes.display("\(depfile): \(error.message)"))")
                return ExitStatus.failure
            }
        }
        if let htmlReport, !report.interrupted, !options.dryRun {
            let start = FileSystem.now()
            let decodes = SoundMeasurement.decodes.load(ordering: .relaxed)
            let entries = Report.entries(of: report, jobs: options.jobs)
            let again = SoundMeasurement.decodes.load(ordering: .relaxed) - decodes
            guard
                Report.write(
                    entries, title: "cafconv convert", to: htmlReport, readIn: FileSystem.now() &- start, quiet: quiet,
                    decodedAgain: again)
            else {
                return ExitStatus.failure
            }
        }
        if report.interrupted { return ExitStatus.interrupted }
        if !report.succeeded || (check && !report.isCurrent) { return ExitStatus.failure }
        do throws(StandardStreams.Failure) { try piped.copyOut() } catch {
            Console.error("\(Output.errorPrefix(color: terminal.color)) \(error.message)")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}

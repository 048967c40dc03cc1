import BinaryIO
import CommandLineKit
import Conversion
import ConversionModel
import OutputFiles
import Rules
import SystemLayer
import Transcoding

/// `cafconv afconvert` (and the executable invoked as `afconvert`): Apple's afconvert grammar,
/// `afconvert [option...] input_file [output_file]`, translated into the settings `convert`
/// reads (``Settings/all``) and run by the same engine. One file in, one CAF out, nothing else
/// written (no `.cafconv-manifest`); silent unless `-v`, as afconvert is. docs/afconvert.md lists
/// what is supported and what differs.
struct AFConvert {
    static let name = "afconvert"
    static let abstract = "Convert one file to CAF with afconvert's command line (Mac build scripts run unchanged)."

    static let files = Positionals(
        "files", help: "input_file [output_file]: the source, and the CAF to write (default: the input's name with .caf).",
        completion: .fileTypes(Planner.audioExtensions))
    static let output = Option<String>(
        "output", short: "o", valueName: "file", help: "The output file (instead of the positional output_file).",
        completion: .files)
    static let file = Option<String>(
        "file", short: "f", valueName: "file_format", help: "Output file type: caff (cafconv writes CAF only).")
    static let data = Option<String>(
        "data", short: "d", valueName: "data_format",
        help:
            "data_format[@sample_rate]: \(OutputCodecs.examples), Apple's four-character codes ('aac ', 'ima4', 'ulaw', 'alaw', 'lpcm'), or 0@RATE."
    )
    static let channels = Option<String>(
        "channels", short: "c", valueName: "number_of_channels",
        help: "Output channel count; without --mix the leading channels are kept (as afconvert does).")
    static let mix = Flag("mix", help: "Mix channels when -c changes their count (ITU-R BS.775 downmix, mono -> stereo copies).")
    static let bitRate = Option<String>(
        "bitrate", short: "b", valueName: "total_bit_rate_bps", help: "Total bit rate of -d aac, in bits per second.")
    static let quality = Option<String>(
        "quality", short: "q", valueName: "codec_quality",
        help: "Codec quality 0-127: accepted; cafconv's encoders have no such setting, so it changes nothing.")
    static let strategy = Option<String>(
        "strategy", short: "s", valueName: "strategy",
        help: "Bit rate strategy of -d aac: 1 (ABR, what cafconv's AAC encoder codes at -b); 0 (CBR) is written as 1, with a note; 2 and 3 (VBR) are refused.")
    static let srcQuality = Option<String>(
        "src-quality", short: "r", valueName: "src_quality",
        help: "Sample rate converter quality 0-127 (default 127): 127 vhq, 96-126 hq, 64-95 mq, 32-63 lq, 0-31 qq (libsoxr).")
    static let srcComplexity = Option<String>(
        "src-complexity", valueName: "src_complexity",
        help: "Sample rate converter complexity: line, norm or bats; cafconv always resamples with libsoxr (bats: its best).")
    static let verbose = Flag("verbose", short: "v", help: "Print what was converted, and how it was proved.")
    static let layout = Option<String>(
        "channellayout", short: "l", valueName: "layout_tag",
        help: "The output's layout tag: Mono or Stereo (kAudioChannelLayoutTag_ may be left out), as -c 1 or -c 2.")
    static let property = Option<String>(
        "userproperty", short: "u", valueName: "property value",
        help:
            "An Audio Converter property (-u and -ue take two words): brat (-b), srcq (-r), cdqu and vbrq (-q), acbf (-s); any other is refused by name.")

    /// afconvert's options cafconv does not have, by every spelling a script may use, with why
    /// (`nil`: not one of afconvert's). Looked up before parsing, so that `-hf`, `-ue` and the
    /// options with two values are refused whole, not read letter by letter.
    static func refusal(_ spelling: String) -> String? {
        let why: String
        switch spelling {
        case "--prime-method", "--prime-override", "--no-filler":
            why = "cafconv writes the encoder's exact priming and padding in the pakt, and always aligns audio itself"
        case "--soundcheck-generate", "--soundcheck-read", "--media-kind", "--anchor-loudness", "--generate-hash",
            "--copy-hash", "--gain", "-t", "--tag":
            why = "cafconv writes the audio, its layout and the source's markers and text only"
        case "--read-track", "--write-track": why = "cafconv reads the one audio stream of each source"
        case "--leaf-conversion", "--codec-manuf", "--decode-only", "--dither", "--dither-algorithm":
            why = "cafconv has no such converter setting (its own --dither is cafconv convert's)"
        case "-hf", "--help-formats": why = "cafconv writes CAF only; cafconv afconvert --help lists the data formats"
        default: return nil
        }
        return "afconvert's \(spelling) is not supported: \(why)"
    }

    static let command: Command = {
        var command = Command(
            name,
            abstract: abstract,
            discussion: """
                afconvert's grammar: afconvert [option...] input_file [output_file], options before or \
                after the files. The output is a CAF file (-f caff, or no -f); without output_file it \
                is the input's name with .caf, beside it. An existing output is replaced, as afconvert \
                does. -c without --mix keeps the leading channels (adding silent ones), as afconvert \
                does; with --mix it mixes. The conversion, its checks and its proof are cafconv \
                convert's; nothing else is written (no .cafconv-manifest). Options afconvert has and \
                cafconv does not are refused by name with the reason (docs/afconvert.md). Invoked under \
                the name afconvert (a link to cafconv), the executable runs this command.

                Exit status: 0 converted; 1 the file failed; 64 usage error.
                """,
            positionals: files,
            options: [
                output, file, data, channels, mix, layout, bitRate, quality, strategy, srcQuality, srcComplexity, property,
                verbose,
            ])
        command.foreignOption = refusal
        return command
    }()

    let input: String
    let outputPath: String?
    let options: ConversionOptions
    let verbose: Bool
    /// Notes printed before the run (options accepted that change nothing).
    let notes: [String]

    /// afconvert's Audio Converter properties (`-u`/`-ue property value`) that have an option of
    /// their own: the property's four-character code, and the option it is.
    static let properties: [String: String] = [
        "brat": "-b",  // kAudioConverterEncodeBitRate
        "srcq": "-r",  // kAudioConverterSampleRateConverterQuality
        "cdqu": "-q",  // kAudioConverterCodecQuality
        "vbrq": "-q",  // kAudioCodecPropertySoundQualityForVBR: a quality 0-127, as -q
        "acbf": "-s",  // kAudioCodecPropertyBitRateControlMode: 0 CBR, 1 ABR, 2 and 3 VBR, as -s
    ]

    /// The arguments with each `-u`/`-ue`/`--userproperty property value` written as the option
    /// it is (``properties``), and afconvert's refused options named whole; a property without
    /// an equivalent is refused by name.
    static func translated(_ arguments: [String]) throws(CommandLineError) -> [String] {
        try checkRefused(arguments)
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            guard ["-u", "-ue", "--userproperty"].contains(word), !result.contains("--") else {
                result.append(word)
                continue
            }
            guard index + 1 < arguments.count else {
                throw CommandLineError("\(word) takes two words: a property's four-character code and its value", path: [name])
            }
            let (code, value) = (arguments[index], arguments[index + 1])
            index += 2
            var trimmed = Substring(code)
            if trimmed.count >= 2, trimmed.first == "'", trimmed.last == "'" { trimmed = trimmed.dropFirst().dropLast() }
            guard let option = properties[String(trimmed)] else {
                throw CommandLineError(
                    "afconvert's \(word) \(code) is not supported: cafconv has no Audio Converter; the properties with an equivalent are \(properties.keys.sorted().joined(separator: ", ")) (docs/afconvert.md)",
                    path: [name])
            }
            result += [option, value]
        }
        return result
    }

    /// `-l`: a layout tag named by afconvert's constant (with or without
    /// `kAudioChannelLayoutTag_`), as the channel count it is; other tags are refused (cafconv
    /// writes the source's layout for the count).
    static func layoutChannels(_ tags: [String]) throws(CommandLineError) -> Int? {
        guard let last = tags.last else { return nil }
        if tags.count > 1 {
            throw CommandLineError(
                "-l given twice: afconvert's first -l sets the input's layout; cafconv reads the input's layout from the file",
                path: [name])
        }
        let tag = last.hasPrefix("kAudioChannelLayoutTag_") ? String(last.dropFirst("kAudioChannelLayoutTag_".count)) : last
        switch tag {
        case "Mono": return 1
        case "Stereo", "StereoHeadphones": return 2
        default:
            throw CommandLineError(
                "-l \(last): only Mono and Stereo are supported (as -c 1 and -c 2): cafconv writes the source's channel layout for its count",
                path: [name])
        }
    }

    /// Arguments checked for afconvert's options cafconv refuses, before the parser reads them
    /// (`-hf` would otherwise read as `-h`, `-ue` as `-u` and `-e`).
    static func checkRefused(_ arguments: [String]) throws(CommandLineError) {
        for word in arguments.prefix(while: { $0 != "--" }) where word.hasPrefix("-") {
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            if let why = refusal(name) { throw CommandLineError(why, path: [Self.name]) }
        }
    }

    /// A `-d` value as cafconv's parser reads it: Apple's four-character codes without their
    /// trailing spaces (`'aac '` is `aac`), `lpcm` as linear PCM of the source's bit depth.
    static func dataFormatText(_ text: String) throws(CommandLineError) -> String {
        var format = Substring(text)
        var rate = ""
        if let at = text.firstIndex(of: "@") {
            format = text[..<at]
            rate = String(text[at...])
        }
        for mark in ["/", "#"] where text.contains(mark) {
            throw CommandLineError(
                "-d \(text): afconvert's \(mark == "/" ? "/format_flags" : "#frames_per_packet") is not supported: cafconv chooses the flags and packet size of each format",
                path: [name])
        }
        // A code quoted for the shell, passed with its quotes (an exec without a shell).
        if format.count >= 2, format.first == "'", format.last == "'" { format = format.dropFirst().dropLast() }
        // Apple's codes are four characters, padded with spaces ('aac ', and 'ima4 ' as written).
        var trimmed = format
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        if trimmed.count <= 4 { format = trimmed }
        if format.lowercased() == "lpcm" { format = "0" }
        if let codec = unwritten[String(format)] {
            throw CommandLineError(
                "-d \(text): afconvert's \(codec) is not supported: cafconv writes linear PCM, ulaw, alaw, alac, ima4 and AAC-LC ('aac ')",
                path: [name])
        }
        if format.isEmpty { throw CommandLineError("-d '\(text)' names no data format", path: [name]) }
        return String(format) + rate
    }

    /// Apple's data format codes that cafconv does not write, with what they are.
    static let unwritten: [String: String] = [
        "aacl": "'aacl' (AAC-LD)", "aach": "'aach' (HE-AAC)", "aacp": "'aacp' (HE-AAC v2)", "aace": "'aace' (AAC-ELD)",
        "aacf": "'aacf' (AAC-ELD with SBR)", "aacg": "'aacg' (AAC-ELD v2)", "samr": "'samr' (AMR-NB)",
        "ilbc": "'ilbc' (iLBC)", "opus": "'opus' (Opus)", "flac": "'flac' (FLAC)", ".mp3": "'.mp3' (MP3)",
        "Qclp": "'Qclp' (QCELP)", "MAC3": "'MAC3' (MACE 3:1)", "MAC6": "'MAC6' (MACE 6:1)", "ac-3": "'ac-3' (AC-3)",
        "ec-3": "'ec-3' (E-AC-3)",
    ]

    /// afconvert converts one file into one CAF file: folders, another file type, and (without
    /// `-f`) an output name that does not say CAF are refused.
    static func checkFiles(input: String, output: String?, fileType: String?) throws(CommandLineError) {
        if FileSystem.kind(of: input) == .directory {
            throw CommandLineError(
                "\(input) is a folder: afconvert converts one file (use cafconv convert for folders)", path: [Self.name])
        }
        if let output, output != "-", output.hasSuffix("/") || FileSystem.kind(of: output) == .directory {
            throw CommandLineError("\(output) is a folder: afconvert's output_file is a file", path: [Self.name])
        }
        if let type = fileType, !["caff", "caf"].contains(type.lowercased()) {
            throw CommandLineError("-f \(type): cafconv writes CAF only; use -f caff or leave -f out", path: [Self.name])
        }
        if fileType == nil, let output, output != "-", !output.lowercased().hasSuffix(".caf") {
            throw CommandLineError(
                "\(output): without -f, afconvert's file type comes from the output's extension, and cafconv writes CAF only; name it .caf or give -f caff",
                path: [Self.name])
        }
    }

    init(_ invocation: Invocation) throws(CommandLineError) {
        let positionals = invocation.positionals
        guard let first = positionals.first else {
            throw CommandLineError("give the input file: afconvert [option...] input_file [output_file]", path: [Self.name])
        }
        guard positionals.count <= 2 else {
            throw CommandLineError(
                "afconvert takes one input_file and at most one output_file; got \(positionals.count) files", path: [Self.name])
        }
        let given = invocation[Self.output]
        if positionals.count == 2, given != nil {
            throw CommandLineError("give the output file once: either -o or a second file, not both", path: [Self.name])
        }
        input = first
        outputPath = given ?? (positionals.count == 2 ? positionals[1] : nil)
        verbose = invocation[Self.verbose]
        if input == "-" && outputPath == nil {
            throw CommandLineError(
                "reading standard input (-): give the output file (a name, or - for standard output)", path: [Self.name])
        }
        try Self.checkFiles(input: input, output: outputPath, fileType: invocation[Self.file])
        var notes: [String] = []
        if let quality = invocation[Self.quality] {
            guard let number = Int(quality), (0...127).contains(number) else {
                throw CommandLineError("-q \(quality): codec quality is a number from 0 to 127", path: [Self.name])
            }
            notes.append("-q \(quality) changes nothing: cafconv's encoders have no quality setting")
        }
        // cafconv's AAC encoder (libavcodec's) codes an average bit rate at -b, its packets varying
        // in size: it has no constant-bit-rate or quality-VBR mode, as convert's -s says for -d aac.
        switch invocation[Self.strategy] {
        case nil, "1": break
        case "0":
            // Mac scripts pass -s 0 for Safari: they run, told what they get.
            notes.append("-s 0 (CBR) is written at an average bit rate at -b: cafconv's AAC encoder (libavcodec's) has no constant-bit-rate mode")
        case let strategy?:
            throw CommandLineError(
                "-s \(strategy): only strategies 0 and 1 are supported, both written at an average bit rate at -b: cafconv's AAC encoder (libavcodec's) has no variable (2, 3) or constant-bit-rate mode",
                path: [Self.name])
        }
        if let complexity = invocation[Self.srcComplexity], !["line", "norm", "bats"].contains(complexity) {
            throw CommandLineError("--src-complexity \(complexity): use line, norm or bats", path: [Self.name])
        }
        // The settings convert reads, spelled as convert's options.
        var values: [String: String] = ["force": ""]
        if let text = invocation[Self.data] { values["data-format"] = try Self.dataFormatText(text) }
        let layoutCount = try Self.layoutChannels(invocation.all(Self.layout))
        if let count = invocation[Self.channels] ?? layoutCount.map(String.init) {
            guard let number = Int(count) else {
                throw CommandLineError("-c \(count): the channel count is a whole number", path: [Self.name])
            }
            if let layoutCount, layoutCount != number {
                throw CommandLineError("-l names \(layoutCount) channels and -c \(count): give one count", path: [Self.name])
            }
            values["channels"] = count
            values[invocation[Self.mix] ? "mix" : "no-mix"] = ""
        }
        if let rate = invocation[Self.bitRate] {
            guard Int(rate) != nil else {
                throw CommandLineError("-b \(rate): the bit rate is a whole number of bits per second", path: [Self.name])
            }
            values["bit-rate"] = rate
        }
        if let quality = invocation[Self.srcQuality] { values["src-quality"] = quality }
        let settings = values
        do throws(DataFormatError) {
            var options = ConversionOptions(jobs: 1)
            options.codecs = OutputCodecs.vocabulary
            _ = try Setting.applyCommandLine({ settings[$0] }, to: &options)
            // `lpcm` is linear PCM (spelled `0` for the parser), never the source's codec kept.
            if let text = invocation[Self.data], text.lowercased().hasPrefix("lpcm") { options.keepsSourceCodec = false }
            try options.validate()
            self.options = options
        } catch {
            throw CommandLineError(error.message, path: [Self.name])
        }
        self.notes = notes
    }

    /// The file the CAF is written to: the output file given, else the input's name with .caf
    /// beside it (named here, so that the run is the single-file mode: one input, `-o FILE`,
    /// nothing recorded).
    var target: String {
        if let outputPath { return outputPath }
        return FileSystem.joined(FileSystem.directoryName(input), FileSystem.stem(FileSystem.baseName(input)) + ".caf")
    }

    func run() -> Int32 {
        let terminal = Terminal.current
        if verbose {
            for note in notes { Console.error("\(Output.warningPrefix(color: terminal.color)) \(note)") }
        }
        // `-` in or out, and pipes: private copies the engine reads and writes (PipedFiles).
        let piped: PipedFiles
        do throws(StandardStreams.Failure) { piped = try PipedFiles(inputs: [input], output: target) } catch {
            Console.error("\(Output.errorPrefix(color: terminal.color)) \(PathBytes.display(error.message))")
            return ExitStatus.failure
        }
        defer { piped.remove() }
        let interruption = Interruption()
        defer { interruption.stop() }
        // afconvert prints nothing unless -v: errors only (and never a line on stdout that
        // carries the CAF).
        let style = Output.Style(
            json: false, quiet: !verbose || piped.toStandardOutput, verbose: verbose && !piped.toStandardOutput,
            color: terminal.color)
        let report = piped.named(
            Engine.run(inputs: piped.inputs, output: piped.output, options: piped.streaming(options), cancellation: interruption.cancellation))
        Output.render(report, style: style)
        if report.interrupted { return ExitStatus.interrupted }
        guard report.succeeded else { return ExitStatus.failure }
        do throws(StandardStreams.Failure) { try piped.copyOut() } catch {
            Console.error("\(Output.errorPrefix(color: terminal.color)) \(error.message)")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }
}

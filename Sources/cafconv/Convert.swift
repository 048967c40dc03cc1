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

            Exit status: 0 every input converted; 1 any input failed; 64 usage error.
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

    @Flag(help: "Print one JSON report on stdout instead of text.")
    var json = false

    @Flag(name: [.short, .long], help: "Print only errors.")
    var quiet = false

    @Flag(name: [.short, .long], help: "Print more detail for each file.")
    var verbose = false

    func options() throws(UsageError) -> ConversionOptions {
        let format = try dataFormat.map { text throws(UsageError) in try DataFormat(parsing: text) }
        let options = ConversionOptions(dataFormat: format, endian: endian, jobs: jobs)
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
        let report = Engine.convert(inputs: inputs, output: output, options: options)
        let style = Output.Style(json: json, quiet: quiet, verbose: verbose)
        Output.render(report, style: style)
        if !report.succeeded { throw ExitCode(1) }
    }
}

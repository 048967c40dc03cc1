import CommandLineKit
import Conversion
import ConversionModel
import OutputFiles
import SystemLayer

/// The files a `convert` or `afconvert` run gives the engine when its command line names pipes:
/// `-` (stdin), an input that is a pipe or a character device (`/dev/stdin`, `<(...)`), and `-o -`
/// (stdout). Such inputs are spooled into a private folder (``StandardStreams``) and the run reads
/// the copy; a linear PCM CAF for stdout is streamed there as it is made and proved (``streaming(_:)``),
/// any other is written and proved in the folder and copied out only after the run succeeded. Reports name what the command line said, never the private copies.
struct PipedFiles: Sendable {
    /// `-`, a pipe or a character device: an input read by spooling it.
    static func isPipe(_ input: String) -> Bool {
        if input == "-" { return true }
        var info = FileStatus()
        guard FileSystem.status(input, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR
    }

    /// Why a command line with pipes cannot run (a usage error), or `nil`. A piped input is
    /// converted alone, into a named file or stdout (it has no name to derive an output from);
    /// `-o -` takes one input.
    static func refusal(inputs: [String], output: String?) -> String? {
        let piped = inputs.filter(isPipe)
        if !piped.isEmpty, inputs.count > 1 {
            return "\(piped[0]) is read from a pipe: convert it alone (one input, with -o FILE or -o -)"
        }
        if let first = piped.first, output == nil {
            return "\(first == "-" ? "reading standard input (-)" : "\(first) is a pipe"): give the output file with -o (a name, or - for standard output)"
        }
        if output == "-", inputs.count != 1 { return "-o - writes one CAF to standard output: give one input" }
        if output == "-", inputs.count == 1, FileSystem.kind(of: inputs[0]) == .directory {
            return "-o - writes one CAF to standard output: \(inputs[0]) is a folder"
        }
        return nil
    }

    /// The private folder, when the run needs one.
    let streams: StandardStreams?
    /// The inputs the engine reads.
    let inputs: [String]
    /// The output the engine writes.
    let output: String?
    /// Each private path, with the name the command line gave.
    let given: [(path: String, name: String)]

    /// Whether the CAF goes to stdout.
    var toStandardOutput: Bool { streams != nil && given.contains { $0.name == "-" && $0.path == output } }

    /// Spools the piped inputs and picks the private output for `-o -`; the command line's files
    /// as they are when nothing is piped (no folder is made).
    init(inputs: [String], output: String?) throws(StandardStreams.Failure) {
        let piped = inputs.contains(where: Self.isPipe)
        guard piped || output == "-" else {
            (streams, self.inputs, self.output, given) = (nil, inputs, output, [])
            return
        }
        let streams = try StandardStreams()
        var given: [(path: String, name: String)] = []
        var read: [String] = []
        do throws(StandardStreams.Failure) {
            for (index, input) in inputs.enumerated() {
                guard Self.isPipe(input) else {
                    read.append(input)
                    continue
                }
                let name = "input-\(index)"
                let path = input == "-" ? try streams.spoolStandardInput(to: name) : try streams.spool(input, to: name)
                given.append((path, input))
                read.append(path)
            }
        } catch {
            streams.remove()
            throw error
        }
        var target = output
        if output == "-" {
            // A reader that stops early (`| head`) makes a write fail with EPIPE rather than kill
            // the process with SIGPIPE: the run ends with exit 1, its private folder removed.
            signal(SIGPIPE, SIG_IGN)
            target = streams.path("standard-output.caf")
            given.append((streams.path("standard-output.caf"), "-"))
        }
        (self.streams, self.inputs, self.output, self.given) = (streams, read, target, given)
    }

    /// `text` with every private path replaced by the name the command line gave.
    func named(_ text: String) -> String {
        var text = text
        for (path, name) in given where text.contains(path) {
            text = text.replacing(path, with: name == "-" ? "standard input" : name)
        }
        return text
    }

    /// One record with the command line's names in place of the private paths.
    func named(_ file: FileResult) -> FileResult {
        guard !given.isEmpty else { return file }
        var file = file
        for (path, name) in given {
            if file.input == path { file.input = name }
            if file.output == path { file.output = name }
        }
        file.reason = file.reason.map(named)
        file.warnings = file.warnings.map { warning in
            let text = named(warning.message)
            return text == warning.message ? warning : .text(text)
        }
        return file
    }

    /// A progress step with the command line's names.
    func named(_ step: Engine.Progress) -> Engine.Progress {
        var step = step
        step.result = named(step.result)
        return step
    }

    /// The report with the command line's names in place of the private paths.
    func named(_ report: ConversionReport) -> ConversionReport {
        guard !given.isEmpty else { return report }
        var report = report
        report.files = report.files.map(named)
        // A pipe is no file a build system could watch: no depfile line names one.
        report.dependencies = report.dependencies.filter { dependency in
            !given.contains { $0.path == dependency.output || dependency.inputs.contains($0.path) }
        }
        return report
    }

    /// `options` with a linear PCM output for stdout streamed there as it is made (a CAF whose
    /// `data` size is -1, proved block by block: `PCMStream`); other outputs are written in the
    /// private folder and copied out by ``copyOut()``.
    func streaming(_ options: ConversionOptions) -> ConversionOptions {
        guard toStandardOutput else { return options }
        var options = options
        options.streamsTo = STDOUT_FILENO
        return options
    }

    /// Copies the proved CAF to stdout (after the run succeeded); a streamed CAF left no file.
    func copyOut() throws(StandardStreams.Failure) {
        guard toStandardOutput, let streams, let output, FileSystem.kind(of: output) == .file else { return }
        Console.flush()
        try streams.copyToStandardOutput(output)
    }

    /// Deletes the private folder.
    func remove() { streams?.remove() }
}

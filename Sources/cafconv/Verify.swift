import ArgumentParser
import BinaryIO
import Conversion

extension Profile: ExpressibleByArgument {}

/// `cafconv verify`: a CI gate for CAF assets.
struct Verify: ParsableCommand {
    enum Order: String, ExpressibleByArgument, CaseIterable {
        case little, big
    }

    static let configuration = CommandConfiguration(
        abstract: "Check CAF files against the CAF specification and your expectations.",
        discussion: """
            Checks every CAF file given or found under folders (*.caf, any case): the structural rules \
            of the CAF specification (desc first, exactly one data chunk, sizes within the file, \
            consistent linear PCM fields, packet table arithmetic, ...) plus the expectations given \
            as options. A file that is not CAF or is malformed fails with its reason.

            Profiles:
            \(Profile.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

            Output: one line per failure (file: rule: expected X, found Y) and a summary on stderr; \
            --json prints one document instead.

            Exit status: 0 all files pass; 1 any file fails; 64 usage error.
            """
    )

    @Argument(help: "CAF files or folders to check.")
    var paths: [String] = []

    @Option(help: "Require this byte order of linear PCM samples.")
    var endian: Order?

    @Option(
        name: [.customShort("d"), .long],
        help: ArgumentHelp(
            "Require this data format (same grammar as convert: LEI16, BEF32, I8, ulaw, alac...).", valueName: "format"))
    var dataFormat: String?

    @Option(help: "Require this sample rate in Hz.")
    var rate: Double?

    @Option(help: "Require this many channels.")
    var channels: Int?

    @Option(name: .customLong("max-duration"), help: ArgumentHelp("Require at most this duration.", valueName: "seconds"))
    var maxDuration: Double?

    @Option(
        help: ArgumentHelp(
            "Compare the decoded audio sample by sample with this source: a WAV file, or a folder mirrored as convert -o mirrors it.",
            valueName: "source"))
    var against: String?

    @Option(help: "Apply a target's rules (see the list above).")
    var profile: Profile?

    @Flag(help: "Print one JSON report on stdout instead of text.")
    var json = false

    @Flag(name: [.short, .long], help: "Print only failures.")
    var quiet = false

    func options() throws -> VerifyOptions {
        var format: DataFormat?
        if let dataFormat {
            do { format = try DataFormat(parsing: dataFormat) } catch { throw ValidationError(error.message) }
        }
        if let format, let fromFormat = format.byteOrder, let endian, fromFormat.rawValue != endian.rawValue {
            throw ValidationError(
                "-d \(format.text) asks for \(fromFormat.rawValue)-endian samples but --endian asks for \(endian.rawValue)")
        }
        return VerifyOptions(
            byteOrder: endian.map { $0 == .little ? ByteOrder.little : .big }, dataFormat: format,
            sampleRate: rate, channels: channels, maxDuration: maxDuration, against: against, profile: profile)
    }

    func validate() throws {
        if paths.isEmpty { throw ValidationError("give at least one CAF file or folder") }
        if let rate, !(rate.isFinite && rate > 0) { throw ValidationError("--rate must be a positive number") }
        if let channels, channels < 1 { throw ValidationError("--channels must be at least 1") }
        if let maxDuration, !(maxDuration.isFinite && maxDuration > 0) {
            throw ValidationError("--max-duration must be a positive number of seconds")
        }
        _ = try options()
    }

    func run() throws {
        let report = Verifier.verify(paths: paths, options: try options())
        if json {
            Output.standardOutput(Output.json(report))
        } else {
            for file in report.files {
                for failure in file.failures { Output.standardOutput("\(file.path): \(failure)") }
                if !quiet && file.passed { Output.standardOutput("\(file.path): ok") }
            }
            if !quiet {
                Output.standardError("\(report.totals.passed) passed, \(report.totals.failed) failed")
            }
        }
        if !report.succeeded { throw ExitCode(1) }
    }
}

import CommandLineKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import Transcoding
import Verification

/// Options that `convert` and `verify` share, declared once.
enum SharedOptions {
    /// `--json`.
    static let json = Flag("json", help: "Print one JSON report on stdout instead of text.")
    /// `-q, --quiet`.
    static let quiet = Flag("quiet", short: "q", help: "Print only errors and failures.")
    /// How a run reports: `--json` and `-q`, read with `invocation[SharedOptions.json]`.
    static let report = OptionGroup(json, quiet)

    /// `-d, --data-format <format>`: afconvert's `FMT[@RATE]` (`0@RATE`: any format, that rate).
    /// Its names, value name, completion and parser are declared here once; each command gives
    /// the sentence that says what the format is for (the output's format and rate in
    /// `convert`, a requirement in `verify`).
    static func dataFormat(help: String) -> Option<FormatRequest> {
        Option<FormatRequest>(
            "data-format", short: "d", valueName: "format", help: help,
            completion: .values(OutputCodecs.spellings),
            parse: { text in try FormatRequest(parsing: text) })
    }
}

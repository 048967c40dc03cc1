/// Run warnings (`ConversionWarning`), one case per warning with its data; `message` is the
/// one place each becomes its sentence.
public enum RunWarning: Equatable, Sendable, CustomStringConvertible {
    /// `--dry-run`/`--check`: the manifest at `path` cannot be used; a run that saves would fail.
    case manifestLeftAlone(path: String, why: ManifestFailure.Unusable)
    /// The output folder lies inside a folder input: it is not searched for inputs.
    case outputFolderInsideInputs(path: String)
    /// A rules file's `match` pattern at `rules`:`line` matches no file of the run.
    case patternMatchesNothing(rules: String, line: Int, glob: String)
    /// `-o PATH` names the one output file, and its extension is not `.caf`: CAF bytes under
    /// another format's name (`alert.wav`).
    case outputNotNamedCAF(path: String)

    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .manifestLeftAlone(let path, let why): "\(path) \(why): it is left alone, and nothing can be recorded"
        case .outputFolderInsideInputs(let path):
            "\(path) is the output folder, inside the input tree: it is not searched for inputs"
        case .patternMatchesNothing(let rules, let line, let glob): "\(rules):\(line): match '\(glob)' matches no file"
        case .outputNotNamedCAF(let path):
            "\(path): the output is a CAF file, but its name does not end in .caf (other programs will take it for another format)"
        }
    }

    public var description: String { message }
}

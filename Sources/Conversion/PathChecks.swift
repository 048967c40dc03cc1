import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import Transcoding
import Verification

/// Checks on the paths a command line names, made before anything runs, so that a mistake is one
/// usage error instead of one error per input.
extension Planner {
    /// Whether `path` is a folder (following symbolic links).
    public static func isFolder(_ path: String) -> Bool {
        FileSystem.kind(of: path) == .directory
    }

    /// Whether anything is at `path` (following symbolic links).
    public static func exists(_ path: String) -> Bool {
        FileSystem.kind(of: path) != .missing
    }

    /// The existing file that stands where `convert` needs a folder for `output`, or `nil` when
    /// there is none.
    ///
    /// With a folder or several inputs (or an `output` ending in `/`) the output is a folder, so
    /// `output` itself and each folder above it must be a folder where they exist; with one input
    /// file only the folders above `output` must be. Without this check every input would fail
    /// with the same error.
    public static func fileInTheWay(of output: String, inputs: [String]) -> String? {
        let intoFolder =
            inputs.count > 1 || inputs.first.map { FileSystem.kind(of: $0) == .directory } == true
            || output.hasSuffix("/")
        var components = output.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if !intoFolder { components.removeLast(min(1, components.count)) }
        var path = output.hasPrefix("/") ? "" : "."
        for component in components {
            path = path == "." ? component : path + "/" + component
            switch FileSystem.kind(of: path) {
            case .directory: continue
            case .missing: return nil
            case .file, .other: return path
            }
        }
        return nil
    }

    /// A file a `convert` run writes besides its outputs' folder: `--depfile`, `--report`, or
    /// `-o` naming one input file's output.
    public struct WrittenFile: Sendable {
        /// The option that names it (`--depfile`), for the message.
        public var option: String
        public var path: String

        public init(option: String, path: String) {
            self.option = option
            self.path = path
        }
    }

    /// Why writing one of `written` would overwrite a file the run reads or writes otherwise, or
    /// `nil` when none would: an input (or an audio file inside a folder input), a rules file,
    /// the output (or an output inside the `-o` folder), a `.cafconv-manifest` file, or another
    /// of `written`. Files are compared by identity where they exist, else by canonical path
    /// (``FileSystem/sameFile(_:_:)``). `-o` against the inputs is left to the plan, which
    /// refuses an output that is its own source per file.
    public static func overwrittenFile(by written: [WrittenFile], inputs: [String], output: String?, rules: String?)
        -> String?
    {
        let rulesFiles = rules.map { [$0] } ?? inputs.compactMap(RulesFile.path(atRoot:))
        for (index, file) in written.enumerated() {
            let named = "\(file.option) \(file.path)"
            if FileSystem.baseName(file.path).hasPrefix(Manifest.fileName) {
                return "\(named) would be cafconv's state file (\(Manifest.fileName)); choose another file"
            }
            if let earlier = written[..<index].first(where: { FileSystem.sameFile($0.path, file.path) }) {
                return "\(named) is the same file as \(earlier.option) \(earlier.path); give each its own file"
            }
            if let rulesFile = rulesFiles.first(where: { FileSystem.sameFile($0, file.path) }) {
                return "\(named) is the rules file \(rulesFile); cafconv never modifies it; choose another file"
            }
            if file.option != "-o", let why = clash(of: file.path, inputs: inputs, output: output) {
                return "\(named) \(why); choose another file"
            }
        }
        return nil
    }

    /// How writing `path` would overwrite an input or an output of a run, or `nil`.
    private static func clash(of path: String, inputs: [String], output: String?) -> String? {
        let name = FileSystem.baseName(path)
        for input in inputs {
            if FileSystem.sameFile(input, path) { return "is the input \(input); cafconv never modifies an input" }
            if FileSystem.isAudioName(name), isFolder(input), FileSystem.isInside(path, folder: input) {
                return "is an audio file inside the input folder \(input); cafconv never modifies an input"
            }
        }
        guard let output else {
            // Without -o each file input's CAF is written beside it (see `Planner.plan`).
            for input in inputs where !isFolder(input) {
                let beside = FileSystem.joined(
                    FileSystem.directoryName(input), FileSystem.stem(FileSystem.baseName(input)) + ".caf")
                if FileSystem.sameFile(beside, path) { return "is the output \(beside) of \(input)" }
            }
            return nil
        }
        guard output != "-" else { return nil }
        if FileSystem.sameFile(output, path) { return "is the output \(output)" }
        let intoFolder = isFolder(output) || output.hasSuffix("/") || inputs.count > 1 || inputs.contains(where: isFolder)
        if intoFolder, name.lowercased().hasSuffix(".caf"), FileSystem.isInside(path, folder: output) {
            return "would be an output inside the output folder \(output)"
        }
        return nil
    }
}

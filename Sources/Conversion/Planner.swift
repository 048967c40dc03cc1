import BinaryIO
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import Transcoding
import Verification

/// Turns command-line inputs into jobs: walks folders, mirrors trees, and refuses plans that would
/// overwrite an input or write two inputs to one output.
public enum Planner {
    /// The jobs to run, and results for inputs that failed before any conversion (missing,
    /// unreadable folder, output clash), in input order.
    public struct Plan: Sendable {
        /// Jobs in a stable order: inputs as given, folder contents sorted by name.
        public var jobs: [Job]
        /// Inputs that cannot be converted at all, with the reason.
        public var failures: [FileResult]
        /// Every folder whose manifest this run reads, even when it has no job (all inputs gone:
        /// `--check` and `--prune` must still see the orphans).
        public var stateFolders: [String] = []
        /// The output roots that folder inputs mirror (their state folders): every record of
        /// their manifests is this run's business when looking for orphans.
        public var mirroredFolders: [String] = []
        /// Inputs that do not exist: records of sources at or below them are this run's business
        /// when looking for orphans.
        public var missingInputs: [String] = []
        /// Things worth telling that are not failures (an output folder inside the input tree).
        public var warnings: [RunWarning] = []
        /// Files of folder inputs that were not taken (status `ignored`, with the reason).
        public var ignored: [FileResult] = []
        /// One input file and `-o` naming the output file: the mode for build systems. The run
        /// keeps no state (no manifest read or written, no other file of the output folder
        /// touched) and always converts; the build system decides what is up to date.
        public var hermetic = false
        /// Whether the run reads and writes `.cafconv-manifest` files: not in the single-file
        /// mode (``hermetic``), nor under `convert --no-state`.
        public var keepsState = true

        /// Makes the run keep no state: no manifest read or written, every output converted.
        public mutating func dropState() {
            keepsState = false
            stateFolders = []
        }
    }

    /// Why a folder input fails when it holds no file to convert.
    public static let nothingFound = InputFailure.nothingFound(extensions: audioExtensions, leftOut: 0).message

    /// The extensions a folder input is searched for (``FileSystem/audioExtensions``).
    public static var audioExtensions: [String] { FileSystem.audioExtensions }

    /// Whether a file name is picked up from a folder (``FileSystem/isAudioName(_:)``).
    public static func isAudioName(_ name: String) -> Bool { FileSystem.isAudioName(name) }

    /// Which files of folder inputs are taken: `--include` and `--exclude` patterns. Files named
    /// on the command line are always taken.
    public struct Selection: Sendable, Equatable {
        /// When not empty, a file must match one of these.
        public var include: [Glob]
        /// A file that matches one of these is left out (even when it matches an include).
        public var exclude: [Glob]

        /// Creates a selection; empty lists take every audio file.
        public init(include: [Glob] = [], exclude: [Glob] = []) {
            self.include = include
            self.exclude = exclude
        }

        /// Why the file at `relative` (below its input folder) is left out, or `nil` when it is taken.
        func refusal(_ relative: String) -> String? {
            if let pattern = exclude.first(where: { $0.matchesFile(relative) }) { return "excluded by --exclude \(pattern)" }
            if !include.isEmpty, !include.contains(where: { $0.matchesFile(relative) }) {
                return "matches no --include pattern"
            }
            return nil
        }
    }

    /// Relative paths of the files under `folder` whose names match (``FileSystem/files(under:matching:)``).
    public static func files(under folder: String, matching: (String) -> Bool) -> [String] {
        FileSystem.files(under: folder, matching: matching)
    }

    /// Plans the conversion of `inputs` into `output` (a file or folder; `nil` writes beside inputs).
    public static func plan(inputs: [String], output: String?, selection: Selection = Selection()) -> Plan {
        var jobs: [Job] = []
        var failures: [FileResult] = []
        var ignored: [FileResult] = []
        let singleFile = inputs.count == 1 && FileSystem.kind(of: inputs[0]) == .file
        let outputIsFolder: Bool = {
            guard let output else { return false }
            if !singleFile { return true }
            return output.hasSuffix("/") || FileSystem.kind(of: output) == .directory
        }()
        let outputIdentity = output.flatMap { FileSystem.identity(of: $0) }
        var stateFolders: [String] = []
        var warnings: [RunWarning] = []
        var mirroredFolders: [String] = []
        var missingInputs: [String] = []
        func addState(_ folder: String) {
            if !stateFolders.contains(where: { $0.utf8.elementsEqual(folder.utf8) }) { stateFolders.append(folder) }
        }
        if let output { addState(outputIsFolder ? output : FileSystem.directoryName(output)) }

        for input in inputs {
            switch FileSystem.kind(of: input) {
            case .missing:
                failures.append(.failed(input, error: .input(.missing)))
                missingInputs.append(input)
            case .other:
                failures.append(.failed(input, error: .input(.notFileOrFolder)))
            case .file:
                let name = FileSystem.stem(FileSystem.baseName(input)) + ".caf"
                let target: String
                if let output {
                    target = outputIsFolder ? FileSystem.joined(output, name) : output
                } else {
                    target = FileSystem.joined(FileSystem.directoryName(input), name)
                }
                let state = output.map { outputIsFolder ? $0 : FileSystem.directoryName($0) }
                if output == nil { addState(FileSystem.directoryName(target)) }
                jobs.append(
                    Job(
                        input: input, output: target, stateFolder: state,
                        root: output.map { outputIsFolder ? $0 : FileSystem.directoryName($0) }))
            case .directory:
                let found = (jobs.count, failures.count)
                if output == nil { addState(input) }
                mirroredFolders.append(output ?? input)
                var walk = Walk(root: input, output: output, state: output ?? input, skip: outputIdentity, selection: selection)
                walk.walk(folder: input, relative: "")
                jobs += walk.jobs
                failures += walk.failures
                warnings += walk.warnings
                ignored += walk.ignored
                // A build step that converted nothing must not pass as a success.
                if (jobs.count, failures.count) == found {
                    failures.append(
                        .failed(input, error: .input(.nothingFound(extensions: audioExtensions, leftOut: walk.leftOut))))
                }
            }
        }
        var plan = refuseClashes(jobs: jobs, failures: failures, inputs: inputs)
        plan.stateFolders = stateFolders
        plan.mirroredFolders = mirroredFolders
        plan.missingInputs = missingInputs
        plan.warnings = warnings
        plan.ignored = ignored
        if singleFile, output != nil, !outputIsFolder, plan.jobs.count == 1 {
            plan.hermetic = true
            plan.dropState()
            if let output, !output.lowercased().hasSuffix(".caf") {
                plan.warnings.append(.outputNotNamedCAF(path: output))
            }
        }
        return plan
    }

    /// One folder input's walk: the jobs, failures, warnings and ignored files it finds.
    private struct Walk {
        /// The folder input the walk started from (rules files match paths relative to it).
        let root: String
        let output: String?
        let state: String
        let skip: FileSystem.Identity?
        let selection: Selection
        var visited: Set<FileSystem.Identity> = []
        var jobs: [Job] = []
        var failures: [FileResult] = []
        var warnings: [RunWarning] = []
        var ignored: [FileResult] = []
        /// How many of ``ignored`` `--include`/`--exclude` left out.
        var leftOut = 0
        /// Every output recorded by a manifest found in the tree (paths as the walk spells
        /// them), with its source: files cafconv wrote are never inputs.
        var written: [PathKey: String] = [:]

        init(root: String, output: String?, state: String, skip: FileSystem.Identity?, selection: Selection) {
            self.root = root
            self.output = output
            self.state = state
            self.skip = skip
            self.selection = selection
        }

        mutating func walk(folder: String, relative: String) {
            guard let identity = FileSystem.identity(of: folder), visited.insert(identity).inserted else { return }
            let names: [(name: String, kind: FileSystem.Kind?)]
            do { names = try FileSystem.typedEntries(of: folder) } catch {
                failures.append(.failed(folder, error: error))
                return
            }
            // A manifest here records outputs cafconv wrote (beside their inputs, or into this
            // folder as -o): they are never taken as inputs, whatever their name.
            if names.contains(where: { $0.name == Manifest.fileName }) {
                let manifest = Manifest.load(folder: folder)
                for (key, entry) in manifest.entries {
                    written[PathKey(FileSystem.joined(folder, key.text))] = entry.source
                }
            }
            for (name, listed) in names {
                let path = FileSystem.joined(folder, name)
                let childRelative = relative.isEmpty ? name : relative + "/" + name
                // The folder's own word for a file or folder; a symlink or an unknown type is
                // followed by stat(2), as a path the user typed would be.
                let kind = listed ?? FileSystem.kind(of: path)
                if kind == .directory {
                    if let skip, FileSystem.identity(of: path) == skip {
                        warnings.append(.outputFolderInsideInputs(path: path))
                        continue
                    }
                    walk(folder: path, relative: childRelative)
                    continue
                }
                // Hidden names (the manifest, temporary files, .DS_Store) and the rules file at
                // the input root are not mentioned.
                if name.hasPrefix(".") || (relative.isEmpty && name == RulesFile.fileName) { continue }
                guard isAudioName(name) else {
                    if kind == .file {
                        ignored.append(FileResult(input: path, status: .ignored, reason: "not an audio file name"))
                    }
                    continue
                }
                if let source = written[PathKey(path)] {
                    ignored.append(
                        FileResult(input: path, status: .ignored, reason: "cafconv wrote it (from \(source)); never an input"))
                    continue
                }
                if let refusal = selection.refusal(childRelative) {
                    ignored.append(FileResult(input: path, status: .ignored, reason: refusal))
                    leftOut += 1
                    continue
                }
                switch kind {
                case .file:
                    let outName = FileSystem.stem(childRelative) + ".caf"
                    let target =
                        output.map { FileSystem.joined($0, outName) }
                        ?? FileSystem.joined(folder, FileSystem.stem(name) + ".caf")
                    jobs.append(
                        Job(
                            input: path, output: target, stateFolder: state, root: output, inputRoot: root,
                            relative: childRelative))
                case .other:
                    // Never opened (a FIFO would block the run): a clear per-file error instead.
                    failures.append(.failed(path, error: .input(.specialFileInFolder)))
                case .missing where FileSystem.linkExists(path):
                    failures.append(.failed(path, error: .input(.brokenLink)))
                default:
                    continue
                }
            }
        }
    }

    /// Refuses jobs whose output is an input, and every job of an output that two or more
    /// inputs map to (`a.wav` and `a.aif` both becoming `a.caf`): neither is converted, so the
    /// result never depends on which one came first.
    private static func refuseClashes(jobs: [Job], failures: [FileResult], inputs: [String]) -> Plan {
        var kept: [Job] = []
        var failures = failures
        // Keyed by bytes: NFC and NFD spellings of a name are two files on Linux, not a clash.
        // One job has no other to clash with (a build system runs a process per file): its own
        // input is checked below, and the tables stay empty.
        var sources: [PathKey: [String]] = [:]
        // Each input's identity is read once, for both checks.
        let identities = jobs.map { FileSystem.identity(of: $0.input) }
        var inputIdentities: Set<FileSystem.Identity> = []
        for (job, identity) in zip(jobs, identities) where jobs.count > 1 {
            if let identity { inputIdentities.insert(identity) }
            sources[PathKey(job.output), default: []].append(job.input)
        }
        for (job, inputIdentity) in zip(jobs, identities) {
            let outputIdentity = FileSystem.identity(of: job.output)
            if job.output.utf8.elementsEqual(job.input.utf8) || (outputIdentity != nil && outputIdentity == inputIdentity) {
                failures.append(.failed(job.input, output: job.output, error: .output(.outputIsSource)))
                continue
            }
            if let outputIdentity, inputIdentities.contains(outputIdentity) {
                failures.append(.failed(job.input, output: job.output, error: .output(.outputIsAnInput(output: job.output))))
                continue
            }
            if let all = sources[PathKey(job.output)], all.count > 1 {
                let others = all.filter { !$0.utf8.elementsEqual(job.input.utf8) }
                failures.append(
                    .failed(job.input, output: job.output, error: .output(.sameOutput(others: others, output: job.output))))
                continue
            }
            kept.append(job)
        }
        return Plan(jobs: kept, failures: failures)
    }
}

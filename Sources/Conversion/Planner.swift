import BinaryIO

/// One file to convert: where it comes from and where its CAF goes.
public struct Job: Equatable, Sendable {
    /// The input path as found (a given path, or a folder path joined with the relative path).
    public var input: String
    /// The output path.
    public var output: String
    /// The folder whose `.cafconv-manifest` records this output: the `-o` folder, the folder of a
    /// single output file, or the input folder when outputs are written beside their inputs.
    public var stateFolder: String
    /// The folder the output path is resolved from: it is opened as named (following symlinks,
    /// like any path the user types); below it no symlink is followed. The `-o` folder, or the
    /// output's own folder.
    public var root: String
    /// The folder input this job was found under (`nil` for a file given by name): a rules file
    /// at its root applies, and ``relative`` is relative to it.
    public var inputRoot: String?
    /// The input's path relative to ``inputRoot`` (`sfx/hit.wav`), or its name for a file given by
    /// name: what rules files match.
    public var relative: String

    /// Creates a job; `stateFolder` and `root` default to the output's folder.
    public init(
        input: String, output: String, stateFolder: String? = nil, root: String? = nil, inputRoot: String? = nil,
        relative: String? = nil
    ) {
        self.input = input
        self.output = output
        self.stateFolder = stateFolder ?? FileSystem.directoryName(output)
        self.root = root ?? FileSystem.directoryName(output)
        self.inputRoot = inputRoot
        self.relative = relative ?? FileSystem.baseName(input)
    }

    /// Two jobs are equal when they convert the same input to the same output.
    public static func == (lhs: Job, rhs: Job) -> Bool {
        lhs.input == rhs.input && lhs.output == rhs.output
    }
}

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
        /// Things worth telling that are not failures (an output folder inside the input tree).
        public var warnings: [String] = []
    }

    /// Why a folder input fails when it holds no file to convert.
    public static let nothingFound = "no WAV files found (*.wav or *.wave, searched recursively)"

    /// Whether a file name is picked up from a folder: `*.wav` or `*.wave`, in any case.
    public static func isWAVName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return (lower.hasSuffix(".wav") || lower.hasSuffix(".wave")) && !name.hasPrefix(".")
    }

    /// Relative paths of the files under `folder` whose names match, sorted, following symlinked
    /// folders but never into a loop.
    public static func files(under folder: String, matching: (String) -> Bool) -> [String] {
        var found: [String] = []
        var visited: Set<FileSystem.Identity> = []
        func walk(_ path: String, _ relative: String) {
            guard let identity = FileSystem.identity(of: path), visited.insert(identity).inserted,
                let names = try? FileSystem.entries(of: path)
            else { return }
            for name in names {
                let child = FileSystem.joined(path, name)
                let childRelative = relative.isEmpty ? name : relative + "/" + name
                switch FileSystem.kind(of: child) {
                case .directory: walk(child, childRelative)
                // A FIFO, socket or device with a matching name is listed too: its reader says
                // why it cannot be read (never silently skipped, never opened for waiting).
                case .file where matching(name), .other where matching(name): found.append(childRelative)
                default: continue
                }
            }
        }
        walk(folder, "")
        return found
    }

    /// Plans the conversion of `inputs` into `output` (a file or folder; `nil` writes beside inputs).
    public static func plan(inputs: [String], output: String?) -> Plan {
        var jobs: [Job] = []
        var failures: [FileResult] = []
        let singleFile = inputs.count == 1 && FileSystem.kind(of: inputs[0]) == .file
        let outputIsFolder: Bool = {
            guard let output else { return false }
            if !singleFile { return true }
            return output.hasSuffix("/") || FileSystem.kind(of: output) == .directory
        }()
        let outputIdentity = output.flatMap { FileSystem.identity(of: $0) }
        var stateFolders: [String] = []
        var warnings: [String] = []
        func addState(_ folder: String) {
            if !stateFolders.contains(where: { $0.utf8.elementsEqual(folder.utf8) }) { stateFolders.append(folder) }
        }
        if let output { addState(outputIsFolder ? output : FileSystem.directoryName(output)) }

        for input in inputs {
            switch FileSystem.kind(of: input) {
            case .missing:
                failures.append(.failed(input, code: .input, reason: "no such file or folder"))
            case .other:
                failures.append(.failed(input, code: .input, reason: "not a regular file or folder"))
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
                var visited: Set<FileSystem.Identity> = []
                let found = (jobs.count, failures.count)
                if output == nil { addState(input) }
                walk(
                    folder: input, root: input, relative: "", output: output, state: output ?? input,
                    skip: outputIdentity,
                    visited: &visited, jobs: &jobs, failures: &failures, warnings: &warnings)
                // A build step that converted nothing must not pass as a success.
                if (jobs.count, failures.count) == found {
                    failures.append(.failed(input, code: .input, reason: Self.nothingFound))
                }
            }
        }
        var plan = refuseClashes(jobs: jobs, failures: failures, inputs: inputs)
        plan.stateFolders = stateFolders
        plan.warnings = warnings
        return plan
    }

    private static func walk(
        folder: String, root: String, relative: String, output: String?, state: String, skip: FileSystem.Identity?,
        visited: inout Set<FileSystem.Identity>, jobs: inout [Job], failures: inout [FileResult],
        warnings: inout [String]
    ) {
        guard let identity = FileSystem.identity(of: folder), visited.insert(identity).inserted else { return }
        let names: [String]
        do { names = try FileSystem.entries(of: folder) } catch {
            failures.append(.failed(folder, code: error.code, reason: error.message))
            return
        }
        for name in names {
            let path = FileSystem.joined(folder, name)
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            switch FileSystem.kind(of: path) {
            case .directory:
                if let skip, FileSystem.identity(of: path) == skip {
                    warnings.append(
                        "\(path) is the output folder, inside the input tree: it is not searched for inputs")
                    continue
                }
                walk(
                    folder: path, root: root, relative: childRelative, output: output, state: state, skip: skip,
                    visited: &visited, jobs: &jobs, failures: &failures, warnings: &warnings)
            case .file where isWAVName(name):
                let outName = FileSystem.stem(childRelative) + ".caf"
                let target =
                    output.map { FileSystem.joined($0, outName) }
                    ?? FileSystem.joined(folder, FileSystem.stem(name) + ".caf")
                jobs.append(
                    Job(
                        input: path, output: target, stateFolder: state, root: output, inputRoot: root,
                        relative: childRelative))
            case .other where isWAVName(name):
                // Never opened (a FIFO would block the run): a clear per-file error instead.
                failures.append(.failed(path, code: .input, reason: "not a regular file (a FIFO, socket or device); not read"))
            case .missing where isWAVName(name) && FileSystem.linkExists(path):
                failures.append(
                    .failed(path, code: .input, reason: "broken symbolic link: its target is missing or the link loops"))
            default:
                continue
            }
        }
    }

    /// Refuses jobs whose output is an input, or the output of an earlier job.
    private static func refuseClashes(jobs: [Job], failures: [FileResult], inputs: [String]) -> Plan {
        var kept: [Job] = []
        var failures = failures
        // Keyed by bytes: NFC and NFD spellings of a name are two files on Linux, not a clash.
        // (PathKey, which the manifest needs anyway, rather than [UInt8]: every new Hashable key
        // type costs a process a scan of all protocol conformances, about 40 us, at first use.)
        var outputs: [PathKey: String] = [:]
        // Sorted for a binary search, not a Set, for the same reason.
        let inputIdentities = jobs.compactMap { FileSystem.identity(of: $0.input) }.map { [$0.device, $0.inode] }
            .sorted { $0.lexicographicallyPrecedes($1) }
        func isInput(_ identity: FileSystem.Identity) -> Bool {
            let key = [identity.device, identity.inode]
            var low = 0
            var high = inputIdentities.count
            while low < high {
                let middle = (low + high) / 2
                if inputIdentities[middle].lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
            }
            return low < inputIdentities.count && inputIdentities[low] == key
        }
        for job in jobs {
            if job.output.utf8.elementsEqual(job.input.utf8)
                || FileSystem.identity(of: job.output).map(isInput) == true
            {
                failures.append(
                    .failed(
                        job.input, output: job.output, code: .output,
                        reason: "the output path \(job.output) is an input; refusing to overwrite it"))
                continue
            }
            let key = PathKey(job.output)
            if let earlier = outputs[key] {
                failures.append(
                    .failed(
                        job.input, output: job.output, code: .output,
                        reason: "\(earlier) is also converted to \(job.output); rename one of them"))
                continue
            }
            outputs[key] = job.input
            kept.append(job)
        }
        return Plan(jobs: kept, failures: failures)
    }
}

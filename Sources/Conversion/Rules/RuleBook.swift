/// The rules files of a run and which one applies to each job.
///
/// - A `cafconv.toml` at the root of a folder input applies to the files found under it; their
///   paths are matched relative to that folder.
/// - `--rules FILE` applies to every input instead (a folder input's own `cafconv.toml` is then
///   not read). Files found under a folder input are matched relative to that folder; a file given
///   by name is matched relative to the rules file's folder when it lies below it (as build
///   systems call cafconv once per file: `--rules Sounds/cafconv.toml Sounds/sfx/hit.wav` matches
///   `sfx/hit.wav`), else by its name.
public struct RuleBook: Sendable {
    /// `--rules FILE`, for every input.
    public var global: ConversionRules?
    /// The canonical folder of the `--rules` file.
    public var globalFolder: String?
    /// `cafconv.toml` files at folder inputs, by the folder as given.
    public var byRoot: [String: ConversionRules]
    /// Keys the command line set: they win over every rules file.
    public var commandLine: Set<RuleKey>

    /// No rules: every job gets the run's options.
    public init() {
        global = nil
        globalFolder = nil
        byRoot = [:]
        commandLine = []
    }

    /// Rules for a run: `global` from `--rules` (with the file's path), or per folder input.
    public init(global: ConversionRules?, globalPath: String?, byRoot: [String: ConversionRules], commandLine: Set<RuleKey>) {
        self.global = global
        self.globalFolder = globalPath.flatMap { FileSystem.canonical(FileSystem.directoryName($0)) }
        self.byRoot = byRoot
        self.commandLine = commandLine
    }

    /// Whether no rules file applies to anything.
    public var isEmpty: Bool { global == nil && byRoot.isEmpty }

    /// The rules that apply to `job` and the path they match it by, or `nil`.
    public func rules(for job: Job) -> (ConversionRules, String)? {
        if let global {
            if job.inputRoot != nil { return (global, job.relative) }
            if let folder = globalFolder, let input = FileSystem.canonical(job.input),
                input.utf8.starts(with: (folder + "/").utf8)
            {
                return (global, String(input.dropFirst(folder.count + 1)))
            }
            return (global, job.relative)
        }
        if let root = job.inputRoot, let rules = byRoot[root] { return (rules, job.relative) }
        return nil
    }

    /// A pattern of a rules file, to find the ones that match no file of the run.
    struct Pattern {
        var rules: String
        var line: Int
        var glob: Glob
    }

    /// Every pattern of the rules files that apply to a folder input of the run (a run over
    /// single files, as a build system's, matches most patterns nowhere, and says nothing).
    func patternsToCheck(_ jobs: [Job]) -> [Pattern] {
        var books: [ConversionRules] = []
        if let global, jobs.contains(where: { $0.inputRoot != nil }) { books.append(global) }
        if global == nil {
            let roots = Set(jobs.compactMap(\.inputRoot))
            books += byRoot.filter { roots.contains($0.key) }.values.sorted { $0.file < $1.file }
        }
        return books.flatMap { book in
            book.rules.flatMap { rule in rule.patterns.map { Pattern(rules: book.file, line: rule.line, glob: $0) } }
        }
    }
}

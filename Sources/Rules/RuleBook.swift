import ConversionModel
import OutputFiles

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
    /// The folder of the `--rules` file, absolute as written (`FileSystem.lexicalAbsolute`).
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
        self.globalFolder = globalPath.flatMap { FileSystem.lexicalAbsolute(FileSystem.directoryName($0)) }
        self.byRoot = byRoot
        self.commandLine = commandLine
    }

    /// Whether no rules file applies to anything.
    public var isEmpty: Bool { global == nil && byRoot.isEmpty }

    /// The rules that apply to `job` and the path they match it by, or `nil`.
    public func rules(for job: Job) -> (ConversionRules, String)? {
        if let global {
            if job.inputRoot != nil { return (global, job.relative) }
            // By name, not through symlinks: a sandbox's inputs are links to files elsewhere,
            // and the rule a file gets must not depend on how the build system laid them out.
            if let folder = globalFolder, let input = FileSystem.lexicalAbsolute(job.input),
                input.utf8.starts(with: (folder == "/" ? "/" : folder + "/").utf8)
            {
                return (global, String(input.dropFirst(folder == "/" ? 1 : folder.count + 1)))
            }
            return (global, job.relative)
        }
        if let root = job.inputRoot, let rules = byRoot[root] { return (rules, job.relative) }
        return nil
    }

    /// A pattern of a rules file, to find the ones that match no file of the run.
    package struct Pattern {
        package var rules: String
        package var line: Int
        package var glob: Glob
    }

    /// The rules files whose patterns a run checks for matching no file: those that apply to a
    /// folder input of the run (a run over single files, as a build system's, matches most
    /// patterns nowhere, and says nothing).
    package func booksToCheck(_ jobs: [Job]) -> [ConversionRules] {
        var books: [ConversionRules] = []
        if let global, jobs.contains(where: { $0.inputRoot != nil }) { books.append(global) }
        if global == nil {
            let roots = Set(jobs.compactMap(\.inputRoot))
            books += byRoot.filter { roots.contains($0.key) }.values.sorted { $0.file < $1.file }
        }
        return books
    }

    /// A ``RuleMatcher`` for every rules file of the run, by the file's name.
    package func matchers() -> [String: RuleMatcher] {
        var matchers: [String: RuleMatcher] = [:]
        for book in [global].compactMap({ $0 }) + byRoot.values where matchers[book.file] == nil {
            matchers[book.file] = RuleMatcher(book)
        }
        return matchers
    }
}

/// Which patterns of the checked rules files (``RuleBook/booksToCheck(_:)``) match a file of the
/// run. Each file is matched only against the patterns it could match (``PatternIndex``) that
/// have matched nothing yet, so a run does not try every pattern on every file.
package struct PatternCoverage {
    private struct Book {
        package var rules: ConversionRules
        package var matcher: RuleMatcher
        package var matched: [Bool]
    }

    private var books: [Book]
    private var byFile: [String: Int] = [:]
    /// How many (pattern, path) pairs were matched, for tests.
    package private(set) var examined = 0

    package init(_ books: [ConversionRules], matchers: [String: RuleMatcher]) {
        self.books = books.map { book in
            let matcher = matchers[book.file] ?? RuleMatcher(book)
            return Book(rules: book, matcher: matcher, matched: Array(repeating: false, count: matcher.patterns.count))
        }
        for (index, book) in books.enumerated() where byFile[book.file] == nil { byFile[book.file] = index }
    }

    /// Notes the patterns of the rules file `file` that `relative` matches.
    package mutating func record(_ relative: String, in file: String) {
        guard let index = byFile[file] else { return }
        let matcher = books[index].matcher
        for id in matcher.index.candidates(relative) where !books[index].matched[id] {
            examined += 1
            if matcher.patterns[id].glob.matches(relative) { books[index].matched[id] = true }
        }
    }

    /// The patterns that matched nothing, rules file by rules file, in file order.
    package var unmatched: [RuleBook.Pattern] {
        books.flatMap { book in
            book.matcher.patterns.indices.filter { !book.matched[$0] }.map { id in
                let rule = book.rules.rules[book.matcher.patterns[id].rule]
                return RuleBook.Pattern(rules: book.rules.file, line: rule.line, glob: book.matcher.patterns[id].glob)
            }
        }
    }
}

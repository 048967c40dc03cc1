import Foundation

/// Paths of the repository and of the shared real-world corpus, found from this source file.
public enum RepositoryPaths {
    /// The repository root (the folder holding Package.swift).
    public static var root: String {
        let here = URL(fileURLWithPath: #filePath)
        return here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// `../shared/corpus/real` beside the repository, or `nil` when it is absent.
    /// `CAFCONV_TEST_CORPUS` names another folder (an empty or missing one plays a clone without
    /// `../shared`, to check that those tests skip).
    public static var realCorpus: String? {
        let path =
            ProcessInfo.processInfo.environment["CAFCONV_TEST_CORPUS"]
            ?? URL(fileURLWithPath: root).deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/real").standardizedFileURL.path
        return FileManager.default.fileExists(atPath: path + "/ORACLE.json") ? path : nil
    }

    /// The `ORACLE.json` of the real corpus, keyed by file name.
    public static func oracle() throws -> [String: [String: Any]] {
        guard let folder = realCorpus else { return [:] }
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/ORACLE.json"))
        return (try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]]) ?? [:]
    }

    /// The user documentation: README.md and every page of docs/, in name order, as one text.
    public static func documentation() throws -> String {
        var text = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let pages = (try? FileManager.default.contentsOfDirectory(atPath: root + "/docs")) ?? []
        for page in pages.sorted() where page.hasSuffix(".md") {
            text += "\n" + (try String(contentsOfFile: root + "/docs/" + page, encoding: .utf8))
        }
        return text
    }

    /// The built `cafconv` executable next to the test bundle.
    public static var executable: String {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            let candidate = url.deletingLastPathComponent().appendingPathComponent("cafconv")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            url = url.deletingLastPathComponent()
        }
        return root + "/.build/debug/cafconv"
    }
}

/// The outcome of running a program.
public struct ProcessResult: Sendable {
    /// The exit status (or 128 + signal).
    public var status: Int32
    /// Everything written to stdout.
    public var stdout: [UInt8]
    /// Everything written to stderr, as text.
    public var stderr: String
    /// stdout as text.
    public var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `program` with `arguments` and waits for it (at most `timeout` seconds: then it is killed
/// and ``BoundedProcess/Timeout`` thrown); `environment` is added to the test's own.
public func run(
    _ program: String, _ arguments: [String], currentDirectory: String? = nil, environment: [String: String] = [:],
    timeout: Double = BoundedProcess.defaultTimeout
) throws -> ProcessResult {
    let ran = try BoundedProcess.run(
        program, arguments, currentDirectory: currentDirectory,
        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, timeout: timeout)
    return ProcessResult(status: ran.status, stdout: ran.stdout, stderr: ran.stderr)
}

/// The path of a program on `PATH`, or `nil` when it is not installed.
public func which(_ name: String) -> String? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
        let candidate = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}

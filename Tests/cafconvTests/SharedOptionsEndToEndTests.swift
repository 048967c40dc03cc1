import TestSupport
import Testing

/// `--json` and `-q` are declared once and shared by `convert` and `verify`.
@Suite("Shared options of convert and verify")
struct SharedOptionsEndToEndTests {
    @Test("convert and verify show the same --json and -q lines in help")
    func sameHelpLines() throws {
        var shared: [[String]] = []
        for command in ["convert", "verify"] {
            let result = try run(RepositoryPaths.executable, [command, "--help"])
            #expect(result.status == 0)
            let lines = result.text.split(separator: "\n").map(String.init)
            let picked = lines.filter { $0.hasPrefix("  --json ") || $0.hasPrefix("  -q, --quiet ") }
            #expect(picked.count == 2, "\(command): \(picked)")
            shared.append(picked)
        }
        #expect(shared[0] == shared[1], "\(shared)")
        #expect(shared[0].contains { $0.contains("Print only errors and failures.") }, "\(shared)")
    }
}

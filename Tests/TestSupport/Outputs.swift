import BinaryIO
import CAFKit
import Foundation

#if canImport(Testing)
    import Testing
#endif

/// The temporary files (`*.tmp`) left anywhere under `path`, relative to it.
public func temporaryFiles(under path: String) -> [String] {
    (FileManager.default.subpaths(atPath: path) ?? []).filter { $0.hasSuffix(".tmp") }
}

/// Every `.caf` under `path` (never the hidden `.tmp` files), read by CAFKit and judged by
/// `CAFValidator`: its path relative to `path` and the rules it breaks, none for a valid file. A
/// file CAFKit cannot read at all throws.
public func validateCAFFiles(under path: String) throws -> [(name: String, diagnostics: [CAFDiagnostic])] {
    try (FileManager.default.subpaths(atPath: path) ?? []).filter { $0.hasSuffix(".caf") }.sorted().map { name in
        let file = try CAFFile(reading: MemoryByteSource(readFile(path + "/" + name) ?? []))
        return (name, CAFValidator.validate(file))
    }
}

#if canImport(Testing)
    /// Records an issue for every `.caf` under `path` that CAFKit finds invalid, and returns how many
    /// `.caf` files there are.
    public func expectValidOutputs(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let files = try validateCAFFiles(under: path)
        for file in files where !file.diagnostics.isEmpty {
            Issue.record("\(file.name): \(file.diagnostics)", sourceLocation: sourceLocation)
        }
        return files.count
    }
#endif

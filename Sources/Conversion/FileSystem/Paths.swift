import SystemLayer

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
}

extension FileSystem {
    /// After `relative` (a path inside `root`) was deleted, removes the folders between it and
    /// `root` that are now empty, deepest first; stops at the first that is not empty (or cannot
    /// be removed). `root` itself stays. Each folder is opened below `root` without following a
    /// symlink (as prune itself), and only empty folders are removed (`unlinkat(AT_REMOVEDIR)`).
    static func removeEmptyFolders(above relative: String, in root: String) {
        let parts = relative.split(separator: "/").dropLast()
        guard !parts.isEmpty, !parts.contains(".."), !parts.contains(".") else { return }
        var chain: [Folder] = []
        do {
            var folder = try Folder.open(root)
            chain.append(folder)
            for part in parts {
                folder = try folder.child(String(part), create: false)
                chain.append(folder)
            }
        } catch { return }
        for (parent, name) in zip(chain.dropLast().reversed(), parts.reversed()) {
            if withPath(String(name), { unlinkat(parent.descriptor, $0, AT_REMOVEDIR) }) != 0 { return }
        }
    }
}

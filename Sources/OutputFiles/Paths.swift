import ConversionModel
import SystemLayer

extension FileSystem {
    /// After `relative` (a path inside `root`) was deleted, removes the folders between it and
    /// `root` that are now empty, deepest first; stops at the first that is not empty (or cannot
    /// be removed). `root` itself stays. Each folder is opened below `root` without following a
    /// symlink (as prune itself), and only empty folders are removed (`unlinkat(AT_REMOVEDIR)`).
    package static func removeEmptyFolders(above relative: String, in root: String) {
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

import ConversionModel
import SystemLayer

/// Which files a folder holds for cafconv: the audio names a folder input is searched for, and
/// the walk that lists them (shared by the planner, `info` and `verify`).
extension FileSystem {
    /// The extensions (lowercase, any case matches) of the files a folder input is searched for;
    /// each one found is then recognised by its content.
    package static let audioExtensions = [
        "wav", "wave", "rf64", "w64", "aif", "aiff", "aifc", "caf", "flac", "ogg", "oga", "opus", "mp3", "au", "snd", "m4a",
        "mp4", "aac",
    ]

    /// Whether a file name is picked up from a folder: an audio extension (``audioExtensions``,
    /// any case), and not a hidden name (`.name`: cafconv's manifest and temporary files).
    package static func isAudioName(_ name: String) -> Bool {
        guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return false }
        return audioExtensions.contains(name[name.index(after: dot)...].lowercased())
    }

    /// Relative paths of the files under `folder` whose names match, sorted, following symlinked
    /// folders but never into a loop.
    package static func files(under folder: String, matching: (String) -> Bool) -> [String] {
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
}

import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import Transcoding
import Verification

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

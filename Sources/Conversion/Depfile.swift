import BinaryIO
import SystemLayer

/// `--depfile FILE`: the run's dependencies in Make syntax, as compilers write them with `-MD`,
/// for Make (`-include`), Ninja (`depfile =`) and CMake (`add_custom_command(... DEPFILE ...)`):
/// one line per output, `OUTPUT: SOURCE [RULES-FILE]`. Every planned output is listed (converted,
/// up to date, or failed), so a build system learns the dependencies even of a file that failed.
public enum Depfile {
    /// The text for a finished run's report.
    public static func text(for report: ConversionReport) -> String {
        var text = ""
        for file in report.files {
            guard let output = file.output, [.converted, .upToDate, .outOfDate, .failed].contains(file.status) else {
                continue
            }
            text += escape(output) + ":"
            for dependency in [file.input] + (file.rulesFile.map { [$0] } ?? []) { text += " " + escape(dependency) }
            text += "\n"
        }
        return text
    }

    /// Escapes a path for a Make rule the way GCC does: `\` before spaces, tabs and `#`, `$$` for
    /// `$`, `\:` is not needed after the target (Make and Ninja split on ': '), but a `:` in a
    /// prerequisite is escaped too.
    static func escape(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case " ", "\t", "#", ":": escaped += "\\" + String(character)
            case "$": escaped += "$$"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Writes `text` to `path` through a temporary file and a rename, so a build system never
    /// reads half a depfile.
    public static func write(_ text: String, to path: String) throws(ConversionError) {
        let temporary = path + ".cafconv-\(FileSystem.processID).tmp"
        let fd = FileSystem.withPath(temporary) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644) }
        guard fd >= 0 else { throw ConversionError.io(errno: errno, doing: "cannot write the depfile", path: path) }
        do {
            try FileSystem.writeAll(fd, Array(text.utf8), at: 0)
        } catch {
            FileSystem.closeFile(fd)
            FileSystem.remove(temporary)
            throw error
        }
        FileSystem.closeFile(fd)
        let renamed = FileSystem.withPath(temporary) { from in FileSystem.withPath(path) { to in rename(from, to) } }
        guard renamed == 0 else {
            let code = errno
            FileSystem.remove(temporary)
            throw ConversionError.io(errno: code, doing: "cannot write the depfile", path: path)
        }
    }
}

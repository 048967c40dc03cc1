import BinaryIO
import ConversionModel
import OutputFiles
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
    package static func escape(_ path: String) -> String {
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
    /// reads half a depfile. The temporary file is made as an output's is (an unguessable name,
    /// `O_EXCL | O_NOFOLLOW` in the opened folder), and only a regular file is ever replaced.
    public static func write(_ text: String, to path: String) throws(ConversionError) {
        do throws(ConversionError) {
            let folder = try FileSystem.Folder.open(FileSystem.directoryName(path))
            let temporary = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(path))
            let fd = try temporary.descriptor()
            defer { FileSystem.closeFile(fd) }
            try FileSystem.writeAll(fd, Array(text.utf8), at: 0)
            try temporary.commit()
        } catch {
            throw ConversionError.output(.depfileNotWritten(error))
        }
    }
}

import BinaryIO
import ConversionModel
import OutputFiles
import SystemLayer

/// `--depfile FILE`: the run's dependencies in Make syntax, as compilers write them with `-MD`,
/// for Make (`-include`), Ninja (`depfile =`) and CMake (`add_custom_command(... DEPFILE ...)`):
/// one line per output, `OUTPUT: SOURCE [RULES-FILE]`. Every planned output is listed (converted,
/// up to date, or failed), so a build system learns the dependencies even of a file that failed.
public enum Depfile {
    /// The depfile's bytes for a finished run's report: its ``ConversionReport/dependencies``,
    /// names as they are on disk (bytes that are not UTF-8 kept). Throws when a name holds what
    /// the syntax cannot carry (``escape(_:)``).
    public static func bytes(for report: ConversionReport) throws(ConversionError) -> [UInt8] {
        var bytes: [UInt8] = []
        for dependency in report.dependencies {
            bytes += try escape(dependency.output)
            bytes.append(0x3A)
            for input in dependency.inputs {
                bytes.append(0x20)
                bytes += try escape(input)
            }
            bytes.append(0x0A)
        }
        return bytes
    }

    /// The depfile as text (names that are not UTF-8 shown with replacement characters): tests.
    public static func text(for report: ConversionReport) throws(ConversionError) -> String {
        String(decoding: try bytes(for: report), as: UTF8.self)
    }

    /// A path escaped so that GNU Make and Ninja (1.10 and later) both read it back as it is:
    /// a space or `#` gets a backslash, and any backslashes right before it are doubled (Ninja
    /// reads 2N+1 backslashes and a space as N backslashes and a space); `$` is `$$`; `:` is
    /// `\:` (Make would read a bare one as a rule's separator; Ninja reads `\:` as `:`). Other
    /// backslashes stay as they are. Refused (``OutputFailure/depfileCannotName(path:character:)``):
    /// a tab, newline or carriage return (Ninja ends a name there, whatever escapes it) and a
    /// trailing backslash (Ninja would read it with the separator as an escaped space).
    package static func escape(_ path: String) throws(ConversionError) -> [UInt8] {
        let raw = PathBytes.encode(path)
        func refuse(_ character: String) -> ConversionError {
            ConversionError.output(.depfileCannotName(path: path, character: character))
        }
        if raw.last == 0x5C { throw refuse("a trailing backslash") }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(raw.count + 4)
        var backslashes = 0
        for byte in raw {
            switch byte {
            case 0x09: throw refuse("a tab")
            case 0x0A: throw refuse("a newline")
            case 0x0D: throw refuse("a carriage return")
            case 0x5C:
                backslashes += 1
                escaped.append(byte)
                continue
            case 0x20, 0x23:
                // The run of backslashes just written is doubled, then this one is escaped.
                escaped += [UInt8](repeating: 0x5C, count: backslashes)
                escaped += [0x5C, byte]
            case 0x24: escaped += [0x24, 0x24]
            case 0x3A: escaped += [0x5C, 0x3A]
            default: escaped.append(byte)
            }
            backslashes = 0
        }
        return escaped
    }

    /// Writes `text` to `path` through a temporary file and a rename, so a build system never
    /// reads half a depfile. The temporary file is made as an output's is (an unguessable name,
    /// `O_EXCL | O_NOFOLLOW` in the opened folder), and only a regular file is ever replaced.
    public static func write(_ bytes: [UInt8], to path: String) throws(ConversionError) {
        do throws(ConversionError) {
            let folder = try FileSystem.Folder.open(FileSystem.directoryName(path))
            let temporary = try FileSystem.TemporaryFile(in: folder, for: FileSystem.baseName(path))
            let fd = try temporary.descriptor()
            defer { FileSystem.closeFile(fd) }
            try FileSystem.writeAll(fd, bytes, at: 0)
            try temporary.commit()
        } catch {
            throw ConversionError.output(.depfileNotWritten(error))
        }
    }
}

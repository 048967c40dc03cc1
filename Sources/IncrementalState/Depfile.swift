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

    /// A path escaped so that GNU Make (4.3) and Ninja (1.10 and later) both read it back as it
    /// is, or refused (``OutputFailure/depfileCannotName(path:character:)``). Kept as they are:
    /// letters, digits, `+ , / _ . ~ ( ) { } @ ! -` and bytes from 0x80 (each read back exactly
    /// by both, checked with the real tools). Escaped: a space or `#` gets a backslash, and any
    /// backslashes right before a space are doubled (Ninja reads 2N+1 backslashes and a space as
    /// N backslashes and a space); `$` is `$$`; `:` is `\:` (Make would read a bare one as a
    /// rule's separator; Ninja reads `\:` as `:`); other backslashes stay as they are. Every
    /// other byte is refused: ``& ' ; * ? " < > ^`` and a backtick end a name for Ninja; for Make
    /// `;` starts a recipe, `%` makes a pattern rule, `* ? [ ]` are globs and `=` an assignment;
    /// a tab, newline or carriage return ends a name for both. So is a backslash right before
    /// `#` or `:` (Make and Ninja read the run differently) or at the end (Ninja would read it
    /// with the separator as an escaped space).
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
            case 0x5C:
                backslashes += 1
                escaped.append(byte)
                continue
            case 0x20:
                // The run of backslashes just written is doubled, then this one is escaped.
                escaped += [UInt8](repeating: 0x5C, count: backslashes)
                escaped += [0x5C, byte]
            case 0x23, 0x3A:
                if backslashes > 0 { throw refuse("a backslash before \(described(byte))") }
                escaped += [0x5C, byte]
            case 0x24: escaped += [0x24, 0x24]
            default:
                guard keptAsIs(byte) else { throw refuse(described(byte)) }
                escaped.append(byte)
            }
            backslashes = 0
        }
        return escaped
    }

    /// Whether Make and Ninja both read `byte` in a name as itself, unescaped.
    static func keptAsIs(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            0x80...0xFF:
            return true
        default:
            return Array("+,/_.~(){}@!-".utf8).contains(byte)
        }
    }

    /// A refused byte as the message names it: `a tab`, `';'`, `the byte 0x1`.
    static func described(_ byte: UInt8) -> String {
        switch byte {
        case 0x09: return "a tab"
        case 0x0A: return "a newline"
        case 0x0D: return "a carriage return"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(byte)))'"
        default: return "the byte 0x" + String(byte, radix: 16, uppercase: true)
        }
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

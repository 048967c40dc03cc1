import BinaryIO

/// Output failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.output`).
/// Paths are kept as given and shown escaped (``PathBytes/display(_:)``); system errors are
/// kept as `errno`.
public enum OutputFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// `mkdir` of a folder on the output's way failed.
    case folderNotCreated(path: String, errno: Int32)
    /// Something other than a folder stands where a folder of the output's way goes.
    case fileInTheWay(path: String)
    /// A folder of the output's way cannot be opened.
    case folderNotOpened(path: String, errno: Int32)
    /// A folder of the output's way is a symbolic link (never followed below the root).
    case symbolicLink(path: String)
    /// Something other than a regular file stands at the output (or appeared there).
    case notReplaceable(path: String, kind: FileKind)
    /// A temporary file of this run is no longer the file it created.
    case replaced(path: String)
    /// A temporary file of this run cannot be opened again (`errno`): a failed system call,
    /// code `io`.
    case notReopened(path: String, errno: Int32)
    /// The temporary file cannot be created in the output's folder.
    case temporaryNotCreated(folder: String, errno: Int32)
    /// The temporary file cannot be opened again for writing.
    case temporaryNotOpened(errno: Int32)
    /// The temporary file was swapped for another before it was renamed into place.
    case temporaryReplaced(path: String)
    /// The output root no longer stands at the path the user named.
    case rootMoved(path: String)
    /// The rename of the finished file onto its output failed.
    case notMovedIntoPlace(errno: Int32)
    /// The output path names the input itself.
    case outputIsSource
    /// The output of an AAC source is the source file itself (the AAC-source road's sentence).
    case replacesItsSource
    /// The output path is another input of the run.
    case outputIsAnInput(output: String)
    /// Other inputs are converted to the same output (none of them is converted).
    case sameOutput(others: [String], output: String)
    /// `--depfile`: the file cannot be written; the reason keeps its own code.
    indirect case depfileNotWritten(ConversionError)
    /// `--depfile`: `path` holds a character Ninja's depfile syntax cannot carry (a tab, a
    /// newline, a carriage return, or a trailing backslash).
    case depfileCannotName(path: String, character: String)
    /// AAC's spool file (the encoded packets, before the header is known) cannot be created in
    /// `folder`.
    case spoolNotCreated(folder: String, errno: Int32)

    /// What stands at a path, as a failure names it.
    public enum FileKind: String, Equatable, Sendable {
        case regularFile = "a regular file"
        case folder = "a folder"
        case symbolicLink = "a symbolic link"
        case characterDevice = "a character device"
        case blockDevice = "a block device"
        case fifo = "a FIFO"
        case socket = "a socket"
        case unknown = "not a regular file"
    }

    /// The kind of failure.
    public var code: ConversionError.Code {
        switch self {
        case .depfileNotWritten(let reason): reason.code
        case .notReopened: .io
        default: .output
        }
    }

    /// The reason, in one sentence, without the file's name.
    public var message: String {
        let shown = PathBytes.display
        switch self {
        case .folderNotCreated(let path, let errno):
            return "cannot create folder \(shown(path)): \(ConversionError.systemText(errno))"
        case .fileInTheWay(let path): return "cannot create folder \(shown(path)): a file is in the way"
        case .folderNotOpened(let path, let errno):
            return "cannot open folder \(shown(path)): \(ConversionError.systemText(errno))"
        case .symbolicLink(let path):
            return "\(shown(path)) is a symbolic link; cafconv never follows links inside an output folder"
        case .notReplaceable(let path, let kind):
            return "\(shown(path)) is \(kind.rawValue); cafconv replaces only regular files"
        case .replaced(let path): return "cannot open \(shown(path)): it was replaced by something else"
        case .notReopened(let path, let errno): return "cannot open \(shown(path)): \(ConversionError.systemText(errno))"
        case .temporaryNotCreated(let folder, let errno):
            return "cannot create a file in \(shown(folder)): \(ConversionError.systemText(errno))"
        case .temporaryNotOpened(let errno): return "cannot open the temporary file: \(ConversionError.systemText(errno))"
        case .temporaryReplaced(let path): return "the temporary file \(shown(path)) was replaced by someone else"
        case .rootMoved(let path):
            return "the output folder \(shown(path)) was moved or replaced during the run; nothing written there"
        case .notMovedIntoPlace(let errno):
            return "cannot move the finished file into place: \(ConversionError.systemText(errno))"
        case .replacesItsSource: return "the output would replace its own source; choose another -o"
        case .outputIsSource:
            return
                "its output would be the source itself; a CAF source is never overwritten: convert it into another folder with -o"
        case .outputIsAnInput(let output): return "the output path \(output) is an input; refusing to overwrite it"
        case .sameOutput(let others, let output):
            return
                "\(others.joined(separator: ", ")) \(others.count == 1 ? "is" : "are") also converted to \(output); none of them is converted: rename one or narrow the inputs with --exclude"
        case .depfileNotWritten(let reason): return "cannot write the depfile: \(reason.message)"
        case .depfileCannotName(let path, let character):
            return
                "cannot write the depfile: \(shown(path)) holds \(character), which Make and Ninja depfiles cannot carry; rename it"
        case .spoolNotCreated(let folder, let errno):
            return "cannot create a spool file in \(shown(folder)): \(ConversionError.systemText(errno))"
        }
    }

    public var description: String { message }
}

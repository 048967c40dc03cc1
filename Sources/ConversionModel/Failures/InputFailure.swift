/// Input failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.input`).
public enum InputFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// An input named on the command line does not exist.
    case missing
    /// An input named on the command line is neither a regular file nor a folder.
    case notFileOrFolder
    /// A folder input holds no file with one of `extensions` (searched for, any case);
    /// `leftOut` files were left out by `--include`/`--exclude`.
    case nothingFound(extensions: [String], leftOut: Int)
    /// A FIFO, socket or device with an audio name in a folder input: never opened.
    case specialFileInFolder
    /// A symbolic link in a folder input whose target is missing or loops.
    case brokenLink
    /// The file opened for reading is not a regular file.
    case notRegularFile

    /// The kind of failure.
    public var code: ConversionError.Code { .input }

    /// The reason, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .missing: "no such file or folder"
        case .notFileOrFolder: "not a regular file or folder"
        case .nothingFound(let extensions, let leftOut):
            "no audio files found (\(extensions.map { "*." + $0 }.joined(separator: ", ")), searched recursively)"
                + (leftOut == 0 ? "" : "; \(leftOut) left out by --include/--exclude")
        case .specialFileInFolder: "not a regular file (a FIFO, socket or device); not read"
        case .brokenLink: "broken symbolic link: its target is missing or the link loops"
        case .notRegularFile: "not a regular file (a FIFO, socket, device or folder); not read"
        }
    }

    public var description: String { message }
}

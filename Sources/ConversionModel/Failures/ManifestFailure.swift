/// Manifest failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.manifest`).
public enum ManifestFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file at the manifest's path is not one cafconv may write: it is left alone.
    case leftAlone(Unusable)
    /// Writing the manifest failed (`errno`).
    case notWritten(errno: Int32)
    /// Writing the manifest failed for another reason, kept with its own sentence.
    indirect case notWrittenBecause(ConversionError)
    /// The manifest was written but is gone from its folder.
    case vanished
    /// The run's records could not be saved (the manifest named as the file).
    indirect case notRecorded(ConversionError)

    /// Why the file at a manifest's path is not a manifest cafconv may write.
    public enum Unusable: Equatable, Sendable, CustomStringConvertible {
        /// It cannot be opened (`errno`, never `ENOENT`: a missing file is simply no manifest).
        case unreadable(errno: Int32)
        /// A FIFO, a folder, a device...
        case notRegularFile
        /// A regular file whose first line is not a manifest's header.
        case notAManifest

        /// What the file is, as a predicate: `is not a cafconv manifest`.
        public var description: String {
            switch self {
            case .unreadable(let errno): "cannot be read: \(ConversionError.systemText(errno))"
            case .notRegularFile: "is not a regular file"
            case .notAManifest: "is not a cafconv manifest"
            }
        }
    }

    /// The kind of failure.
    public var code: ConversionError.Code { .manifest }

    /// The reason, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .leftAlone(let why): "it \(why); it is left alone (move it away to record again)"
        case .notWritten(let errno): "cannot write it: \(ConversionError.systemText(errno))"
        case .notWrittenBecause(let reason): "cannot write it: \(reason.message)"
        case .vanished: "cannot write it: it vanished"
        case .notRecorded(let reason): "cannot record what was converted: \(reason.message)"
        }
    }

    public var description: String { message }
}

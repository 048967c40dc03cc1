/// Metadata warnings (`ConversionWarning`), one case per warning with its data; `message` is the
/// one place each becomes its sentence.
public enum MetadataWarning: Equatable, Sendable, CustomStringConvertible {
    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .notWrittenToAAC:
            "the source's loops, markers and text are not written: -d aac outputs carry none (--strip-metadata drops them without this warning)"
        }
    }

    public var description: String { message }

    // Cases of the files outside the source stage (the output codecs).
    /// `-d aac`: the source's loops, markers and text are not written (AAC outputs carry none).
    case notWrittenToAAC
}

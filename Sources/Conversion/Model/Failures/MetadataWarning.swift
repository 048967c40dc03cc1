/// Metadata warnings (`ConversionWarning`), one case per warning with its data; `message` is the
/// one place each becomes its sentence.
public enum MetadataWarning: Equatable, Sendable, CustomStringConvertible {
    /// An AAC source's loops, markers and text, which are not carried.
    case notCarriedFromAAC

    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .notCarriedFromAAC:
            "the source's loops, markers and text are not written: they are not carried from AAC sources (--strip-metadata drops them without this warning)"
        }
    }

    public var description: String { message }
}

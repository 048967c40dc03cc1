/// Run warnings (`ConversionWarning`), one case per warning with its data; `message` is the
/// one place each becomes its sentence.
public enum RunWarning: Equatable, Sendable, CustomStringConvertible {
    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {}
    }

    public var description: String { message }
}

/// Proof failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.proof`).
public enum ProofFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public var code: ConversionError.Code {
        switch self {}
    }

    /// The reason, in one sentence, without the file's name.
    public var message: String {
        switch self {}
    }

    public var description: String { message }
}

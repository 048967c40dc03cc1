import BinaryIO

/// Why a CAF file could not be read, with the byte offset where reading stopped.
public struct CAFError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// The file does not start with `caff`.
        case notCAF(found: FourCC)
        /// The file header names a version other than 1.
        case unsupportedVersion(UInt16)
        /// The file ended before a structure was complete.
        case truncated
        /// A chunk is malformed in a way the reader cannot recover from.
        case malformedChunk(FourCC)
        /// There is no `desc` chunk.
        case missingDescription
        /// There is no `data` chunk.
        case missingData
        /// Reading the file failed.
        case io
    }

    /// What went wrong.
    public var kind: Kind
    /// The absolute byte offset of the problem.
    public var offset: UInt64
    /// One sentence saying what was expected and what was found.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, at offset: UInt64, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// `at byte N: message`.
    public var description: String { "at byte \(offset): \(message)" }

    static func from(_ error: ByteError, reading what: String) -> CAFError {
        switch error {
        case .truncated(let offset, let needed, let available):
            return CAFError(.truncated, at: offset, "\(what) is truncated: needed \(needed) bytes, found \(available)")
        case .io(_, _, let message):
            return CAFError(.io, at: 0, "cannot read: \(message)")
        }
    }
}

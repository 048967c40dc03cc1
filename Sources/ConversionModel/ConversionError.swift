import SystemLayer

/// Why one file could not be converted: a stable `code` (the JSON report's `files[].code`) and one
/// sentence, without the file name (the report adds it). A failure of libsndfile keeps
/// libsndfile's error number, a failed system call keeps `errno`; ``message`` and ``code`` are
/// the one place any case becomes its sentence and its code.
public enum ConversionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libsndfile failed: its error number (`sf_error`, 0 where libsndfile gave none), its
    /// message, and what cafconv was doing (`reading failed`...).
    case libsndfile(code: Int32, message: String, doing: String)
    /// A system call failed: `errno`, what cafconv was doing (`cannot open it`...) and the path
    /// concerned when known.
    case io(errno: Int32, doing: String, path: String? = nil)
    /// The input cannot be read as audio, or its readers disagree (``SourceFailure``).
    case source(SourceFailure)
    /// The audio cannot be encoded or laid out as asked (``EncodingFailure``).
    case encoding(EncodingFailure)
    /// The written file failed its proof against the source (``ProofFailure``).
    case proof(ProofFailure)
    /// An input that is missing or not a file cafconv takes (``InputFailure``).
    case input(InputFailure)
    /// The output cannot be put in place (``OutputFailure``).
    case output(OutputFailure)
    /// The folder's manifest cannot be read or written (``ManifestFailure``).
    case manifest(ManifestFailure)
    /// The run was interrupted (SIGINT or SIGTERM) before the file was done.
    case interrupted

    /// The kind of failure, stable across releases: scripts may switch on its raw value.
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// The input is missing, or is not a regular file or folder.
        case input
        /// The input is not a sound file cafconv can read.
        case notAudio = "not-audio"
        /// The audio cannot be converted to the asked format.
        case unsupported
        /// libsndfile and cafconv's WAV reader decode the input differently.
        case readersDisagree = "readers-disagree"
        /// libsndfile failed while reading or writing the samples.
        case libsndfile
        /// A system call failed (open, read, write, copy, rename...).
        case io
        /// The input changed or ended early while it was being converted.
        case sourceChanged = "source-changed"
        /// The output cannot be put in place (a file or folder in the way, a folder replaced).
        case output
        /// The written CAF failed verification against its source.
        case proof
        /// What was converted cannot be recorded in the folder's manifest.
        case manifest
        /// The run was interrupted (SIGINT or SIGTERM) before the file was done.
        case interrupted

        /// What the code means, in one sentence (the table of codes in docs/convert.md).
        public var summary: String {
            switch self {
            case .input: "the input is missing, or is not a regular file or folder"
            case .notAudio: "the input is not a sound file cafconv can read"
            case .unsupported: "the audio cannot be converted to the asked format"
            case .readersDisagree: "libsndfile and cafconv's WAV reader decode the input differently"
            case .libsndfile: "libsndfile failed while reading or writing the samples"
            case .io: "a system call failed (open, read, write, copy, rename)"
            case .sourceChanged: "the input changed or ended early while it was being converted"
            case .output: "the output cannot be put in place (a file or folder in the way, a folder replaced)"
            case .proof: "the written CAF failed verification against its source"
            case .manifest: "what was converted cannot be recorded in the folder's manifest"
            case .interrupted: "the run was interrupted before the file was done"
            }
        }
    }


    /// The kind of failure.
    public var code: Code {
        switch self {
        case .libsndfile: return .libsndfile
        case .io: return .io
        case .source(let failure): return failure.code
        case .encoding(let failure): return failure.code
        case .proof: return .proof
        case .input(let failure): return failure.code
        case .output(let failure): return failure.code
        case .manifest: return .manifest
        case .interrupted: return .interrupted
        }
    }

    /// The reason, in one sentence: `reading failed: <libsndfile's message>`,
    /// `cannot open it: <strerror(errno)>`, or the sentence given.
    public var message: String {
        switch self {
        case .libsndfile(_, let message, let doing): return doing.isEmpty ? message : "\(doing): \(message)"
        case .io(let errno, let doing, _): return "\(doing): \(Self.systemText(errno))"
        case .source(let failure): return failure.message
        case .encoding(let failure): return failure.message
        case .proof(let failure): return failure.message
        case .input(let failure): return failure.message
        case .output(let failure): return failure.message
        case .manifest(let failure): return failure.message
        case .interrupted: return Cancellation.reason
        }
    }

    public var description: String { message }

    /// The system's text for `errno` (`strerror`), as every sentence about a failed call ends.
    public static func systemText(_ errno: Int32) -> String { String(cString: strerror(errno)) }
}

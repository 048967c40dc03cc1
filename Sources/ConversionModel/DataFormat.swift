import BinaryIO
import SndFile

/// A `-d` text that is not a data format, or a data format that contradicts `--endian`, with a
/// sentence saying what is wrong (the command line reports it as a usage error).
public struct DataFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The byte order asked for with `--endian`.
public enum EndianChoice: String, Sendable, CaseIterable, Codable {
    /// Little-endian, as Apple platforms expect (the default).
    case little
    /// Big-endian, the CAF default of libsndfile, ffmpeg and sox.
    case big
    /// The byte order of the machine running cafconv.
    case native
    /// The byte order of the input (little for RIFF WAV, big for RIFX).
    case source

    /// The concrete byte order for an input whose samples are in `sourceOrder`.
    public func resolve(source sourceOrder: ByteOrder) -> ByteOrder {
        switch self {
        case .little: return .little
        case .big: return .big
        case .native: return .host
        case .source: return sourceOrder
        }
    }
}

/// An output data format in afconvert's `-d` grammar: `[LE|BE]{I|F}bits` (`LEI16`, `BEF32`, `I8`),
/// or a codec name (`ulaw`, `alaw`, `alac`, `ima4`).
public struct DataFormat: Equatable, Sendable, CustomStringConvertible {
    /// What the samples become.
    public enum Kind: Equatable, Sendable {
        /// Linear PCM of the given bits, integer or float.
        case linearPCM(bits: Int, isFloat: Bool)
        /// G.711 µ-law.
        case ulaw
        /// G.711 A-law.
        case alaw
        /// Apple Lossless at the source's bit depth.
        case alac
        /// Apple Lossless at this bit depth (16, 20, 24 or 32): `alac16`... as cafconv prints them.
        case alacBits(Int)
        /// Apple IMA ADPCM (`ima4`): 64 frames in 34 bytes per channel, encoded by CAFKit's
        /// `IMA4Encoder` and written by CAFKit's writer with a `pakt` (never libsndfile).
        case ima4
        /// AAC-LC (MPEG-4 AAC Low Complexity) from libavcodec's encoder, at `-b` bits per second.
        case aac
    }

    /// What the samples become.
    public var kind: Kind
    /// The byte order named by an `LE`/`BE` prefix, if any.
    public var byteOrder: ByteOrder?
    /// The text as given.
    public var text: String

    /// The usage error when `--endian <order>` (`little` or `big`) contradicts the byte order this
    /// format names; `nil` when they agree or the format names none.
    public func disagreement(withEndian order: String) -> DataFormatError? {
        guard let own = byteOrder, own.rawValue != order else { return nil }
        return DataFormatError("-d \(text) asks for \(own.rawValue)-endian samples but --endian asks for \(order)")
    }

    public var description: String { text }

    /// The formats `-d` accepts, for help texts.
    public static let examples =
        "LEI16 BEI16 LEI24 BEI24 LEI32 BEI32 LEF32 BEF32 LEF64 BEF64 I8 ulaw alaw alac alac16 alac20 alac24 alac32 ima4 aac"

    /// Parses a `-d` value, or throws a usage error that says what is wrong.
    public init(parsing text: String) throws(DataFormatError) {
        self.text = text
        var rest = Substring(text)
        if let at = rest.firstIndex(of: "@") {
            let rate = rest[rest.index(after: at)...]
            throw DataFormatError(
                "'\(text)': resampling (@\(rate)) is not supported; cafconv keeps the source's sample rate, so drop '@\(rate)'")
        }
        if rest.contains("/") || rest.contains("#") {
            throw DataFormatError(
                "'\(text)': format flags ('/') and frames per packet ('#') are not supported; use one of \(Self.examples)")
        }
        switch rest.lowercased() {
        case "0", "n":
            throw DataFormatError(
                "'\(text)': keeping the source's format is what cafconv does without -d (lossy sources become LEI16); drop -d")
        case "alac16", "alac20", "alac24", "alac32":
            kind = .alacBits(Int(rest.dropFirst(4)) ?? 16)
            byteOrder = nil
            return
        case "ulaw":
            kind = .ulaw
            byteOrder = nil
            return
        case "alaw":
            kind = .alaw
            byteOrder = nil
            return
        case "alac":
            kind = .alac
            byteOrder = nil
            return
        case "ima4":
            kind = .ima4
            byteOrder = nil
            return
        case "aac":
            kind = .aac
            byteOrder = nil
            return
        case "aacl", "aach", "opus", "flac", "mp3", "ilbc", "ac-3":
            throw DataFormatError(
                "'\(text)': cafconv cannot encode this codec (libsndfile has no \(text) encoder for CAF); use one of \(Self.examples)"
            )
        default:
            break
        }
        // Case does not matter (`lei16` is `LEI16`), as the codec names above.
        rest = Substring(rest.uppercased())
        var order: ByteOrder?
        if rest.hasPrefix("LE") {
            order = .little
            rest = rest.dropFirst(2)
        } else if rest.hasPrefix("BE") {
            order = .big
            rest = rest.dropFirst(2)
        }
        let isFloat: Bool
        if rest.hasPrefix("UI") {
            throw DataFormatError(
                "'\(text)': CAF linear PCM is signed; use I8 (unsigned 8-bit sources become signed with the same waveform)")
        } else if rest.hasPrefix("I") {
            isFloat = false
        } else if rest.hasPrefix("F") {
            isFloat = true
        } else {
            throw DataFormatError("'\(text)' is not a data format; use one of \(Self.examples)")
        }
        rest = rest.dropFirst()
        guard let bits = Int(rest) else {
            throw DataFormatError("'\(text)': expected a bit depth after '\(isFloat ? "F" : "I")'; use one of \(Self.examples)")
        }
        let allowed = isFloat ? [32, 64] : [8, 16, 24, 32]
        guard allowed.contains(bits) else {
            let list = allowed.map(String.init).joined(separator: ", ")
            throw DataFormatError("'\(text)': \(isFloat ? "float" : "integer") samples can be \(list) bits, not \(bits)")
        }
        kind = .linearPCM(bits: bits, isFloat: isFloat)
        byteOrder = order
    }
}

/// What a conversion writes: the sample encoding and, for multi-byte PCM, its byte order.
public struct TargetFormat: Equatable, Sendable, CustomStringConvertible {
    /// The libsndfile encoding of the output.
    public var encoding: Encoding
    /// The byte order of the output samples.
    public var byteOrder: ByteOrder

    /// Creates a target.
    public init(encoding: Encoding, byteOrder: ByteOrder) {
        self.encoding = encoding
        self.byteOrder = byteOrder
    }

    /// The afconvert-style name: `LEI16`, `BEF32`, `I8`, `ulaw`, `alac` (16-bit), `ima4`...
    public var description: String { isIMA4 ? "ima4" : formatCode(encoding, byteOrder) }

    /// Whether the output is Apple IMA ADPCM (`-d ima4`): libsndfile's `imaADPCM` encoding stands
    /// for it in a target, but CAFKit encodes and writes it (libsndfile has no IMA4 in CAF).
    public var isIMA4: Bool { encoding == .imaADPCM }

    /// Picks the output format for a source, following the options.
    ///
    /// Without `-d`, the source's sample format is kept when CAF can hold it (linear PCM, FLAC's
    /// bit depth as linear PCM, µ-law, A-law, ALAC); unsigned 8-bit becomes signed 8-bit, and
    /// lossy encodings (MP3, Vorbis, Opus) and encodings CAF cannot hold (ADPCM, GSM 6.10, ...)
    /// become 16-bit.
    public static func resolve(
        source: Encoding, sourceOrder: ByteOrder, dataFormat: DataFormat?,
        endian: EndianChoice?
    ) -> TargetFormat {
        let order = dataFormat?.byteOrder ?? (endian ?? .little).resolve(source: sourceOrder)
        let encoding: Encoding
        switch dataFormat?.kind {
        case .linearPCM(let bits, let isFloat)?:
            if isFloat {
                encoding = bits == 64 ? .float64 : .float32
            } else {
                encoding = [8: Encoding.pcmS8, 16: .pcm16, 24: .pcm24][bits] ?? .pcm32
            }
        case .ulaw?: encoding = .ulaw
        case .alaw?: encoding = .alaw
        case .alacBits(let bits)?:
            encoding = [16: Encoding.alac16, 20: .alac20, 24: .alac24][bits] ?? .alac32
        case .ima4?: encoding = .imaADPCM
        case .aac?:
            // Never written through libsndfile: `AACStage` converts AAC jobs before this is asked.
            encoding = .pcm16
        case .alac?:
            switch source {
            case .pcm24, .alac24, .float32, .float64: encoding = .alac24
            case .pcm32, .alac32: encoding = .alac32
            case .alac20: encoding = .alac20
            default: encoding = .alac16
            }
        case nil:
            switch source {
            case .pcmU8, .pcmS8: encoding = .pcmS8
            case .pcm16, .pcm24, .pcm32, .float32, .float64, .ulaw, .alaw: encoding = source
            // Apple Lossless stays Apple Lossless at its bit depth.
            case .alac16, .alac20, .alac24, .alac32: encoding = source
            // Lossy (MP3, Vorbis, Opus) and codecs CAF cannot hold (ADPCM, GSM 6.10): 16-bit.
            default: encoding = .pcm16
            }
        }
        return TargetFormat(encoding: encoding, byteOrder: order)
    }
}

/// The afconvert-style code of an encoding: `LEI16`, `BEF64`, `I8`, `ulaw`, `alac16`, `ima-adpcm`...
public func formatCode(_ encoding: Encoding, _ order: ByteOrder) -> String {
    let prefix = order == .little ? "LE" : "BE"
    switch encoding {
    case .pcmS8: return "I8"
    case .pcmU8: return "UI8"
    case .pcm16: return prefix + "I16"
    case .pcm24: return prefix + "I24"
    case .pcm32: return prefix + "I32"
    case .float32: return prefix + "F32"
    case .float64: return prefix + "F64"
    case .ulaw: return "ulaw"
    case .alaw: return "alaw"
    case .alac16: return "alac16"
    case .alac20: return "alac20"
    case .alac24: return "alac24"
    case .alac32: return "alac32"
    case .imaADPCM: return "ima-adpcm"
    case .msADPCM: return "ms-adpcm"
    case .gsm610: return "gsm610"
    case .other: return encoding.description
    }
}

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

/// An output data format in afconvert's `-d` grammar: linear PCM as `[LE|BE]{I|F}bits` (`LEI16`,
/// `BEF32`, `I8`), or a codec's name (`ulaw`, `alac`, `alac24`, `ima4`, `aac`). The grammar of
/// linear PCM is afconvert's and lives here; which codec names exist is the codec registry's
/// (`OutputCodecs` in Transcoding), handed to the parser as a ``Vocabulary``, so a new codec is
/// never a case here.
public struct DataFormat: Equatable, Sendable, CustomStringConvertible {
    /// What the samples become: a codec's name and, for linear PCM and ALAC, a bit depth.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// The codec's `-d` name (`ulaw`, `alac`, `ima4`, `aac`...), or ``linearPCMName``.
        public var codec: String
        /// The bit depth: linear PCM's always, a codec's when `-d` names one (`alac24`).
        public var bits: Int?
        /// Whether linear PCM samples are floats.
        public var isFloat: Bool
        /// Whether `-b` (a bit rate) applies, as the codec's ``Spelling`` says.
        public var takesBitRate = false
        /// The codec's display name when its packets have no byte order, as its ``Spelling`` says.
        public var byteOrderless: String?

        /// The ``codec`` of linear PCM, which `-d` spells by its grammar, never by this name.
        public static let linearPCMName = "lpcm"

        /// A codec's kind: `name` as its ``Spelling`` says it, with the bit depth `-d` gave.
        public init(codec: String, bits: Int? = nil) {
            self.codec = codec
            self.bits = bits
            self.isFloat = false
        }

        /// Linear PCM of the given bits, integer or float.
        public static func linearPCM(bits: Int, isFloat: Bool) -> Kind {
            var kind = Kind(codec: linearPCMName, bits: bits)
            kind.isFloat = isFloat
            return kind
        }

        /// Whether this is linear PCM.
        public var isLinearPCM: Bool { codec == Self.linearPCMName }

        // A kind is its codec and depth; the facts its spelling carries along do not tell kinds apart.
        public static func == (lhs: Kind, rhs: Kind) -> Bool {
            lhs.codec == rhs.codec && lhs.bits == rhs.bits && lhs.isFloat == rhs.isFloat
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(codec)
            hasher.combine(bits)
            hasher.combine(isFloat)
        }

        public var description: String {
            guard isLinearPCM else { return codec + (bits.map(String.init) ?? "") }
            return (isFloat ? "F" : "I") + (bits.map(String.init) ?? "")
        }
    }

    /// How `-d` names one codec: what the registry tells the parser about it.
    public struct Spelling: Equatable, Sendable {
        /// The name `-d` takes (case does not matter), or ``Kind/linearPCMName`` for linear PCM.
        public var name: String
        /// The spellings `--help` lists for it (`alac alac16 alac20...`).
        public var examples: [String]
        /// The bit depths `-d` may append to the name (`alac16`); none when empty.
        public var bitDepths: [Int]
        /// Whether `-b` (a bit rate) applies.
        public var takesBitRate: Bool
        /// The codec's display name when its packets have no byte order (`--endian` is refused).
        public var byteOrderless: String?

        /// A codec's spelling.
        public init(
            _ name: String, examples: [String]? = nil, bitDepths: [Int] = [], takesBitRate: Bool = false,
            byteOrderless: String? = nil
        ) {
            self.name = name
            self.examples = examples ?? [name]
            self.bitDepths = bitDepths
            self.takesBitRate = takesBitRate
            self.byteOrderless = byteOrderless
        }

        /// The kind `-d` names with this spelling (and a bit depth, for `alac24`).
        public func kind(bits: Int? = nil) -> Kind {
            var kind = Kind(codec: name, bits: bits)
            kind.takesBitRate = takesBitRate
            kind.byteOrderless = byteOrderless
            return kind
        }
    }

    /// The codec names `-d` accepts, from the codec registry.
    public struct Vocabulary: Equatable, Sendable {
        /// One spelling per codec, in the order `--help` lists them.
        public var spellings: [Spelling]

        /// A vocabulary of these spellings.
        public init(_ spellings: [Spelling]) { self.spellings = spellings }

        /// Linear PCM alone: what the grammar knows without a registry.
        public static let linearPCMOnly = Vocabulary([])

        /// The formats `-d` accepts, for help texts and error messages.
        public var examples: String {
            (spellings.isEmpty ? Self.linearPCMExamples : spellings.flatMap(\.examples)).joined(separator: " ")
        }

        /// Linear PCM's spellings (the ones `--help` lists; the grammar takes any case).
        public static let linearPCMExamples = ["LEI16", "BEI16", "LEI24", "BEI24", "LEI32", "BEI32", "LEF32", "BEF32", "LEF64", "BEF64", "I8"]

        /// The codec names that take `-b`, for the message when it is given to another.
        public var bitRateNames: String { spellings.filter(\.takesBitRate).map(\.name).joined(separator: " or ") }

        /// The kind a codec name (with an optional bit depth) stands for, if it names one.
        func kind(named text: String) -> Kind? {
            let lowered = text.lowercased()
            for spelling in spellings where spelling.name != Kind.linearPCMName {
                if lowered == spelling.name { return spelling.kind() }
                let suffix = lowered.dropFirst(spelling.name.count)
                if lowered.hasPrefix(spelling.name), let bits = Int(suffix), spelling.bitDepths.contains(bits),
                    String(bits) == suffix
                {
                    return spelling.kind(bits: bits)
                }
            }
            return nil
        }
    }

    /// What the samples become.
    public var kind: Kind
    /// The byte order named by an `LE`/`BE` prefix, if any.
    public var byteOrder: ByteOrder?
    /// The text as given.
    public var text: String

    /// A format of `kind`, as `text` spelled it.
    public init(kind: Kind, byteOrder: ByteOrder? = nil, text: String) {
        self.kind = kind
        self.byteOrder = byteOrder
        self.text = text
    }

    /// The usage error when `--endian <order>` (`little` or `big`) contradicts the byte order this
    /// format names; `nil` when they agree or the format names none.
    public func disagreement(withEndian order: String) -> DataFormatError? {
        guard let own = byteOrder, own.rawValue != order else { return nil }
        return DataFormatError("-d \(text) asks for \(own.rawValue)-endian samples but --endian asks for \(order)")
    }

    public var description: String { text }

    /// Codec names afconvert knows that no codec in the registry writes.
    static let unwritten: Set<String> = ["aacl", "aach", "opus", "flac", "mp3", "ilbc", "ac-3"]

    /// Parses a `-d` value against the codecs in `vocabulary`, or throws a usage error that says
    /// what is wrong.
    public init(parsing text: String, vocabulary: Vocabulary) throws(DataFormatError) {
        let examples = vocabulary.examples
        if let at = text.firstIndex(of: "@") {
            let rate = text[text.index(after: at)...]
            throw DataFormatError(
                "'\(text)': resampling (@\(rate)) is not supported; cafconv keeps the source's sample rate, so drop '@\(rate)'")
        }
        if text.contains("/") || text.contains("#") {
            throw DataFormatError(
                "'\(text)': format flags ('/') and frames per packet ('#') are not supported; use one of \(examples)")
        }
        if text == "0" || text.lowercased() == "n" {
            throw DataFormatError(
                "'\(text)': keeping the source's format is what cafconv does without -d (lossy sources become LEI16); drop -d")
        }
        if let kind = vocabulary.kind(named: text) {
            self.init(kind: kind, text: text)
            return
        }
        if Self.unwritten.contains(text.lowercased()) {
            throw DataFormatError(
                "'\(text)': cafconv cannot encode this codec (libsndfile has no \(text) encoder for CAF); use one of \(examples)"
            )
        }
        let (kind, order) = try Self.linearPCM(text, examples: examples)
        self.init(kind: kind, byteOrder: order, text: text)
    }

    /// Parses afconvert's linear PCM grammar, `[LE|BE]{I|F}bits` in any case.
    private static func linearPCM(_ text: String, examples: String) throws(DataFormatError) -> (Kind, ByteOrder?) {
        var rest = Substring(text.uppercased())
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
            throw DataFormatError("'\(text)' is not a data format; use one of \(examples)")
        }
        rest = rest.dropFirst()
        guard let bits = Int(rest) else {
            throw DataFormatError("'\(text)': expected a bit depth after '\(isFloat ? "F" : "I")'; use one of \(examples)")
        }
        let allowed = isFloat ? [32, 64] : [8, 16, 24, 32]
        guard allowed.contains(bits) else {
            let list = allowed.map(String.init).joined(separator: ", ")
            throw DataFormatError("'\(text)': \(isFloat ? "float" : "integer") samples can be \(list) bits, not \(bits)")
        }
        return (.linearPCM(bits: bits, isFloat: isFloat), order)
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

    /// The output's byte order: the one `-d` names, else `--endian`'s (little by default).
    public static func byteOrder(dataFormat: DataFormat?, endian: EndianChoice?, sourceOrder: ByteOrder) -> ByteOrder {
        dataFormat?.byteOrder ?? (endian ?? .little).resolve(source: sourceOrder)
    }

    /// The output encoding without `-d`: the source's sample format when CAF can hold it (linear
    /// PCM, FLAC's bit depth as linear PCM, µ-law, A-law, ALAC); unsigned 8-bit becomes signed
    /// 8-bit, and lossy encodings (MP3, Vorbis, Opus) and encodings CAF cannot hold (ADPCM, GSM
    /// 6.10, ...) become 16-bit. (With `-d`, the codec `-d` names decides.)
    public static func kept(_ source: Encoding) -> Encoding {
        switch source {
        case .pcmU8, .pcmS8: return .pcmS8
        case .pcm16, .pcm24, .pcm32, .float32, .float64, .ulaw, .alaw: return source
        // Apple Lossless stays Apple Lossless at its bit depth.
        case .alac16, .alac20, .alac24, .alac32: return source
        // Lossy (MP3, Vorbis, Opus) and codecs CAF cannot hold (ADPCM, GSM 6.10): 16-bit.
        default: return .pcm16
        }
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

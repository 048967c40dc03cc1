import BinaryIO

/// The kind of audio file, told from its first 12 bytes, never from its name.
public enum Container: String, Sendable, Codable, CaseIterable {
    /// RIFF/WAVE (little-endian sizes).
    case wav
    /// RIFX/WAVE (big-endian sizes and samples).
    case rifx
    /// RF64/WAVE or BW64/WAVE (64-bit sizes in a `ds64` chunk).
    case rf64
    /// AIFF (`FORM`/`AIFF`).
    case aiff
    /// AIFF-C (`FORM`/`AIFC`).
    case aifc
    /// Core Audio Format (`caff`).
    case caf

    /// Identifies the container from the first bytes of a file, or `nil` when it is none of these.
    public static func detect(_ prefix: [UInt8]) -> Container? {
        guard prefix.count >= 4 else { return nil }
        let first = FourCC(bytes: prefix[0], prefix[1], prefix[2], prefix[3])
        if first == FourCC("caff") { return .caf }
        guard prefix.count >= 12 else { return nil }
        let form = FourCC(bytes: prefix[8], prefix[9], prefix[10], prefix[11])
        switch (first, form) {
        case (FourCC("RIFF"), FourCC("WAVE")): return .wav
        case (FourCC("RIFX"), FourCC("WAVE")): return .rifx
        case (FourCC("RF64"), FourCC("WAVE")), (FourCC("BW64"), FourCC("WAVE")): return .rf64
        case (FourCC("FORM"), FourCC("AIFF")): return .aiff
        case (FourCC("FORM"), FourCC("AIFC")): return .aifc
        default: return nil
        }
    }

    /// Whether this is one of the WAVE family (RIFF, RIFX, RF64).
    public var isWAVE: Bool { self == .wav || self == .rifx || self == .rf64 }

    /// A short human name: "WAV", "AIFF-C", "CAF".
    public var displayName: String {
        switch self {
        case .wav: return "WAV"
        case .rifx: return "RIFX WAV"
        case .rf64: return "RF64 WAV"
        case .aiff: return "AIFF"
        case .aifc: return "AIFF-C"
        case .caf: return "CAF"
        }
    }
}

import BinaryIO
import CAFKit

/// `--dither`: what happens when samples lose precision on their way into integer PCM.
public enum Dither: String, Sendable, CaseIterable, Codable {
    /// Round to the nearest value (ties to even), as every conversion without `--dither` does.
    case none
    /// Add triangular (TPDF) noise of ±1 LSB of the output before rounding, from a fixed-seed
    /// generator: the same input and options give the same bytes.
    case tpdf
}

/// `--src-quality` / `-r`: libsoxr's recipe for sample-rate conversion.
public enum RateQuality: String, Sendable, CaseIterable, Codable {
    /// `SOXR_VHQ`: 28-bit precision, the default.
    case vhq
    /// `SOXR_HQ`: 20-bit precision.
    case hq
    /// `SOXR_MQ`: 16-bit precision, medium roll-off.
    case mq
    /// `SOXR_LQ`: 16-bit precision, larger roll-off.
    case lq
    /// `SOXR_QQ`: quick cubic interpolation.
    case qq

    /// The names and numbers `--src-quality` accepts, for help texts.
    public static let examples = "vhq hq mq lq qq, or afconvert's 0-127"

    /// Parses a name (`vhq`, `hq`, `mq`, `lq`, `qq`, any case) or afconvert's `-r` number, Core
    /// Audio's converter quality 0-127: 127 (`Max`) is `vhq`, 96-126 (`High`) `hq`, 64-95
    /// (`Medium`) `mq`, 32-63 (`Low`) `lq`, 0-31 (`Min`) `qq`.
    public init(parsing text: String) throws(DataFormatError) {
        if let named = RateQuality(rawValue: text.lowercased()) {
            self = named
            return
        }
        guard let number = Int(text), (0...127).contains(number) else {
            throw DataFormatError("'\(text)' is not a sample-rate converter quality; use \(Self.examples)")
        }
        switch number {
        case 127: self = .vhq
        case 96...: self = .hq
        case 64...: self = .mq
        case 32...: self = .lq
        default: self = .qq
        }
    }
}

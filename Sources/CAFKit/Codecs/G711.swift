import BinaryIO

/// ITU-T G.711 companding: µ-law and A-law, the 8-bit codes CAF stores as `ulaw` and `alaw`.
///
/// Levels are given on the 16-bit scale (full scale 32768), where G.711's reconstruction
/// values are integers: µ-law holds 0 (twice: +0 is 0xFF, -0 is 0x7F) and ±8 ... ±32124,
/// A-law ±8 ... ±32256 (no zero). Each law has 128 levels per sign, numbered by magnitude
/// (level 0 is the smallest).
///
/// Encoding picks **the nearest level of the same sign** as the exact input value, with ties
/// (a value exactly halfway between two levels) going to the level of larger magnitude. Zero and
/// NaN count as positive. Inputs are never rounded to 16 bits first: a 24-bit, 32-bit or float
/// sample is placed between two levels by its exact value, and anything beyond the largest level
/// becomes that level. Within a segment this is G.711's own decision rule (its decision values
/// are the midpoints of the levels); at the seven boundaries between segments, where the step
/// doubles, G.711's table puts the decision value half a step below the midpoint (µ-law 124
/// between 120 and 132), and the midpoint is used instead, so no sample is coded to a level
/// farther than another one of its sign.
public enum G711Law: String, Sendable, CaseIterable, CustomStringConvertible {
    /// µ-law (North America, Japan): `ulaw`, WAVE format 7.
    case muLaw = "ulaw"
    /// A-law (Europe): `alaw`, WAVE format 6.
    case aLaw = "alaw"

    /// The law of a CAF format ID (`ulaw`, `alaw`), or `nil`.
    public init?(formatID: FourCC) {
        switch formatID {
        case .ulaw: self = .muLaw
        case .alaw: self = .aLaw
        default: return nil
        }
    }

    /// The CAF format ID.
    public var formatID: FourCC { self == .muLaw ? .ulaw : .alaw }

    /// "µ-law" or "A-law".
    public var description: String { self == .muLaw ? "µ-law" : "A-law" }

    /// Number of levels per sign.
    public static let levelsPerSign = 128

    // MARK: Codes and levels

    /// The linear value of a code on the 16-bit scale (the G.711 formula, not a copied table).
    public func decode(_ code: UInt8) -> Int16 {
        Self.tables[self == .muLaw ? 0 : 1].decoded[Int(code)]
    }

    /// Decodes every code of `codes`.
    public func decode(_ codes: ArraySlice<UInt8>) -> [Int16] {
        let table = Self.tables[self == .muLaw ? 0 : 1].decoded
        return codes.map { table[Int($0)] }
    }

    /// Whether a code stands for a negative level (µ-law's -0, 0x7F, is negative).
    public func isNegative(_ code: UInt8) -> Bool {
        switch self {
        case .muLaw: return code & 0x80 == 0
        case .aLaw: return (code ^ 0x55) & 0x80 == 0
        }
    }

    /// The position of a code's level among the levels of its sign, 0 (smallest) ... 127.
    public func levelIndex(_ code: UInt8) -> Int {
        switch self {
        case .muLaw: return 0x7F - Int(code & 0x7F)
        case .aLaw: return Int((code ^ 0x55) & 0x7F)
        }
    }

    /// The code of level `index` (0 ... 127) of the given sign.
    public func code(levelIndex index: Int, negative: Bool) -> UInt8 {
        let index = UInt8(clamping: min(max(index, 0), 127))
        switch self {
        case .muLaw: return (negative ? 0x7F : 0xFF) - index
        case .aLaw: return (negative ? index : 0x80 | index) ^ 0x55
        }
    }

    /// The magnitude of level `index` (0 ... 127) on the 16-bit scale.
    public func levelMagnitude(_ index: Int) -> Int {
        Int(decode(code(levelIndex: index, negative: false)))
    }

    // MARK: Encoding

    /// The code of a 16-bit sample.
    @inline(__always) public func encode(_ sample: Int16) -> UInt8 {
        code(magnitude: Int(sample.magnitude), negative: sample < 0)
    }

    /// The code of a left-justified 32-bit sample: an N-bit integer `s` shifted left by 32 - N
    /// (as libsndfile reads any integer format), so full scale is -2^31. The 16 bits below the
    /// 16-bit scale take part in the choice, exactly.
    @inline(__always) public func encode(leftJustified sample: Int32) -> UInt8 {
        code(magnitude: Int(sample.magnitude >> 16), negative: sample < 0)
    }

    /// The code of an N-bit signed integer sample (N = 1 ... 32), full scale -2^(N-1).
    public func encode(_ sample: Int32, bits: Int) -> UInt8 {
        let shift = Int32(32 - min(max(bits, 1), 32))
        return encode(leftJustified: sample << shift)
    }

    /// The code of a float sample, full scale ±1.0 (as for integer to float conversions: 1.0 is
    /// 32768 on the 16-bit scale). Values beyond ±1 become the largest level of their sign;
    /// NaN codes as 0.
    @inline(__always) public func encode(float sample: Double) -> UInt8 {
        if sample.isNaN { return code(magnitude: 0, negative: false) }
        let scaled = (sample * 32768).magnitude  // exact: a power of two
        return code(magnitude: scaled >= 32768 ? 32768 : Int(scaled), negative: sample < 0)
    }

    /// Encodes a block of left-justified integers into `codes`.
    public func encode(leftJustified samples: UnsafeBufferPointer<Int32>, into codes: UnsafeMutableBufferPointer<UInt8>) {
        let table = Self.tables[self == .muLaw ? 0 : 1]
        for index in 0..<min(samples.count, codes.count) {
            let sample = samples[index]
            let level = Int(table.levelOfMagnitude[Int(sample.magnitude >> 16)])
            codes[index] = table.codeOfLevel[sample < 0 ? level : 128 + level]
        }
    }

    /// Encodes a block of floats (full scale ±1.0) into `codes`.
    public func encode(floats samples: UnsafeBufferPointer<Double>, into codes: UnsafeMutableBufferPointer<UInt8>) {
        for index in 0..<min(samples.count, codes.count) { codes[index] = encode(float: samples[index]) }
    }

    /// The code of the nearest level of the given sign to a magnitude whose integer part (on the
    /// 16-bit scale) is `magnitude`: every decision threshold is an integer, so the fraction
    /// never changes the choice except on the threshold itself, which goes up.
    @inline(__always) func code(magnitude: Int, negative: Bool) -> UInt8 {
        let table = Self.tables[self == .muLaw ? 0 : 1]
        let level = Int(table.levelOfMagnitude[min(max(magnitude, 0), 32768)])
        return table.codeOfLevel[negative ? level : 128 + level]
    }

    // MARK: The rule, checked from the levels

    /// Whether `code` is what the encoding rule gives for `value` (on the 16-bit scale, exact:
    /// an N-bit integer `s` is `s * 2^(16-N)`, a float `x` is `x * 32768`): same sign, and no
    /// level of that sign nearer (a tie must have gone to the larger magnitude).
    ///
    /// This is worked out from the two neighbouring levels, not from the encoder's tables, so it
    /// checks them.
    public func follows(_ code: UInt8, for value: Double) -> Bool {
        let value = value.isNaN ? 0 : value
        guard isNegative(code) == (value < 0) else { return false }
        let magnitude2 = 2 * value.magnitude  // exact; compared with sums of two levels
        let index = levelIndex(code)
        let level = levelMagnitude(index)
        if index > 0, Double(level + levelMagnitude(index - 1)) > magnitude2 { return false }
        if index < 127, Double(level + levelMagnitude(index + 1)) <= magnitude2 { return false }
        return true
    }

    // MARK: Tables

    private struct Tables: Sendable {
        /// Code -> 16-bit value.
        var decoded: [Int16]
        /// Floor of a magnitude (0 ... 32768) -> level index.
        var levelOfMagnitude: [UInt8]
        /// Level index (negative levels 0 ... 127, then positive 128 ... 255) -> code.
        var codeOfLevel: [UInt8]
    }

    private static let tables: [Tables] = [makeTables(.muLaw), makeTables(.aLaw)]

    private static func makeTables(_ law: G711Law) -> Tables {
        let decoded = (0...255).map { formula(law, UInt8($0)) }
        func codeOf(_ index: Int, negative: Bool) -> UInt8 {
            switch law {
            case .muLaw: return (negative ? 0x7F : 0xFF) - UInt8(index)
            case .aLaw: return (negative ? UInt8(index) : 0x80 | UInt8(index)) ^ 0x55
            }
        }
        let magnitudes = (0..<128).map { Int(decoded[Int(codeOf($0, negative: false))]) }
        var levelOfMagnitude = [UInt8](repeating: 0, count: 32769)
        var level = 0
        for magnitude in 0...32768 {
            // Threshold between level k-1 and k: their midpoint (an integer for both laws).
            while level < 127, 2 * magnitude >= magnitudes[level] + magnitudes[level + 1] { level += 1 }
            levelOfMagnitude[magnitude] = UInt8(level)
        }
        let codeOfLevel = (0..<128).map { codeOf($0, negative: true) } + (0..<128).map { codeOf($0, negative: false) }
        return Tables(decoded: decoded, levelOfMagnitude: levelOfMagnitude, codeOfLevel: codeOfLevel)
    }

    /// G.711's reconstruction value, scaled to 16 bits. µ-law (codes stored inverted): segment
    /// e, step m: ((2m + 33) << e) - 33 in 14-bit units. A-law (codes stored XOR 0x55):
    /// segment 0: 2m + 1, segment e > 0: (2m + 33) << (e - 1), in 13-bit units.
    private static func formula(_ law: G711Law, _ code: UInt8) -> Int16 {
        switch law {
        case .muLaw:
            let inverted = ~code
            let segment = Int(inverted >> 4 & 0x07)
            let step = Int(inverted & 0x0F)
            let magnitude = (((2 * step + 33) << segment) - 33) * 4
            return Int16(inverted & 0x80 != 0 ? -magnitude : magnitude)
        case .aLaw:
            let plain = code ^ 0x55
            let segment = Int(plain >> 4 & 0x07)
            let step = Int(plain & 0x0F)
            let magnitude = (segment == 0 ? 2 * step + 1 : (2 * step + 33) << (segment - 1)) * 8
            return Int16(plain & 0x80 != 0 ? magnitude : -magnitude)
        }
    }
}

import CAFKit

/// The G.711 rule worked out the slow, obvious way, to check the encoder's tables against: the
/// levels of each sign sorted by magnitude (from decoding all 256 codes), then the nearest one.
public enum G711Referee {
    private static let levels: [[(code: UInt8, magnitude: Double)]] = {
        var lists: [[(code: UInt8, magnitude: Double)]] = []
        for law in G711Law.allCases {
            for negative in [false, true] {
                var list: [(code: UInt8, magnitude: Double)] = []
                for code in 0...255 where law.isNegative(UInt8(code)) == negative {
                    list.append((UInt8(code), Double(law.decode(UInt8(code))).magnitude))
                }
                list.sort { $0.magnitude < $1.magnitude }
                lists.append(list)
            }
        }
        return lists
    }()

    /// The code of the nearest level of the same sign to `value` (on the 16-bit scale: an N-bit
    /// integer `s` is `s * 2^(16-N)`, a float `x` is `x * 32768`). A tie goes to the larger
    /// magnitude; zero and NaN are positive.
    public static func code(_ law: G711Law, _ value: Double) -> UInt8 {
        let value = value.isNaN ? 0 : value
        let negative = value < 0
        let list = levels[(law == .muLaw ? 0 : 2) + (negative ? 1 : 0)]
        let magnitude = value.magnitude
        // First level at or above the magnitude.
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].magnitude < magnitude { low = middle + 1 } else { high = middle }
        }
        if low == list.count { return list[list.count - 1].code }
        if low == 0 { return list[0].code }
        let above = list[low]
        let below = list[low - 1]
        // µ-law's two zeros: only one has the sign asked for, and it is in this list.
        return above.magnitude - magnitude <= magnitude - below.magnitude ? above.code : below.code
    }
}

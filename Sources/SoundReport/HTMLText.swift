import SystemLayer

/// Text as it goes into the report's HTML, and numbers as it writes them: the same value gives
/// the same characters on every machine.
public enum HTMLText {
    /// `text` safe inside an element and inside a quoted attribute: `& < > " '` become
    /// references; control characters and bidirectional overrides (which could make a name read
    /// as another) become visible `\xHH` / `\u{HHHH}`.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                let value = scalar.value
                if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) {
                    out += "\\x" + hex(value, digits: 2)
                } else if (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x200E
                    || value == 0x200F || value == 0xFEFF
                {
                    out += "\\u{" + hex(value, digits: 4) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// `value` with exactly `decimals` digits after the point (`-0.5`, `12.00`), rounded half
    /// away from zero; `nil` for values that are not finite or too large to be a count.
    public static func fixed(_ value: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        let scaled = (value * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled.isFinite, abs(scaled) < 1e15, let whole = Int64(exactly: scaled) else { return value > 0 ? "inf" : "-inf" }
        let negative = whole < 0
        let digits = String(whole.magnitude)
        var text: String
        if decimals <= 0 {
            text = digits
        } else {
            let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
            text = String(padded.dropLast(decimals)) + "." + String(padded.suffix(decimals))
        }
        if negative { text = "-" + text }
        return text
    }

    /// A level in dB of full scale (`20 log10`), or `nil` for silence.
    public static func decibels(_ level: Double) -> Double? {
        guard level > 0, level.isFinite else { return nil }
        return 20 * log10(level)
    }

    /// `12.3 kB`, `4.56 MB`, `999 B` (powers of 1000).
    public static func bytes(_ count: UInt64) -> String {
        let value = Double(count)
        if count < 1000 { return "\(count) B" }
        if value < 1e6 { return fixed(value / 1e3, 1) + " kB" }
        if value < 1e9 { return fixed(value / 1e6, 2) + " MB" }
        return fixed(value / 1e9, 2) + " GB"
    }

    /// Appends `value` as ``fixed(_:_:)`` writes it (finite values of at most 15 digits; others
    /// as `0`) to `bytes`, without making a string: the waveforms' thousands of numbers.
    public static func appendFixed(_ value: Double, _ decimals: Int, to bytes: inout [UInt8]) {
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        let scaled = (value * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled.isFinite, abs(scaled) < 1e15, let whole = Int64(exactly: scaled) else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if whole < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = whole.magnitude
        // Digits, last first, at least decimals + 1 of them.
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(truncatingIfNeeded: magnitude % 10) + UInt8(ascii: "0")
                magnitude /= 10
                count += 1
            } while magnitude > 0 && count < buffer.count
            while count <= decimals && count < buffer.count {
                buffer[count] = UInt8(ascii: "0")
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) {
                if index == decimals - 1 && decimals > 0 { bytes.append(UInt8(ascii: ".")) }
                bytes.append(buffer[index])
            }
        }
    }
}

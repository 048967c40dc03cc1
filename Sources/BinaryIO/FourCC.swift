/// A four-character code such as `caff`, `desc` or `RIFF`, stored as its big-endian `UInt32`.
public struct FourCC: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The four bytes as one big-endian integer (`"desc"` is `0x6465_7363`).
    public var rawValue: UInt32

    /// Wraps a raw big-endian code.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Builds a code from exactly four ASCII characters; shorter strings are padded with spaces.
    public init(_ text: StaticString) {
        var value: UInt32 = 0
        var count = 0
        text.withUTF8Buffer { buffer in
            for byte in buffer.prefix(4) {
                value = value << 8 | UInt32(byte)
                count += 1
            }
        }
        while count < 4 {
            value = value << 8 | 0x20
            count += 1
        }
        self.rawValue = value
    }

    /// Builds a code from four bytes in file order.
    public init(bytes b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        rawValue = UInt32(b0) << 24 | UInt32(b1) << 16 | UInt32(b2) << 8 | UInt32(b3)
    }

    /// Parses a code from a string of one to four ASCII characters (padded with spaces).
    public init?(string: String) {
        let bytes = Array(string.utf8)
        guard (1...4).contains(bytes.count), bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 { value = value << 8 | UInt32(index < bytes.count ? bytes[index] : 0x20) }
        rawValue = value
    }

    /// The four bytes in file order.
    public var bytes: [UInt8] {
        [
            UInt8(truncatingIfNeeded: rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
            UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue),
        ]
    }

    /// The code as text; bytes outside printable ASCII are written as `\xNN`.
    public var description: String {
        var text = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + hex(byte)
            }
        }
        return text
    }

    /// The code with trailing spaces removed (`"fmt "` becomes `"fmt"`), as used in JSON keys.
    public var trimmed: String {
        var text = description
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }
}

func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

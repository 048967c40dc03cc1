/// File names on Linux are bytes, not text: `bad\xff.wav` is a legal name. A Swift `String` made
/// with `String(decoding:as:)` would replace the byte with U+FFFD and the file could never be
/// opened again. `PathBytes` keeps such names losslessly inside a `String`, the way Python's
/// "surrogateescape" does: each byte that is not part of valid UTF-8 becomes one scalar of a
/// reserved range at the top of plane 16 (U+10FF80 to U+10FFFF), and turns back into that byte
/// whenever the path is handed to the system. To keep the mapping one-to-one, valid UTF-8 that
/// spells a scalar of the reserved range is escaped byte by byte too. Names that are valid UTF-8
/// (every other name) are the same `String` as before.
import SystemLayer

public enum PathBytes {
    /// The first scalar of the reserved range; byte `b` (0x80...0xFF) is `base + (b - 0x80)`.
    static let base: UInt32 = 0x10_FF80

    /// The path spelled by `bytes` (a name from `readdir`, a path from `realpath` or `argv`).
    public static func decode(_ bytes: some Collection<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return text }
        return Array(bytes).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    private static func decode(buffer bytes: UnsafeBufferPointer<UInt8>) -> String {
        // Fast path: valid UTF-8 that cannot hold a reserved scalar (no 0xF4 lead byte).
        var plain = true
        for byte in bytes where byte >= 0xF4 {
            plain = false
            break
        }
        if plain, let text = String(validating: bytes, as: UTF8.self) { return text }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = scalar(in: bytes, at: index), scalar.value < base {
                scalars.append(scalar)
                index += length
            } else {
                scalars.append(escaped(bytes[index]))
                index += 1
            }
        }
        return String(scalars)
    }

    /// Whether the UTF-8 of `text` holds `byte` (memchr on native strings: this is asked for
    /// every path handed to the system).
    static func holds(_ text: String, _ byte: UInt8) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ buffer -> Bool in
            guard let start = buffer.baseAddress else { return false }
            return memchr(start, Int32(byte), buffer.count) != nil
        }) {
            return found
        }
        return text.utf8.contains(byte)
    }

    /// The bytes of `path` as the system sees them.
    public static func encode(_ path: String) -> [UInt8] {
        guard holds(path, 0xF4) else { return Array(path.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(path.utf8.count)
        for scalar in path.unicodeScalars {
            if scalar.value >= base {
                bytes.append(UInt8(scalar.value - base + 0x80))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// Calls `body` with the NUL-terminated bytes of `path`, or returns `nil` without calling it
    /// when the path holds a NUL byte (which the system would silently cut the path at).
    public static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows
        -> Result?
    {
        if !holds(path, 0xF4) {
            guard !holds(path, 0) else { return nil }
            return try path.withCString(body)
        }
        let bytes = encode(path)
        guard !bytes.contains(0) else { return nil }
        let chars = bytes.map { CChar(bitPattern: $0) } + [0]
        return try chars.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return nil }
            return try body(start)
        }
    }

    /// `text` for people: each byte that was not valid UTF-8, and each C0 control character or
    /// DEL (a newline, tab, carriage return or escape in a name would break a log line or drive
    /// the terminal), is shown as `\xHH`; each C1 control (U+0080 to U+009F: U+009B is a CSI a
    /// terminal may obey, U+0085 a line break), line or paragraph separator (U+2028, U+2029) and
    /// bidirectional override (U+202A to U+202E, U+2066 to U+2069, which reorder what follows) as
    /// `\u{HHHH}`; everything else is unchanged. The one escaping function for everything a file
    /// or its name puts in front of a terminal or a log: file names, metadata text, chunk text,
    /// rules-file content. For messages and reports, never for opening files or for JSON.
    public static func display(_ text: String) -> String {
        // Fast path: ASCII with no control character (every byte of a non-ASCII scalar is >= 0x80).
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.value >= base || scalar.value < 0x20 || scalar.value == 0x7F {
                let byte = scalar.value >= base ? UInt8(scalar.value - base + 0x80) : UInt8(scalar.value)
                let digits = String(byte, radix: 16, uppercase: true)
                result += "\\x" + (digits.count < 2 ? "0" : "") + digits
            } else if needsEscape(scalar) {
                let digits = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u{" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether ``display(_:)`` escapes `scalar`.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: scalar.value >= base
        }
    }

    /// Whether `path` holds a byte that is not valid UTF-8.
    public static func hasRawBytes(_ path: String) -> Bool {
        holds(path, 0xF4) && path.unicodeScalars.contains { $0.value >= base }
    }

    private static func escaped(_ byte: UInt8) -> Unicode.Scalar {
        // base + 0x7F is at most U+10FFFF, a valid scalar.
        Unicode.Scalar(base + UInt32(byte) - 0x80) ?? "?"
    }

    /// The scalar of the valid UTF-8 sequence at `index`, with its length, or `nil` (including
    /// overlong forms, surrogates and values past U+10FFFF).
    private static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (length, minimum, value) = (2, 0x80, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, minimum, value) = (3, 0x800, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (length, minimum, value) = (4, 0x1_0000, UInt32(lead & 0x07))
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}

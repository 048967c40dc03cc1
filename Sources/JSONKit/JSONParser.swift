/// A JSON reader for small documents from outside (Bazel's worker requests): RFC 8259 text to a
/// ``JSONValue``, with a depth limit, and a splitter that finds whole documents in a stream.
/// Standard library only.
public enum JSONParser {
    /// Why a document was refused, with the byte offset.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
        public init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    /// The deepest nesting read (arrays and objects).
    public static let maximumDepth = 64

    /// Parses one JSON value that is the whole of `bytes` (whitespace around it allowed).
    public static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.index == bytes.count else { throw Failure(offset: reader.index, reason: "text after the value") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func fail(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

        mutating func expect(_ literal: String, _ value: JSONValue) throws(Failure) -> JSONValue {
            let utf8 = Array(literal.utf8)
            guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
                throw fail("unexpected character")
            }
            index += utf8.count
            return value
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard index < bytes.count else { throw fail("unexpected end") }
            switch bytes[index] {
            case 0x7B: return try object(depth: depth + 1)
            case 0x5B: return try array(depth: depth + 1)
            case 0x22: return .string(try string())
            case 0x74: return try expect("true", .bool(true))
            case 0x66: return try expect("false", .bool(false))
            case 0x6E: return try expect("null", .null)
            case 0x2D, 0x30...0x39: return try number()
            default: throw fail("unexpected character")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw fail("nested too deep") }
            index += 1
            var members: [String: JSONValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == 0x7D {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == 0x22 else { throw fail("expected a member name") }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == 0x3A else { throw fail("expected ':'") }
                index += 1
                skipSpace()
                members[key] = try value(depth: depth)
                skipSpace()
                guard index < bytes.count else { throw fail("unexpected end") }
                if bytes[index] == 0x2C {
                    index += 1
                    continue
                }
                guard bytes[index] == 0x7D else { throw fail("expected ',' or '}'") }
                index += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= JSONParser.maximumDepth else { throw fail("nested too deep") }
            index += 1
            var elements: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == 0x5D {
                index += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                guard index < bytes.count else { throw fail("unexpected end") }
                if bytes[index] == 0x2C {
                    index += 1
                    continue
                }
                guard bytes[index] == 0x5D else { throw fail("expected ',' or ']'") }
                index += 1
                return .array(elements)
            }
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = index
            if bytes[index] == 0x2D { index += 1 }
            func digits(_ reader: inout Reader) -> Int {
                let from = reader.index
                while reader.index < reader.bytes.count, (0x30...0x39).contains(reader.bytes[reader.index]) { reader.index += 1 }
                return reader.index - from
            }
            let integerStart = index
            let count = digits(&self)
            guard count > 0 else { throw fail("expected a digit") }
            if count > 1 && bytes[integerStart] == 0x30 { throw fail("leading zero") }
            if index < bytes.count, bytes[index] == 0x2E {
                index += 1
                guard digits(&self) > 0 else { throw fail("expected a digit") }
            }
            if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
                index += 1
                if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
                guard digits(&self) > 0 else { throw fail("expected a digit") }
            }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.count - index >= 4 else { throw fail("short \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw fail("bad \\u escape")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// A string's text; invalid UTF-8 and lone surrogates are refused.
        mutating func string() throws(Failure) -> String {
            index += 1
            var utf8: [UInt8] = []
            while true {
                guard index < bytes.count else { throw fail("unterminated string") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case 0x22:
                    guard let text = String(validating: utf8, as: UTF8.self) else {
                        throw fail("string is not UTF-8")
                    }
                    return text
                case 0x5C:
                    guard index < bytes.count else { throw fail("unterminated string") }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case 0x22, 0x5C, 0x2F: utf8.append(escape)
                    case 0x62: utf8.append(0x08)
                    case 0x66: utf8.append(0x0C)
                    case 0x6E: utf8.append(0x0A)
                    case 0x72: utf8.append(0x0D)
                    case 0x74: utf8.append(0x09)
                    case 0x75:
                        var scalar = try hex4()
                        if (0xD800...0xDBFF).contains(scalar) {
                            guard bytes.count - index >= 6, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
                                throw fail("lone surrogate")
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            throw fail("lone surrogate")
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw fail("bad \\u escape") }
                        utf8.append(contentsOf: String(Character(unicode)).utf8)
                    default: throw fail("bad escape")
                    }
                case 0x00...0x1F: throw fail("control character in string")
                default: utf8.append(byte)
                }
            }
        }
    }
}

/// Cuts a stream of JSON documents (objects or arrays, one after another, with or without
/// whitespace or newlines between them, as Bazel 4.2's workers receive them) into whole
/// documents, without parsing them: it follows strings and nesting only. Holds at most
/// `limit` bytes of an unfinished document.
public struct JSONStreamSplitter {
    public let limit: Int
    private var pending: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// Whether the stream broke its rules (a document too long or not starting with `{` or `[`):
    /// nothing more is returned.
    public private(set) var failure: String?

    public init(limit: Int = 4 << 20) { self.limit = limit }

    /// Feeds the next bytes; returns the documents they complete, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
        var documents: [[UInt8]] = []
        guard failure == nil else { return [] }
        for byte in bytes {
            if depth == 0 && pending.isEmpty {
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D: continue
                case 0x7B, 0x5B: break
                default:
                    failure = "a document must start with '{' or '['"
                    return documents
                }
            }
            pending.append(byte)
            if pending.count > limit {
                failure = "a document is longer than \(limit) bytes"
                pending = []
                return documents
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == 0x5C {
                    escaped = true
                } else if byte == 0x22 {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x22: inString = true
            case 0x7B, 0x5B: depth += 1
            case 0x7D, 0x5D:
                depth -= 1
                if depth == 0 {
                    documents.append(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            default: break
            }
        }
        return documents
    }

    /// Whether part of a document is held (the stream ended inside one).
    public var isInsideDocument: Bool { !pending.isEmpty }
}

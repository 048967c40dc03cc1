/// An error raised while reading bytes: where the read started, what it needed and what was there.
public enum ByteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A read of `needed` bytes at absolute `offset` found only `available`.
    case truncated(offset: UInt64, needed: UInt64, available: UInt64)
    /// The operating system refused a read; `errno` and its text.
    case io(path: String, errno: Int32, message: String)

    public var description: String {
        switch self {
        case .truncated(let offset, let needed, let available):
            return "truncated at byte \(offset): needed \(needed) bytes, found \(available)"
        case .io(let path, _, let message):
            return "\(path): \(message)"
        }
    }
}

/// The byte order of a multi-byte read; every read names one at its call site.
public enum ByteOrder: String, Sendable, Codable, CaseIterable {
    case little
    case big

    /// The byte order of the machine running this code.
    public static var host: ByteOrder { 1.littleEndian == 1 ? .little : .big }
}

/// A forward-only reader over a byte array that knows the absolute file offset of its first byte.
///
/// Every read checks the remaining length first and throws ``ByteError/truncated(offset:needed:available:)``
/// instead of trapping, so parsers can run on hostile input.
public struct ByteCursor: Sendable {
    /// The bytes being read.
    public let bytes: [UInt8]
    /// The index of the next byte to read.
    public private(set) var index: Int
    /// The absolute file offset of `bytes[0]`.
    public let baseOffset: UInt64

    /// Reads `bytes`, whose first byte sits at `baseOffset` in its file.
    public init(_ bytes: [UInt8], baseOffset: UInt64 = 0) {
        self.bytes = bytes
        self.index = 0
        self.baseOffset = baseOffset
    }

    /// The number of unread bytes.
    public var remaining: Int { bytes.count - index }
    /// Whether every byte has been read.
    public var isAtEnd: Bool { index >= bytes.count }
    /// The absolute file offset of the next byte.
    public var offset: UInt64 { baseOffset + UInt64(index) }

    private mutating func take(_ count: Int) throws(ByteError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw .truncated(offset: offset, needed: UInt64(max(count, 0)), available: UInt64(remaining))
        }
        defer { index += count }
        return bytes[index..<index + count]
    }

    /// Skips `count` bytes.
    public mutating func skip(_ count: Int) throws(ByteError) { _ = try take(count) }

    /// Reads `count` raw bytes.
    public mutating func readBytes(_ count: Int) throws(ByteError) -> [UInt8] { Array(try take(count)) }

    /// Reads all unread bytes.
    public mutating func readRest() -> [UInt8] {
        defer { index = bytes.count }
        return Array(bytes[index...])
    }

    /// Reads one byte.
    public mutating func readUInt8() throws(ByteError) -> UInt8 {
        let slice = try take(1)
        return slice[slice.startIndex]
    }

    /// Reads an unsigned integer of `T`'s width in the given byte order.
    public mutating func read<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ order: ByteOrder) throws(ByteError) -> T {
        let slice = try take(MemoryLayout<T>.size)
        var value: T = 0
        switch order {
        case .big:
            for byte in slice { value = value << 8 | T(byte) }
        case .little:
            for byte in slice.reversed() { value = value << 8 | T(byte) }
        }
        return value
    }

    /// Reads a `UInt16` in the given order.
    public mutating func readUInt16(_ order: ByteOrder) throws(ByteError) -> UInt16 { try read(UInt16.self, order) }
    /// Reads a `UInt32` in the given order.
    public mutating func readUInt32(_ order: ByteOrder) throws(ByteError) -> UInt32 { try read(UInt32.self, order) }
    /// Reads a `UInt64` in the given order.
    public mutating func readUInt64(_ order: ByteOrder) throws(ByteError) -> UInt64 { try read(UInt64.self, order) }
    /// Reads an `Int16` in the given order.
    public mutating func readInt16(_ order: ByteOrder) throws(ByteError) -> Int16 { Int16(bitPattern: try readUInt16(order)) }
    /// Reads an `Int32` in the given order.
    public mutating func readInt32(_ order: ByteOrder) throws(ByteError) -> Int32 { Int32(bitPattern: try readUInt32(order)) }
    /// Reads an `Int64` in the given order.
    public mutating func readInt64(_ order: ByteOrder) throws(ByteError) -> Int64 { Int64(bitPattern: try readUInt64(order)) }
    /// Reads an IEEE 754 binary32 in the given order.
    public mutating func readFloat32(_ order: ByteOrder) throws(ByteError) -> Float { Float(bitPattern: try readUInt32(order)) }
    /// Reads an IEEE 754 binary64 in the given order.
    public mutating func readFloat64(_ order: ByteOrder) throws(ByteError) -> Double { Double(bitPattern: try readUInt64(order)) }
    /// Reads a four-character code.
    public mutating func readFourCC() throws(ByteError) -> FourCC { FourCC(rawValue: try readUInt32(.big)) }
}

/// Appends integers, floats and codes to a byte array in an explicit byte order.
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Appends raw bytes.
    public mutating func write<S: Sequence>(bytes more: S) where S.Element == UInt8 { bytes.append(contentsOf: more) }
    /// Appends one byte.
    public mutating func write(_ value: UInt8) { bytes.append(value) }

    /// Appends an integer of `T`'s width in the given order.
    public mutating func write<T: FixedWidthInteger>(_ value: T, _ order: ByteOrder) {
        let size = MemoryLayout<T>.size
        let raw = UInt64(truncatingIfNeeded: value)
        for position in 0..<size {
            let shift = order == .big ? (size - 1 - position) * 8 : position * 8
            bytes.append(UInt8(truncatingIfNeeded: raw >> UInt64(shift)))
        }
    }

    /// Appends a binary32 in the given order.
    public mutating func write(_ value: Float, _ order: ByteOrder) { write(value.bitPattern, order) }
    /// Appends a binary64 in the given order.
    public mutating func write(_ value: Double, _ order: ByteOrder) { write(value.bitPattern, order) }
    /// Appends a four-character code.
    public mutating func write(_ code: FourCC) { write(code.rawValue, .big) }
}

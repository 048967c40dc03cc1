import BinaryIO

/// One key/value pair of an `info` or `edct` chunk.
public struct InfoEntry: Equatable, Hashable, Sendable {
    /// The key, such as `artist` or `approximate duration in seconds`.
    public var key: String
    /// The value.
    public var value: String

    /// Creates a pair.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// The `info` chunk: a count, then NUL-terminated UTF-8 key/value string pairs.
public struct InfoStrings: Equatable, Hashable, Sendable {
    /// The number of pairs the chunk declares.
    public var declaredCount: UInt32
    /// Every complete pair present, whatever the declared count.
    public var entries: [InfoEntry]
    /// Bytes after the last complete pair (an unterminated string, padding), kept for a rewrite.
    public var trailing: [UInt8]

    /// Creates strings whose declared count is the number of entries.
    public init(_ entries: [InfoEntry], trailing: [UInt8] = []) {
        self.declaredCount = UInt32(truncatingIfNeeded: entries.count)
        self.entries = entries
        self.trailing = trailing
    }

    /// Reads a body of type `chunk` (`info` or `edct`): pairs are read while complete ones remain.
    public init(parsing cursor: inout ByteCursor, chunk: FourCC = .info) throws {
        declaredCount = try cursor.readUInt32(.big)
        entries = []
        while !cursor.isAtEnd {
            var attempt = cursor
            guard let key = try? attempt.readNULTerminated(), let value = try? attempt.readNULTerminated() else { break }
            guard let keyText = String(validating: key, as: UTF8.self),
                let valueText = String(validating: value, as: UTF8.self)
            else {
                throw CAFError(.malformedChunk(chunk), at: cursor.offset, "'\(chunk)' holds a string that is not valid UTF-8")
            }
            entries.append(InfoEntry(key: keyText, value: valueText))
            cursor = attempt
        }
        trailing = cursor.readRest()
    }

    /// Appends the body.
    public func write(to writer: inout ByteWriter) {
        writer.write(declaredCount, .big)
        for entry in entries {
            writer.writeCString(entry.key)
            writer.writeCString(entry.value)
        }
        writer.write(bytes: trailing)
    }

    /// The value of the first entry with `key`.
    public subscript(key: String) -> String? { entries.first { $0.key == key }?.value }
}

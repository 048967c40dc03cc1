import BinaryIO

/// The text format of `.cafconv-manifest`, apart from any file system: the header, one escaped,
/// tab-separated record per line, the `end` line's FNV-1a 64-bit hash, and a streaming parser
/// that never holds more than one line (plus the records it keeps). Standard library and
/// ``PathBytes`` only, so `Fuzz/ManifestFuzz` compiles it on its own.
///
/// The manifest is a cache that anyone with write access to the output folder can edit, so a
/// record is only kept when its output path is a plain relative path inside the folder: no NUL
/// byte, no leading `/`, no empty, `.` or `..` component. Anything else is a damaged record and
/// is dropped (its output, if any, is then converted again; it is never deleted or written).
package enum ManifestFormat {
    package static let header = "cafconv-manifest 3"
    /// The header of version 2: the same lines, each record without the four content fields
    /// (read, and written back as version 3).
    package static let headerVersion2 = "cafconv-manifest 2"
    /// The header of the previous version, which had no `end` line.
    package static let headerVersion1 = "cafconv-manifest 1"
    /// The longest line the parser keeps: ten fields of escaped paths (two `PATH_MAX` paths, each
    /// at most doubled by escaping) fit well inside. A longer line is a damaged record.
    package static let maximumLineLength = 64 * 1024
    /// The largest manifest read: about a million records of 256 bytes. Past it, the rest is
    /// not read and the manifest counts as damaged (everything is converted again, nothing is
    /// pruned), so a huge or endless file costs bounded memory and time.
    package static let maximumFileLength: UInt64 = 512 * 1024 * 1024
    /// The most records read (about 2 million): a file of tiny hostile records within the size
    /// budget would otherwise cost gigabytes. Past it, as past the size budget.
    package static let maximumRecords = 1 << 21

    /// What a manifest file's first and last lines say about it.
    package enum Seal: Equatable {
        /// Not a manifest.
        case foreign
        /// A version 1 manifest: no `end` line (those were always replaced whole).
        case version1
        /// Version 2 or 3 whose `end` line matches.
        case sealed
        /// Version 2 whose `end` line is missing or does not match, or too long to read.
        case damaged
    }

    /// One line of the manifest, as text fields. A record has ten fields (every version) or,
    /// since version 3, fourteen: the ten, then the source's change time (`st_ctime` in
    /// nanoseconds) and content digest, the output's change time and content digest. A
    /// ten-field record (written before version 3, never refreshed since) has no change times
    /// (`nil`) and no digests (`""`); so has a fourteen-field one whose digests could not be made.
    package struct Record: Equatable {
        package var output: String
        package var source: String
        package var sourceSize: UInt64
        package var sourceModified: Int64
        package var fingerprint: String
        package var outputSize: UInt64
        package var outputModified: Int64
        package var formatIn: String
        package var formatOut: String
        package var frames: Int64
        package var sourceChanged: Int64? = nil
        /// `""` or a digest's text (``isDigest(_:)``).
        package var sourceDigest: String = ""
        package var outputChanged: Int64? = nil
        package var outputDigest: String = ""
    }

    /// The longest digest field read: `xxh3:` and 32 digits, with room for a longer algorithm's.
    package static let maximumDigestLength = 80

    /// Whether a digest field is empty or plain: at most ``maximumDigestLength`` bytes of
    /// lowercase letters, digits, `-` and `:` (it is then written back byte for byte).
    package static func isDigest(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
        guard field.count <= maximumDigestLength else { return false }
        for byte in field {
            switch byte {
            case 0x30...0x3A, 0x61...0x7A, 0x2D: continue
            default: return false
            }
        }
        return true
    }

    /// Whether `key` may name an output: a relative path that stays inside the manifest's folder.
    package static func isSafeOutputPath(_ key: String) -> Bool {
        PathBytes.encode(key).withUnsafeBufferPointer { isSafeOutputPath(bytes: $0) }
    }

    /// ``isSafeOutputPath(_:)`` on the path's bytes: not empty, no NUL byte, no leading or
    /// trailing `/`, and no empty, `.` or `..` component. One pass, no copy.
    package static func isSafeOutputPath(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last, first != 0x2F, last != 0x2F else { return false }
        // The length of the current component, and whether it holds only dots so far.
        var length = 0
        var dots = true
        for byte in bytes {
            switch byte {
            case 0: return false
            case 0x2F:
                if length == 0 || (dots && length <= 2) { return false }
                length = 0
                dots = true
            default:
                length += 1
                if byte != 0x2E { dots = false }
            }
        }
        return !(dots && length <= 2)
    }

    /// FNV-1a 64-bit, fed in pieces.
    package struct Hash {
        package static let prime: UInt64 = 0x0000_0100_0000_01B3
        package var value: UInt64 = 0xcbf2_9ce4_8422_2325
        package mutating func add(_ bytes: some Sequence<UInt8>) {
            let added: Void? = bytes.withContiguousStorageIfAvailable { add(buffer: $0) }
            if added == nil {
                for byte in bytes { value = (value ^ UInt64(byte)) &* Self.prime }
            }
        }
        package mutating func add(buffer bytes: UnsafeBufferPointer<UInt8>) {
            var hash = value
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* Self.prime }
            value = hash
        }
        package var endLine: String {
            let digits = String(value, radix: 16)
            return "end " + String(repeating: "0", count: 16 - digits.count) + digits + "\n"
        }
    }

    /// The `end` line (with its newline) that closes `body`.
    package static func seal(_ body: some Collection<UInt8>) -> String {
        var hash = Hash()
        hash.add(body)
        return hash.endLine
    }

    /// Reads a manifest from pieces of bytes in order. The header is judged as soon as its line
    /// is complete (a foreign file is not read further: ``isDone``); every later line is hashed
    /// and parsed on its own, so memory holds one line at a time plus the records kept.
    ///
    /// A line that lies whole inside a piece is parsed where it lies (fields found and numbers
    /// read in the piece's bytes, a `String` made only for each path and, through a small cache,
    /// for the fingerprint and formats); only a line cut by the end of a piece is copied.
    package struct Parser {
        /// What the file is, once known (`nil` before the header line is complete).
        package private(set) var seal: Seal?
        /// Records read and not yet taken, in file order (a later duplicate wins when they are
        /// stored). A streaming reader takes them after each piece (``takeRecords()``), so they
        /// never pile up beside the caller's own copy.
        package private(set) var records: [Record] = []
        /// Lines that were not records (wrong field count, bad numbers, unsafe output paths).
        package private(set) var damagedLines = 0
        /// The header line so far, or the start of a line that the last piece ended inside.
        private var line: [UInt8] = []
        private var lineTooLong = false
        /// The hash of every byte fed so far.
        private var hash = Hash()
        /// The hash of every byte before the current line, and before the last complete line.
        private var lineStart = Hash()
        private var hashBeforeLast = Hash()
        /// The last complete line when it may be the `end` line (`[]` for any other line, which
        /// can never match it; `nil` before any line after the header).
        private var lastLine: [UInt8]? = nil
        private var consumed: UInt64 = 0
        /// Recent texts of the fingerprint and format fields with their bytes: one `String` is
        /// shared by every record that spells it the same way.
        private var interned: [(bytes: [UInt8], text: String)] = []
        private let limit: UInt64
        private let recordLimit: Int
        private var recordCount = 0
        /// The UTF-8 of the keys to decode, when the other records are kept as bytes (`nil`:
        /// every record is decoded).
        private let wanted: [[UInt8]]?
        /// Lines kept as bytes (with their newlines) and not yet taken: records that are not
        /// wanted and that the encoder would write byte for byte the same (``isPlain(_:)``).
        package private(set) var raw: [UInt8] = []
        /// How many records were kept as bytes.
        package private(set) var rawCount = 0
        /// Whether every record's key came after the previous one's (in ``PathKey`` order), as
        /// the encoder writes them: only then can kept lines be written back between decoded
        /// ones without a duplicate. Tracked only when keeping lines as bytes.
        package private(set) var ordered = true
        private var previousKey: [UInt8] = []
        private var hasPreviousKey = false

        /// A parser that reads at most `limit` bytes and `recordLimit` records (past either, the
        /// file counts as damaged). With `wanted`, only records whose key's UTF-8 is one of those
        /// (or that are not plain) are decoded; the others are kept as bytes (``raw``).
        package init(
            limit: UInt64 = ManifestFormat.maximumFileLength, recordLimit: Int = ManifestFormat.maximumRecords,
            wanted: [[UInt8]]? = nil
        ) {
            self.limit = limit
            self.recordLimit = recordLimit
            self.wanted = wanted
        }

        /// Whether the size or record budget is spent.
        private var isOverBudget: Bool { consumed > limit || recordCount > recordLimit }

        /// Whether nothing more need be fed (a foreign header, or a budget is spent).
        package var isDone: Bool { seal == .foreign || isOverBudget }

        /// Hands over the records read so far.
        package mutating func takeRecords() -> [Record] {
            defer { records.removeAll(keepingCapacity: true) }
            return records
        }

        /// Hands over the lines kept as bytes so far (moved, not copied).
        package mutating func takeRaw() -> [UInt8] {
            var taken: [UInt8] = []
            swap(&taken, &raw)
            return taken
        }

        /// Feeds the next bytes of the file.
        package mutating func feed(_ bytes: some Collection<UInt8>) {
            let fed: Void? = bytes.withContiguousStorageIfAvailable { feed(buffer: $0) }
            if fed == nil { Array(bytes).withUnsafeBufferPointer { feed(buffer: $0) } }
        }

        private mutating func feed(buffer bytes: UnsafeBufferPointer<UInt8>) {
            var index = 0
            // The header line, byte by byte: it is short, and a longer first line stops the
            // reading at once (not a manifest).
            while seal == nil, index < bytes.count, !isDone {
                let byte = bytes[index]
                index += 1
                consumed += 1
                hash.value = (hash.value ^ UInt64(byte)) &* Hash.prime
                if byte == 0x0A {
                    if line.elementsEqual(headerVersion1.utf8) {
                        seal = .version1
                    } else if line.elementsEqual(header.utf8) || line.elementsEqual(headerVersion2.utf8) {
                        seal = .sealed
                    } else {
                        seal = .foreign
                    }
                    line.removeAll(keepingCapacity: true)
                    lineStart = hash
                } else if line.count >= header.utf8.count {
                    seal = .foreign
                } else {
                    line.append(byte)
                }
            }
            guard index < bytes.count, !isDone else { return }
            // Within the size budget: past `limit` bytes (one more, then `isOverBudget`), no
            // byte is looked at.
            let room = limit - consumed
            let end = UInt64(bytes.count - index) <= room ? bytes.count : index + Int(room) + 1
            consumed += UInt64(end - index)
            guard let base = bytes.baseAddress else { return }
            while index < end {
                let newline = find(0x0A, in: base, from: index, to: end)
                // Every byte is hashed as it comes, also those of a line too long to keep.
                hash.add(buffer: UnsafeBufferPointer(start: base + index, count: min(newline + 1, end) - index))
                if newline == end {
                    keep(UnsafeBufferPointer(rebasing: bytes[index..<end]))
                    return
                }
                if line.isEmpty && !lineTooLong {
                    endLine(UnsafeBufferPointer(rebasing: bytes[index..<newline]), tooLong: newline - index > maximumLineLength)
                } else {
                    keep(UnsafeBufferPointer(rebasing: bytes[index..<newline]))
                    var held: [UInt8] = []
                    swap(&held, &line)
                    let tooLong = lineTooLong
                    held.withUnsafeBufferPointer { endLine($0, tooLong: tooLong) }
                    held.removeAll(keepingCapacity: true)
                    swap(&held, &line)
                }
                index = newline + 1
                if isDone { return }
            }
        }

        /// Holds the start of a line that goes on in the next piece (up to the line budget).
        private mutating func keep(_ bytes: UnsafeBufferPointer<UInt8>) {
            if lineTooLong { return }
            if line.count + bytes.count > maximumLineLength {
                lineTooLong = true
                line.removeAll(keepingCapacity: false)
            } else {
                line.append(contentsOf: bytes)
            }
        }

        /// A complete line after the header (without its newline, which is hashed already).
        private mutating func endLine(_ line: UnsafeBufferPointer<UInt8>, tooLong: Bool) {
            hashBeforeLast = lineStart
            lineStart = hash
            lineTooLong = false
            let endPrefix: [UInt8] = [0x65, 0x6E, 0x64, 0x20]  // "end "
            let isEndLine = line.starts(with: endPrefix)
            lastLine = !tooLong && isEndLine ? Array(line) : []
            if line.isEmpty { return }
            if tooLong {
                damagedLines += 1
                return
            }
            if wanted != nil, isPlain(line) {
                recordCount += 1
                if recordCount > recordLimit { return }
                raw.append(contentsOf: line)
                raw.append(0x0A)
                rawCount += 1
            } else if let record = parse(line) {
                recordCount += 1
                if recordCount > recordLimit { return }
                if wanted != nil {
                    var key = record.output
                    key.withUTF8 { follow($0) }
                }
                records.append(record)
            } else if !isEndLine {
                damagedLines += 1
            }
        }

        /// Ends the file: the seal and the records to keep.
        package mutating func finish() -> (seal: Seal, records: [Record]) {
            // A file cut short before its header line ended (empty, as a power cut can leave a
            // new file) is a damaged manifest, not a foreign file: it holds nothing to protect.
            if seal == nil,
                header.utf8.starts(with: line) || headerVersion2.utf8.starts(with: line)
                    || headerVersion1.utf8.starts(with: line)
            {
                return (.damaged, [])
            }
            guard let seal, seal != .foreign else { return (.foreign, []) }
            if isOverBudget { return (.damaged, records) }
            if seal == .version1 { return (.version1, records) }
            // Sealed only when the file ends with a newline and its last line is the hash of all before it.
            guard line.isEmpty, !lineTooLong, let lastLine,
                lastLine.elementsEqual(hashBeforeLast.endLine.utf8.dropLast())
            else { return (.damaged, records) }
            return (.sealed, records)
        }

        /// Notes a record's key (its ``PathKey`` UTF-8): the file stays ``ordered`` while each
        /// comes strictly after the one before.
        private mutating func follow(_ key: UnsafeBufferPointer<UInt8>) {
            if hasPreviousKey, ordered {
                ordered = previousKey.withUnsafeBufferPointer { compare($0, key) } < 0
            }
            previousKey.removeAll(keepingCapacity: true)
            previousKey.append(contentsOf: key)
            hasPreviousKey = true
        }

        /// Whether a line may be kept as bytes: a valid record that is not wanted and that the
        /// encoder writes exactly so (an ASCII output path, no `\\` or carriage return anywhere,
        /// numbers without sign, `+` or leading zero except a single `-` for negatives). Its key
        /// is then followed for order. Any other line is decoded.
        private mutating func isPlain(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
            var fields = Fields(line: line)
            guard let output = fields.next(), let source = fields.next(), isCanonical(fields.next(), signed: false),
                isCanonical(fields.next(), signed: true), isVerbatim(fields.next()),
                isCanonical(fields.next(), signed: false), isCanonical(fields.next(), signed: true),
                isVerbatim(fields.next()), isVerbatim(fields.next()), isCanonical(fields.next(), signed: true),
                isVerbatim(source)
            else { return false }
            if !fields.isAtEnd {
                guard isCanonical(fields.next(), signed: true), let sourceDigest = fields.next(), isDigest(sourceDigest),
                    isCanonical(fields.next(), signed: true), let outputDigest = fields.next(), isDigest(outputDigest),
                    fields.isAtEnd
                else { return false }
            }
            // ASCII only (its bytes are its PathKey's UTF-8), no `\\` or carriage return.
            if holdsSpecial(output, highBit: true) { return false }
            guard isSafeOutputPath(bytes: output), !source.contains(0) else { return false }
            if let wanted, wanted.contains(where: { $0.withUnsafeBufferPointer { same($0, output) } }) { return false }
            follow(output)
            return true
        }

        /// Whether a text field holds no `\\` and no carriage return (its escaping writes it back
        /// the same; a path's bytes that are not UTF-8 come back the same through ``PathBytes``).
        private func isVerbatim(_ field: UnsafeBufferPointer<UInt8>?) -> Bool {
            guard let field else { return false }
            return !holdsSpecial(field, highBit: false)
        }

        /// Whether a number field is as `String(_:)` writes it.
        private func isCanonical(_ field: UnsafeBufferPointer<UInt8>?, signed: Bool) -> Bool {
            guard let field, let first = field.first else { return false }
            var digits = field
            if first == 0x2D {
                guard signed else { return false }
                digits = UnsafeBufferPointer(rebasing: field.dropFirst())
                // "-0" is written "0".
                guard digits.first != 0x30 else { return false }
            }
            guard let lead = digits.first, !(lead == 0x30 && digits.count > 1) else { return false }
            for byte in digits where byte &- 0x30 >= 10 { return false }
            // Fewer than 19 digits always fit, and so do 19 below 9e18 (an `Int64` holds 9.2e18).
            if digits.count < 19 || (digits.count == 19 && lead < 0x39) { return true }
            return signed ? (integer(field) as Int64?) != nil : (integer(field) as UInt64?) != nil
        }

        /// The shared text of a fingerprint or format field.
        private mutating func intern(_ field: UnsafeBufferPointer<UInt8>) -> String {
            for known in interned where known.bytes.withUnsafeBufferPointer({ same($0, field) }) { return known.text }
            let text = unescape(field)
            if interned.count < 16 { interned.append((Array(field), text)) }
            return text
        }

        /// The record a line spells, or `nil` when it is damaged: not ten or fourteen
        /// tab-separated fields, a number that does not parse, a digest that is not plain
        /// (``isDigest(_:)``), an unsafe output path, or a NUL byte in the source.
        private mutating func parse(_ line: UnsafeBufferPointer<UInt8>) -> Record? {
            var fields = Fields(line: line)
            guard let output = fields.next(), let source = fields.next(),
                let sourceSize: UInt64 = fields.next().flatMap(integer),
                let sourceTime: Int64 = fields.next().flatMap(integer), let fingerprint = fields.next(),
                let outputSize: UInt64 = fields.next().flatMap(integer),
                let outputTime: Int64 = fields.next().flatMap(integer), let formatIn = fields.next(),
                let formatOut = fields.next(), let frames: Int64 = fields.next().flatMap(integer)
            else { return nil }
            var content: (Int64, String, Int64, String)? = nil
            if !fields.isAtEnd {
                guard let sourceChanged: Int64 = fields.next().flatMap(integer), let sourceDigest = fields.next(),
                    isDigest(sourceDigest), let outputChanged: Int64 = fields.next().flatMap(integer),
                    let outputDigest = fields.next(), isDigest(outputDigest), fields.isAtEnd
                else { return nil }
                content = (sourceChanged, text(sourceDigest), outputChanged, text(outputDigest))
            }
            // Never trust a record that points outside the manifest's folder (--prune deletes files).
            guard let outputText = unescaped(output, { isSafeOutputPath(bytes: $0) ? text($0) : nil }),
                let sourceText = unescaped(source, { $0.contains(0) ? nil : text($0) })
            else { return nil }
            return Record(
                output: outputText, source: sourceText, sourceSize: sourceSize, sourceModified: sourceTime,
                fingerprint: intern(fingerprint), outputSize: outputSize, outputModified: outputTime,
                formatIn: intern(formatIn), formatOut: intern(formatOut), frames: frames, sourceChanged: content?.0,
                sourceDigest: content?.1 ?? "", outputChanged: content?.2, outputDigest: content?.3 ?? "")
        }
    }

    /// The tab-separated fields of a line, in order.
    package struct Fields {
        package let line: UnsafeBufferPointer<UInt8>
        /// Where the next field starts (past the end: no field left).
        package var position = 0

        /// The next field, or `nil` when there is none.
        package mutating func next() -> UnsafeBufferPointer<UInt8>? {
            guard position <= line.count, let base = line.baseAddress else { return nil }
            let end = find(0x09, in: base, from: position, to: line.count)
            defer { position = end + 1 }
            return UnsafeBufferPointer(start: base + position, count: end - position)
        }

        /// Whether every field was taken.
        package var isAtEnd: Bool { position > line.count }
    }

    /// The path spelled by `bytes` (``PathBytes/decode(_:)``; ASCII, the common case, without its
    /// generic scan).
    package static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        for byte in bytes where byte >= 0x80 { return PathBytes.decode(bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The byte order of two byte ranges (negative, zero or positive), as `memcmp` then length.
    package static func compare(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(lhs.count, rhs.count)
        var index = 0
        if let left = lhs.baseAddress, let right = rhs.baseAddress {
            // Eight bytes at a time while they are equal.
            while index + 8 <= common
                && UnsafeRawPointer(left).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    == UnsafeRawPointer(right).loadUnaligned(fromByteOffset: index, as: UInt64.self)
            {
                index += 8
            }
        }
        while index < common {
            if lhs[index] != rhs[index] { return lhs[index] < rhs[index] ? -1 : 1 }
            index += 1
        }
        return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
    }

    /// Whether two byte ranges are equal, compared eight bytes at a time.
    package static func same(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        var offset = 0
        while offset + 8 <= lhs.count {
            let a = UnsafeRawPointer(left).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let b = UnsafeRawPointer(right).loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if a != b { return false }
            offset += 8
        }
        while offset < lhs.count {
            if left[offset] != right[offset] { return false }
            offset += 1
        }
        return true
    }

    /// The index of the first `byte` in `base[from..<to]`, or `to`: eight bytes at a time (a
    /// word's zero bytes after XOR with the pattern; the lowest flag is exact).
    package static func find(_ byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let pattern = ones &* UInt64(byte)
        var index = from
        while index + 8 <= to {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) ^ pattern
            let found = (word &- ones) & ~word & (ones &<< 7)
            if found != 0 { return index + found.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < to && base[index] != byte { index += 1 }
        return index
    }

    /// Whether `field` holds a `\\` or a carriage return (or, with `highBit`, a byte past
    /// ASCII): eight bytes at a time.
    package static func holdsSpecial(_ field: UnsafeBufferPointer<UInt8>, highBit: Bool) -> Bool {
        guard let base = field.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high = ones &<< 7
        var index = 0
        while index + 8 <= field.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let backslash = word ^ (ones &* 0x5C)
            let carriage = word ^ (ones &* 0x0D)
            let flags =
                ((backslash &- ones) & ~backslash & high) | ((carriage &- ones) & ~carriage & high)
                | (highBit ? word & high : 0)
            if flags != 0 { return true }
            index += 8
        }
        while index < field.count {
            let byte = base[index]
            if byte == 0x5C || byte == 0x0D || (highBit && byte >= 0x80) { return true }
            index += 1
        }
        return false
    }

    /// A decimal integer as Swift's `init?(_: String)` reads it (an optional `+` or `-`, then at
    /// least one digit, nothing else, no overflow), from bytes without making a `String`.
    package static func integer<Value: FixedWidthInteger>(_ field: UnsafeBufferPointer<UInt8>) -> Value? {
        // Up to 19 plain digits cannot overflow `UInt64`: no check per digit, one at the end.
        if field.count <= 19, !field.isEmpty {
            var value: UInt64 = 0
            for byte in field {
                let digit = byte &- 0x30
                if digit >= 10 { return slowInteger(field) }
                value = value &* 10 &+ UInt64(digit)
            }
            return Value(exactly: value)
        }
        return slowInteger(field)
    }

    private static func slowInteger<Value: FixedWidthInteger>(_ field: UnsafeBufferPointer<UInt8>) -> Value? {
        guard let first = field.first else { return nil }
        let negative = first == 0x2D
        var index = first == 0x2B || negative ? 1 : 0
        guard index < field.count else { return nil }
        var value: Value = 0
        while index < field.count {
            let digit = field[index] &- 0x30
            guard digit < 10 else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) =
                negative
                ? shifted.subtractingReportingOverflow(Value(digit)) : shifted.addingReportingOverflow(Value(digit))
            guard !overflow && !carry else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// Calls `body` with the bytes an escaped field stands for (the field itself when it holds
    /// no `\`).
    package static func unescaped<Result>(
        _ field: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        guard field.contains(0x5C) else { return body(field) }
        return unescapedBytes(field).withUnsafeBufferPointer(body)
    }

    /// Parses a whole manifest held in memory (tests, the fuzzer).
    package static func parse(_ bytes: some Collection<UInt8>) -> (seal: Seal, records: [Record]) {
        var parser = Parser()
        parser.feed(bytes)
        return parser.finish()
    }

    /// One record's line, with its newline.
    package static func line(_ record: Record) -> [UInt8] {
        var bytes: [UInt8] = []
        append(record, to: &bytes)
        return bytes
    }

    /// Appends one record's line, with its newline, to `bytes`.
    package static func append(_ record: Record, to bytes: inout [UInt8]) {
        appendEscaped(record.output, to: &bytes)
        bytes.append(0x09)
        appendEscaped(record.source, to: &bytes)
        bytes.append(0x09)
        appendDecimal(record.sourceSize, negative: false, to: &bytes)
        bytes.append(0x09)
        appendDecimal(record.sourceModified.magnitude, negative: record.sourceModified < 0, to: &bytes)
        bytes.append(0x09)
        appendEscaped(record.fingerprint, to: &bytes)
        bytes.append(0x09)
        appendDecimal(record.outputSize, negative: false, to: &bytes)
        bytes.append(0x09)
        appendDecimal(record.outputModified.magnitude, negative: record.outputModified < 0, to: &bytes)
        bytes.append(0x09)
        appendEscaped(record.formatIn, to: &bytes)
        bytes.append(0x09)
        appendEscaped(record.formatOut, to: &bytes)
        bytes.append(0x09)
        appendDecimal(record.frames.magnitude, negative: record.frames < 0, to: &bytes)
        // A record with no change times is written as it was read, in ten fields.
        if let sourceChanged = record.sourceChanged, let outputChanged = record.outputChanged {
            bytes.append(0x09)
            appendDecimal(sourceChanged.magnitude, negative: sourceChanged < 0, to: &bytes)
            bytes.append(0x09)
            appendDigest(record.sourceDigest, to: &bytes)
            bytes.append(0x09)
            appendDecimal(outputChanged.magnitude, negative: outputChanged < 0, to: &bytes)
            bytes.append(0x09)
            appendDigest(record.outputDigest, to: &bytes)
        }
        bytes.append(0x0A)
    }

    /// Appends a digest's text, or nothing when it is not plain (``isDigest(_:)``: it then reads
    /// back as "no digest", never as a damaged line).
    package static func appendDigest(_ digest: String, to bytes: inout [UInt8]) {
        let utf8 = Array(digest.utf8)
        if utf8.withUnsafeBufferPointer(isDigest) { bytes.append(contentsOf: utf8) }
    }

    /// Appends a number's decimal digits, as `String(_:)` spells it.
    package static func appendDecimal(_ magnitude: UInt64, negative: Bool, to bytes: inout [UInt8]) {
        if negative { bytes.append(0x2D) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = magnitude
            repeat {
                count += 1
                buffer[24 - count] = UInt8(truncatingIfNeeded: rest % 10) + 0x30
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }

    /// Appends ``escape(_:)`` of `text` (its UTF-8 as it is, when that needs no escaping and
    /// holds no byte kept by ``PathBytes``).
    package static func appendEscaped(_ text: String, to bytes: inout [UInt8]) {
        let plain: Bool? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            for byte in utf8 where byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0xF4 {
                return false
            }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain != true { bytes.append(contentsOf: escape(text)) }
    }

    /// The bytes of `text` (raw bytes of non-UTF-8 names kept), with `\`, tab, newline and
    /// carriage return escaped.
    package static func escape(_ text: String) -> [UInt8] {
        let raw = PathBytes.encode(text)
        guard raw.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return raw }
        var result: [UInt8] = []
        result.reserveCapacity(raw.count + 8)
        for byte in raw {
            switch byte {
            case 0x5C: result += [0x5C, 0x5C]
            case 0x09: result += [0x5C, 0x74]
            case 0x0A: result += [0x5C, 0x6E]
            case 0x0D: result += [0x5C, 0x72]
            default: result.append(byte)
            }
        }
        return result
    }

    /// The text of an escaped field (bytes that are not UTF-8 kept, see ``PathBytes``).
    package static func unescape(_ field: some Collection<UInt8>) -> String {
        guard field.contains(0x5C) else { return PathBytes.decode(field) }
        return PathBytes.decode(unescapedBytes(field))
    }

    /// The bytes an escaped field stands for: `\t`, `\n`, `\r` are tab, newline and carriage
    /// return, and `\` before any other byte is dropped.
    package static func unescapedBytes(_ field: some Collection<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(field.count)
        var escaping = false
        for byte in field {
            if escaping {
                switch byte {
                case 0x74: result.append(0x09)
                case 0x6E: result.append(0x0A)
                case 0x72: result.append(0x0D)
                default: result.append(byte)
                }
                escaping = false
            } else if byte == 0x5C {
                escaping = true
            } else {
                result.append(byte)
            }
        }
        return result
    }
}

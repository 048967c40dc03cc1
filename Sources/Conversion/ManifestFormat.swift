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
enum ManifestFormat {
    static let header = "cafconv-manifest 2"
    /// The header of the previous version, which had no `end` line.
    static let headerVersion1 = "cafconv-manifest 1"
    /// The longest line the parser keeps: ten fields of escaped paths (two `PATH_MAX` paths, each
    /// at most doubled by escaping) fit well inside. A longer line is a damaged record.
    static let maximumLineLength = 64 * 1024
    /// The largest manifest read: about a million records of 256 bytes. Past it, the rest is
    /// not read and the manifest counts as damaged (everything is converted again, nothing is
    /// pruned), so a huge or endless file costs bounded memory and time.
    static let maximumFileLength: UInt64 = 512 * 1024 * 1024
    /// The most records read (about 2 million): a file of tiny hostile records within the size
    /// budget would otherwise cost gigabytes. Past it, as past the size budget.
    static let maximumRecords = 1 << 21

    /// What a manifest file's first and last lines say about it.
    enum Seal: Equatable {
        /// Not a manifest.
        case foreign
        /// A version 1 manifest: no `end` line (those were always replaced whole).
        case version1
        /// Version 2 whose `end` line matches.
        case sealed
        /// Version 2 whose `end` line is missing or does not match, or too long to read.
        case damaged
    }

    /// One line of the manifest, as text fields.
    struct Record: Equatable {
        var output: String
        var source: String
        var sourceSize: UInt64
        var sourceModified: Int64
        var fingerprint: String
        var outputSize: UInt64
        var outputModified: Int64
        var formatIn: String
        var formatOut: String
        var frames: Int64
    }

    /// Whether `key` may name an output: a relative path that stays inside the manifest's folder.
    static func isSafeOutputPath(_ key: String) -> Bool {
        let bytes = PathBytes.encode(key)
        guard !bytes.isEmpty, !bytes.contains(0), bytes.first != 0x2F, bytes.last != 0x2F else { return false }
        for component in bytes.split(separator: 0x2F, omittingEmptySubsequences: false) {
            if component.isEmpty || component.elementsEqual([0x2E]) || component.elementsEqual([0x2E, 0x2E]) {
                return false
            }
        }
        return true
    }

    /// FNV-1a 64-bit, fed in pieces.
    struct Hash {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        }
        var endLine: String {
            let digits = String(value, radix: 16)
            return "end " + String(repeating: "0", count: 16 - digits.count) + digits + "\n"
        }
    }

    /// The `end` line (with its newline) that closes `body`.
    static func seal(_ body: some Collection<UInt8>) -> String {
        var hash = Hash()
        hash.add(body)
        return hash.endLine
    }

    /// Reads a manifest from pieces of bytes in order. The header is judged as soon as its line
    /// is complete (a foreign file is not read further: ``isDone``); every later line is hashed
    /// and parsed on its own, so memory holds one line at a time plus the records kept.
    struct Parser {
        /// What the file is, once known (`nil` before the header line is complete).
        private(set) var seal: Seal?
        /// Records read and not yet taken, in file order (a later duplicate wins when they are
        /// stored). A streaming reader takes them after each piece (``takeRecords()``), so they
        /// never pile up beside the caller's own copy.
        private(set) var records: [Record] = []
        /// Lines that were not records (wrong field count, bad numbers, unsafe output paths).
        private(set) var damagedLines = 0
        private var line: [UInt8] = []
        private var lineTooLong = false
        /// The hash of every byte fed so far.
        private var hash = Hash()
        /// The hash of every byte before the current line, and before the last complete line.
        private var lineStart = Hash()
        private var hashBeforeLast = Hash()
        private var lastLine: [UInt8]? = nil
        private var consumed: UInt64 = 0
        private var interned: [String: String] = [:]
        private let limit: UInt64
        private let recordLimit: Int
        private var recordCount = 0

        /// A parser that reads at most `limit` bytes and `recordLimit` records (past either, the
        /// file counts as damaged).
        init(limit: UInt64 = ManifestFormat.maximumFileLength, recordLimit: Int = ManifestFormat.maximumRecords) {
            self.limit = limit
            self.recordLimit = recordLimit
        }

        /// Whether the size or record budget is spent.
        private var isOverBudget: Bool { consumed > limit || recordCount > recordLimit }

        /// Whether nothing more need be fed (a foreign header, or a budget is spent).
        var isDone: Bool { seal == .foreign || isOverBudget }

        /// Hands over the records read so far.
        mutating func takeRecords() -> [Record] {
            defer { records.removeAll(keepingCapacity: true) }
            return records
        }

        /// Feeds the next bytes of the file.
        mutating func feed(_ bytes: some Collection<UInt8>) {
            let fed: Void? = bytes.withContiguousStorageIfAvailable { feed(buffer: $0) }
            if fed == nil { Array(bytes).withUnsafeBufferPointer { feed(buffer: $0) } }
        }

        private mutating func feed(buffer bytes: UnsafeBufferPointer<UInt8>) {
            for byte in bytes {
                if isDone { return }
                consumed += 1
                // Every byte is hashed as it comes, also those of a line too long to keep.
                hash.value = (hash.value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                if byte == 0x0A {
                    endLine()
                } else if seal == nil && line.count >= header.utf8.count {
                    // The header is short: a longer first line is not a manifest; stop at once.
                    seal = .foreign
                } else if line.count < ManifestFormat.maximumLineLength {
                    line.append(byte)
                } else {
                    lineTooLong = true
                }
            }
        }

        private mutating func endLine() {
            defer {
                line.removeAll(keepingCapacity: true)
                lineTooLong = false
                lineStart = hash
            }
            guard seal != nil else {
                if line.elementsEqual(headerVersion1.utf8) {
                    seal = .version1
                } else if line.elementsEqual(header.utf8) {
                    seal = .sealed
                } else {
                    seal = .foreign
                }
                return
            }
            hashBeforeLast = lineStart
            lastLine = lineTooLong ? [] : line
            if line.isEmpty { return }
            if lineTooLong {
                damagedLines += 1
                return
            }
            if let record = parse(line) {
                recordCount += 1
                if recordCount > recordLimit { return }
                records.append(record)
            } else if !line.starts(with: Array("end ".utf8)) {
                damagedLines += 1
            }
        }

        /// Ends the file: the seal and the records to keep.
        mutating func finish() -> (seal: Seal, records: [Record]) {
            // A file cut short before its header line ended (empty, as a power cut can leave a
            // new file) is a damaged manifest, not a foreign file: it holds nothing to protect.
            if seal == nil, header.utf8.starts(with: line) || headerVersion1.utf8.starts(with: line) {
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

        private mutating func intern(_ text: String) -> String {
            if let known = interned[text] { return known }
            if interned.count < 4096 { interned[text] = text }
            return text
        }

        private mutating func parse(_ line: [UInt8]) -> Record? {
            let fields = line.split(separator: 0x09, omittingEmptySubsequences: false)
            guard fields.count == 10,
                let sourceSize = UInt64(String(decoding: fields[2], as: UTF8.self)),
                let sourceTime = Int64(String(decoding: fields[3], as: UTF8.self)),
                let outputSize = UInt64(String(decoding: fields[5], as: UTF8.self)),
                let outputTime = Int64(String(decoding: fields[6], as: UTF8.self)),
                let frames = Int64(String(decoding: fields[9], as: UTF8.self))
            else { return nil }
            let output = unescape(fields[0])
            // Never trust a record that points outside the manifest's folder (--prune deletes files).
            guard isSafeOutputPath(output) else { return nil }
            let source = unescape(fields[1])
            guard !PathBytes.encode(source).contains(0) else { return nil }
            return Record(
                output: output, source: source, sourceSize: sourceSize, sourceModified: sourceTime,
                fingerprint: intern(unescape(fields[4])), outputSize: outputSize, outputModified: outputTime,
                formatIn: intern(unescape(fields[7])), formatOut: intern(unescape(fields[8])), frames: frames)
        }
    }

    /// Parses a whole manifest held in memory (tests, the fuzzer).
    static func parse(_ bytes: some Collection<UInt8>) -> (seal: Seal, records: [Record]) {
        var parser = Parser()
        parser.feed(bytes)
        return parser.finish()
    }

    /// One record's line, with its newline.
    static func line(_ record: Record) -> [UInt8] {
        var bytes: [UInt8] = []
        func field(_ text: [UInt8]) {
            if !bytes.isEmpty { bytes.append(0x09) }
            bytes.append(contentsOf: text)
        }
        field(escape(record.output))
        field(escape(record.source))
        field(Array(String(record.sourceSize).utf8))
        field(Array(String(record.sourceModified).utf8))
        field(escape(record.fingerprint))
        field(Array(String(record.outputSize).utf8))
        field(Array(String(record.outputModified).utf8))
        field(escape(record.formatIn))
        field(escape(record.formatOut))
        field(Array(String(record.frames).utf8))
        bytes.append(0x0A)
        return bytes
    }

    /// The bytes of `text` (raw bytes of non-UTF-8 names kept), with `\`, tab, newline and
    /// carriage return escaped.
    static func escape(_ text: String) -> [UInt8] {
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
    static func unescape(_ field: some Collection<UInt8>) -> String {
        guard field.contains(0x5C) else { return PathBytes.decode(field) }
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
        return PathBytes.decode(result)
    }
}

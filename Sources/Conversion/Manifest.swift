/// The state of incremental runs: what cafconv wrote into one output folder, from which source and
/// with which options. It lives in a text file named `.cafconv-manifest` in the output root (the
/// `-o` folder, the folder of a single output file, or the input folder when outputs are written
/// beside their inputs).
///
/// The first line is `cafconv-manifest 2`; then one line per output, fields separated by tabs:
/// output path relative to the manifest's folder, canonical source path, source size, source
/// modification time in nanoseconds, options fingerprint, output size, output modification time
/// in nanoseconds, input format, output format, frames. Tabs, newlines and backslashes inside
/// paths are escaped as `\t`, `\n` and `\\`. Lines are sorted by output path, so the file is the
/// same whatever `-j` is. The last line is `end` and the FNV-1a 64-bit hash of every byte before
/// it, in hexadecimal: the file is rewritten in place (see ``save()``), so a torn or damaged file
/// fails the hash: its records then never make an output up to date (see ``isDamaged``). Lines
/// that cannot be read are ignored: their outputs are converted again. Version 1 files (no `end`
/// line, always replaced whole) are still read.
struct Manifest: Equatable {
    /// The name of the manifest file in its folder.
    static let fileName = ".cafconv-manifest"
    static let header = "cafconv-manifest 2"
    /// The header of the previous version, which had no `end` line.
    static let headerVersion1 = "cafconv-manifest 1"

    /// What cafconv knows about one output it wrote.
    struct Entry: Equatable {
        var source: String
        var sourceStamp: FileSystem.Stamp
        var fingerprint: String
        var outputStamp: FileSystem.Stamp
        var formatIn: String
        var formatOut: String
        var frames: Int64
    }

    /// The folder the manifest lives in; entries are relative to it.
    var folder: String
    /// Entries by output path relative to `folder`.
    var entries: [String: Entry] = [:]
    /// What the file read by ``load(folder:)`` was, or `nil` when there was none (or a foreign one).
    var origin: Seal?

    /// The file failed its `end` line's check (a crash or a failed write in the middle of a
    /// rewrite, or an edit): its entries are kept only to find orphans and to be written back,
    /// never to call an output up to date, and --prune does not act on them.
    var isDamaged: Bool { origin == .damaged }

    var path: String { FileSystem.joined(folder, Self.fileName) }

    /// Reads the manifest of `folder`; a missing or foreign file gives an empty manifest.
    static func load(folder: String) -> Manifest {
        var manifest = Manifest(folder: folder)
        guard let file = FileSystem.readSmallFile(manifest.path) else { return manifest }
        let (seal, body) = check(file)
        guard seal != .foreign else { return manifest }
        manifest.origin = seal
        // Split bytes, not Characters: a name may start with a combining mark after a separator.
        for line in body.split(separator: 0x0A, omittingEmptySubsequences: true).dropFirst() {
            let fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            guard fields.count == 10,
                let sourceSize = UInt64(fields[2]), let sourceTime = Int64(fields[3]),
                let outputSize = UInt64(fields[5]), let outputTime = Int64(fields[6]),
                let frames = Int64(fields[9])
            else { continue }
            // Never trust a record that points outside the manifest's folder (--prune deletes files).
            let key = unescape(fields[0])
            guard !key.hasPrefix("/"), !key.split(separator: "/").contains("..") else { continue }
            manifest.entries[key] = Entry(
                source: unescape(fields[1]), sourceStamp: FileSystem.Stamp(size: sourceSize, modified: sourceTime),
                fingerprint: unescape(fields[4]), outputStamp: FileSystem.Stamp(size: outputSize, modified: outputTime),
                formatIn: unescape(fields[7]), formatOut: unescape(fields[8]), frames: frames)
        }
        return manifest
    }

    /// What a manifest file's first and last lines say about it.
    enum Seal: Equatable {
        /// Not a manifest.
        case foreign
        /// A version 1 manifest: no `end` line (those were always replaced whole).
        case version1
        /// Version 2 whose `end` line matches.
        case sealed
        /// Version 2 whose `end` line is missing or does not match.
        case damaged
    }

    /// Checks a manifest file's header and `end` line; `body` is the header and entry lines (the
    /// whole file when there is no matching `end` line).
    static func check(_ file: [UInt8]) -> (seal: Seal, body: ArraySlice<UInt8>) {
        guard let firstEnd = file.firstIndex(of: 0x0A) else { return (.foreign, file[...]) }
        let first = file[..<firstEnd]
        if first.elementsEqual(headerVersion1.utf8) { return (.version1, file[...]) }
        guard first.elementsEqual(header.utf8) else { return (.foreign, file[...]) }
        guard file.last == 0x0A, let lastStart = file.dropLast().lastIndex(of: 0x0A).map({ $0 + 1 }) else {
            return (.damaged, file[...])
        }
        let body = file[..<lastStart]
        return file[lastStart...].elementsEqual(seal(body).utf8) ? (.sealed, body) : (.damaged, file[...])
    }

    /// The `end` line (with its newline) that closes `body`.
    static func seal(_ body: some Collection<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return "end " + String(repeating: "0", count: 16 - digits.count) + digits + "\n"
    }

    /// The file's bytes: the header, one sorted line per entry and the `end` line.
    func encoded() -> [UInt8] {
        var text = Self.header + "\n"
        for key in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard let entry = entries[key] else { continue }
            let fields = [
                Self.escape(key), Self.escape(entry.source), String(entry.sourceStamp.size),
                String(entry.sourceStamp.modified), Self.escape(entry.fingerprint), String(entry.outputStamp.size),
                String(entry.outputStamp.modified), Self.escape(entry.formatIn), Self.escape(entry.formatOut),
                String(entry.frames),
            ]
            text += fields.joined(separator: "\t") + "\n"
        }
        let body = Array(text.utf8)
        return body + Array(Self.seal(body).utf8)
    }

    /// Writes the manifest. It is a cache (losing it costs a full re-run, never a wrong output), so
    /// it is rewritten in place, under `flock`, without `fsync`: replacing it by a new file would
    /// free the old one's blocks at every run (about 1.5 ms once they are on disk). A crash in the
    /// middle leaves a file whose `end` line does not match: its records then decide nothing
    /// (every output is converted again) but still name orphans. A version 1 or damaged file, one
    /// that is a symlink, has other hard links, cannot be opened for writing or is locked by
    /// another run is replaced by rename instead. An empty manifest removes the file.
    func save() throws(ConversionError) {
        if entries.isEmpty {
            if FileSystem.linkExists(path) { FileSystem.remove(path) }
            return
        }
        try FileSystem.makeDirectories(folder)
        let bytes = encoded()
        // A version 1 or damaged file is replaced whole: none of it should survive next to new bytes.
        let inPlace = origin != .version1 && origin != .damaged
        if inPlace, try FileSystem.overwrite(path, with: bytes) { return }
        try FileSystem.writeAtomically(path, bytes, temporarySuffix: ".cafconv-\(FileSystem.processID)-manifest.tmp")
    }

    /// The path of `output` relative to `folder`, or `nil` when it is not inside it.
    func relative(_ output: String) -> String? {
        if folder.isEmpty || folder == "." { return output.hasPrefix("/") ? nil : output }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard output.hasPrefix(prefix), output.count > prefix.count else { return nil }
        return String(output.dropFirst(prefix.count))
    }

    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
            case "\t": result.append(contentsOf: "\\t".unicodeScalars)
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            case "\r": result.append(contentsOf: "\\r".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    static func unescape(_ text: String) -> String {
        guard text.utf8.contains(0x5C) else { return text }
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                switch scalar {
                case "t": result.append("\t")
                case "n": result.append("\n")
                case "r": result.append("\r")
                default: result.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}

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
/// fails the hash and is ignored as a whole. Lines that cannot be read are ignored: their outputs
/// are converted again. Version 1 files (no `end` line, always replaced whole) are still read.
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

    var path: String { FileSystem.joined(folder, Self.fileName) }

    /// Reads the manifest of `folder`; a missing or foreign file gives an empty manifest.
    static func load(folder: String) -> Manifest {
        var manifest = Manifest(folder: folder)
        guard let file = FileSystem.readSmallFile(manifest.path), let body = unsealed(file) else { return manifest }
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

    /// The header and entry lines of a manifest file whose header is known and whose `end` line
    /// matches the bytes before it; `nil` for anything else.
    static func unsealed(_ file: [UInt8]) -> ArraySlice<UInt8>? {
        guard let firstEnd = file.firstIndex(of: 0x0A) else { return nil }
        let first = file[..<firstEnd]
        if first.elementsEqual(headerVersion1.utf8) { return file[...] }
        guard first.elementsEqual(header.utf8), file.last == 0x0A else { return nil }
        let content = file.dropLast()
        guard let lastStart = content.lastIndex(of: 0x0A).map({ $0 + 1 }) else { return nil }
        let body = file[..<lastStart]
        guard content[lastStart...].elementsEqual(seal(body).utf8.dropLast()) else { return nil }
        return body
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
        for key in entries.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
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
    /// middle leaves a file whose `end` line does not match, which is ignored. A manifest that is a
    /// symlink or has other hard links is replaced by rename instead. An empty manifest removes
    /// the file.
    func save() throws(ConversionError) {
        if entries.isEmpty {
            if FileSystem.linkExists(path) { FileSystem.remove(path) }
            return
        }
        try FileSystem.makeDirectories(folder)
        let bytes = encoded()
        if try FileSystem.overwrite(path, with: bytes) { return }
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

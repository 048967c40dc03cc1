import BinaryIO
import ContentHash
import ConversionModel
import OutputFiles
import SystemLayer

/// The state of incremental runs: what cafconv wrote into one output folder, from which source and
/// with which options. It lives in a text file named `.cafconv-manifest` in the output root (the
/// `-o` folder, the folder of a single output file, or the input folder when outputs are written
/// beside their inputs). The format is in ``ManifestFormat``.
///
/// The manifest is a cache, and anyone who can write the output folder can write it: a record
/// can make an output be converted again, never make cafconv delete or write outside the folder
/// (see ``ManifestFormat/isSafeOutputPath(_:)`` and ``FileSystem/removeRecorded(root:relative:expected:)``).
/// It is read as a stream after its header line is checked, so a foreign or huge file costs
/// bounded memory, and a file that is not a manifest is never overwritten. Several runs may
/// share an output folder: each save merges, under a lock on the folder, what the others saved.
package struct Manifest {
    /// The name of the manifest file in its folder.
    package static let fileName = ".cafconv-manifest"
    package static let header = ManifestFormat.header
    package typealias Seal = ManifestFormat.Seal

    /// What cafconv knows about one output it wrote.
    package struct Entry: Equatable {
        package var source: String
        package var sourceStamp: FileSystem.Stamp
        package var fingerprint: String
        package var outputStamp: FileSystem.Stamp
        package var formatIn: String
        package var formatOut: String
        package var frames: Int64
        /// What the source and the output held when recorded: their change times and digests
        /// (``Content``), or `nil` in a record from before version 3 that was never refreshed.
        package var sourceContent: Content?
        package var outputContent: Content?

        package init(
            source: String, sourceStamp: FileSystem.Stamp, fingerprint: String, outputStamp: FileSystem.Stamp,
            formatIn: String, formatOut: String, frames: Int64, sourceContent: Content? = nil,
            outputContent: Content? = nil
        ) {
            self.sourceContent = sourceContent
            self.outputContent = outputContent
            self.source = source
            self.sourceStamp = sourceStamp
            self.fingerprint = fingerprint
            self.outputStamp = outputStamp
            self.formatIn = formatIn
            self.formatOut = formatOut
            self.frames = frames
        }
    }

    /// A file's change time (`st_ctime`, nanoseconds: with size and modification time, the fast
    /// path of "unchanged") and the digest of its bytes when it was recorded (`nil`: none could
    /// be made, libxxhash missing or the file unreadable).
    package struct Content: Equatable, Sendable {
        package var changed: Int64
        package var digest: ContentDigest?

        package init(changed: Int64, digest: ContentDigest?) {
            self.changed = changed
            self.digest = digest
        }
    }

    /// The folder the manifest lives in; entries are relative to it.
    package var folder: String
    /// Entries by output path relative to `folder`.
    package var entries: [PathKey: Entry] = [:]
    /// What the file read by ``load(folder:)`` was, or `nil` when there was none (or a foreign one).
    package var origin: Seal?
    /// Why the file at ``path`` is not a manifest cafconv may write (a foreign file, a FIFO, a
    /// folder...), or `nil`. Such a file is left alone: nothing is recorded.
    package var foreign: ManifestFailure.Unusable?
    /// Records removed by this run (pruned, or their output is gone): a merge must not bring them back.
    package private(set) var removed: Set<PathKey> = []
    /// Records written by this run.
    package private(set) var touched: Set<PathKey> = []
    /// The manifest file as this run last read or wrote it: another writer changes it.
    private var known: FileSystem.FileState?
    /// The records of the file that this run did not decode (see ``load(folder:name:absorbShards:wanted:)``):
    /// their lines, sorted, each byte for byte as ``encoded()`` writes it. No key of ``entries``
    /// is among them.
    private var raw: [UInt8] = []
    /// How many records ``raw`` holds.
    package private(set) var rawCount = 0
    /// The keys a lazy load decoded: recording or forgetting another key decodes every record first.
    private var wanted: Set<PathKey>?

    /// Every record, decoded or not.
    package var count: Int { entries.count + rawCount }

    /// The file's name in its folder: ``fileName``, or a shard's own (``Shard/manifestName``).
    package var name: String = Manifest.fileName
    /// Shard manifests (`.cafconv-manifest.shard-K-of-N`) whose records this manifest took at
    /// load; they are deleted once it is saved.
    package private(set) var absorbed: [String] = []

    package init(folder: String, name: String = Manifest.fileName) {
        self.folder = folder
        self.name = name
    }

    /// The file failed its `end` line's check (a crash or a failed write in the middle of a
    /// rewrite, or an edit): its entries are kept only to find orphans and to be written back,
    /// never to call an output up to date, and --prune does not act on them.
    package var isDamaged: Bool { origin == .damaged }

    package var path: String { FileSystem.joined(folder, name) }

    /// Reads the manifest of `folder`; a missing or foreign file gives an empty manifest (a
    /// foreign one also sets ``foreign``). Never blocks: a FIFO is refused at `open`.
    ///
    /// With `absorbShards` (a run without `--shard`), the records of the shard manifests in the
    /// folder (as N shards' output folders gathered into one leave them) are taken too, for the
    /// outputs the folder's own manifest does not record; saving writes them into it and deletes
    /// the shard files. A damaged or foreign shard file is left alone.
    ///
    /// With `wanted` (a run that looks at no other record: a few files given by name into a
    /// shared folder), only those records are decoded; the others stay the bytes of their lines
    /// and are written back as they are, so such a run costs a copy per record, not a parse and
    /// an encode. A file whose keys are not in order (edited by hand, duplicates) is read again
    /// and decoded whole, as is everything before a change to a record that was not wanted, an
    /// orphan check or the absorbing of shard manifests (``materialize()``); a merge with another
    /// run's save reads that file the same lazy way (``mergeLazily(in:)``).
    package static func load(
        folder: String, name: String = Manifest.fileName, absorbShards: Bool = false, wanted: Set<PathKey>? = nil
    ) -> Manifest {
        var manifest = Manifest(folder: folder, name: name)
        var entries: [PathKey: Entry] = [:]
        var contents: Contents
        if let wanted, wanted.count <= 16 {
            var parser = ManifestFormat.Parser(wanted: wanted.map { Array($0.text.utf8) })
            var raw: [UInt8] = []
            contents = read(
                manifest.path, parser: &parser, expecting: { _ in }, each: { entries[PathKey($0.output)] = Entry($0) },
                keep: { raw = $0 })
            if parser.rawCount > 0 && parser.ordered {
                manifest.raw = raw
                manifest.rawCount = parser.rawCount
                manifest.wanted = wanted
            } else if parser.rawCount > 0 {
                entries = [:]
                contents = read(manifest.path, expecting: { entries.reserveCapacity($0) }) {
                    entries[PathKey($0.output)] = Entry($0)
                }
            }
        } else {
            contents = read(manifest.path, expecting: { entries.reserveCapacity($0) }) {
                entries[PathKey($0.output)] = Entry($0)
            }
        }
        // A shard run leaves a marker beside its manifest, so a run that finds none pays one failed
        // `stat` here, not a listing of the folder.
        if absorbShards, FileSystem.kind(of: FileSystem.joined(folder, Shard.markerName)) == .file,
            let names = try? FileSystem.entries(of: folder)
        {
            if manifest.rawCount > 0 {
                manifest.entries = entries
                manifest.materialize()
                entries = manifest.entries
            }
            for shard in names where shard.hasPrefix(Shard.manifestPrefix) && shard != Shard.markerName {
                var theirs: [PathKey: Entry] = [:]
                let contents = read(FileSystem.joined(folder, shard)) { theirs[PathKey($0.output)] = Entry($0) }
                guard case .manifest(let seal, _) = contents, seal != .damaged else { continue }
                // A shard's record is newer than the folder's own (a shard file is deleted once
                // absorbed): it wins, so a stale manifest restored from a cache does not undo
                // what the shards made.
                for (key, entry) in theirs { entries[key] = entry }
                manifest.absorbed.append(shard)
            }
        }
        manifest.entries = entries
        switch contents {
        case .missing: break
        case .foreign(let why): manifest.foreign = why
        case .manifest(let seal, let state):
            manifest.origin = seal
            manifest.known = state
        }
        return manifest
    }

    /// What is at a manifest's path.
    package enum Contents {
        case missing
        case foreign(ManifestFailure.Unusable)
        case manifest(Seal, FileSystem.FileState)
    }

    /// Reads the file at `path` as a stream: its header line first (a foreign file is not read
    /// further), then line by line, within ``ManifestFormat/maximumFileLength``.
    /// `expecting` is told, once the header is known good, about how many records the file's
    /// size suggests (a dictionary sized once never holds its old and new tables at the same time).
    package static func read(
        _ path: String, expecting: (Int) -> Void = { _ in }, each: (ManifestFormat.Record) -> Void
    ) -> Contents {
        var parser = ManifestFormat.Parser()
        return read(path, parser: &parser, expecting: expecting, each: each, keep: { _ in })
    }

    /// ``read(_:expecting:each:)`` with a given parser; `keep` is handed the lines it kept as bytes,
    /// once, at the end (they are the records' only copy: not copied again).
    package static func read(
        _ path: String, parser: inout ManifestFormat.Parser, expecting: (Int) -> Void,
        each: (ManifestFormat.Record) -> Void, keep: ([UInt8]) -> Void
    ) -> Contents {
        let fd = FileSystem.withPath(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else {
            return errno == ENOENT ? .missing : .foreign(.unreadable(errno: errno))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return .foreign(.notRegularFile)
        }
        let state = FileSystem.FileState(info)
        var block = [UInt8](repeating: 0, count: 1 << 16)
        // The first read is small: the header decides whether to read on.
        var wanted = 64
        while !parser.isDone {
            let got = Syscall.retryOnInterrupt { block.withUnsafeMutableBytes { Syscall.read(fd, $0.baseAddress, wanted) } }
            if got < 0 && errno == EAGAIN { continue }
            if got <= 0 { break }
            parser.feed(block[0..<got])
            if wanted < block.count, let seal = parser.seal, seal != .foreign {
                // A record line is at least about 100 bytes (two paths and eight fields).
                let estimate = min(UInt64(max(0, info.st_size)), ManifestFormat.maximumFileLength) / 128
                expecting(min(Int(estimate), ManifestFormat.maximumRecords))
            }
            for record in parser.takeRecords() { each(record) }
            wanted = block.count
        }
        let (seal, records) = parser.finish()
        if seal == .foreign { return .foreign(.notAManifest) }
        for record in records { each(record) }
        if !parser.raw.isEmpty { keep(parser.takeRaw()) }
        return .manifest(seal, state)
    }

    /// Decodes the records kept as bytes, for anything that looks at every record.
    package mutating func materialize() {
        wanted = nil
        guard rawCount > 0 else { return }
        var parser = ManifestFormat.Parser()
        parser.feed(Array((Self.header + "\n").utf8))
        parser.feed(raw)
        for record in parser.finish().records where entries[PathKey(record.output)] == nil {
            entries[PathKey(record.output)] = Entry(record)
        }
        raw = []
        rawCount = 0
    }

    /// Records a converted output.
    package mutating func record(_ key: PathKey, _ entry: Entry) {
        if rawCount > 0, wanted?.contains(key) != true { materialize() }
        entries[key] = entry
        touched.insert(key)
        removed.remove(key)
    }

    /// Forgets an output (pruned, or gone).
    package mutating func forget(_ key: PathKey) {
        if rawCount > 0, wanted?.contains(key) != true { materialize() }
        entries[key] = nil
        removed.insert(key)
        touched.remove(key)
    }

    /// Checks a manifest file's header and `end` line; `body` is the header and entry lines (the
    /// whole file when there is no matching `end` line). For tests: runs read files as streams.
    package static func check(_ file: [UInt8]) -> (seal: Seal, body: ArraySlice<UInt8>) {
        let seal = ManifestFormat.parse(file).seal
        guard seal == .sealed, let lastStart = file.dropLast().lastIndex(of: 0x0A).map({ $0 + 1 }) else {
            return (seal, file[...])
        }
        return (seal, file[..<lastStart])
    }

    /// The `end` line (with its newline) that closes `body`.
    package static func seal(_ body: some Collection<UInt8>) -> String { ManifestFormat.seal(body) }

    /// The file's bytes: the header, one sorted line per entry and the `end` line.
    /// One buffer, sized once; the entries sorted as pairs (no lookup per key), the lines kept as
    /// bytes copied between them in runs; the hash in one pass.
    package func encoded() -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(entries.count * 192 + raw.count + 64)
        body.append(contentsOf: Self.header.utf8)
        body.append(0x0A)
        raw.withUnsafeBufferPointer { lines in
            // `copied`: raw bytes already written; `next`: the first raw line not known to come first.
            var copied = 0
            var next = 0
            // The keys are sorted alone: moving whole entries while sorting costs more than the
            // lookups after it.
            for key in entries.keys.sorted() {
                guard let entry = entries[key] else { continue }
                var text = key.text
                text.withUTF8 { key in
                    guard let base = lines.baseAddress else { return }
                    while next < lines.count {
                        let tab = ManifestFormat.find(0x09, in: base, from: next, to: lines.count)
                        if ManifestFormat.compare(UnsafeBufferPointer(start: base + next, count: tab - next), key) > 0 {
                            break
                        }
                        next = ManifestFormat.find(0x0A, in: base, from: tab, to: lines.count) + 1
                    }
                }
                body.append(contentsOf: UnsafeBufferPointer(rebasing: lines[copied..<next]))
                copied = next
                ManifestFormat.append(entry.record(output: key.text), to: &body)
            }
            body.append(contentsOf: UnsafeBufferPointer(rebasing: lines[copied...]))
        }
        var hash = ManifestFormat.Hash()
        body.withUnsafeBufferPointer { hash.add(buffer: $0) }
        body.append(contentsOf: hash.endLine.utf8)
        return body
    }

    /// Writes the manifest, merging what other runs saved meanwhile. It is a cache (losing it
    /// costs a full re-run, never a wrong output), so it is rewritten in place, without `fsync`:
    /// replacing it by a new file would free the old one's blocks at every run, which is slow
    /// once they are on disk. A crash in the middle leaves a file whose `end` line does not
    /// match: its records then decide nothing (every output is converted again) but still name
    /// orphans. A version 1 or damaged file, one that is a symlink, has other hard links, cannot
    /// be opened for writing or is locked by another run is replaced by rename instead (a new
    /// file made with `O_EXCL | O_NOFOLLOW` under an unguessable name). A file that is not a
    /// manifest is never written or replaced: saving fails and says so. An empty manifest
    /// removes the file.
    ///
    /// Runs sharing the folder take turns through a `flock` on the folder (waiting at most 2 s;
    /// a folder that cannot be locked is written anyway). When the file changed since this run
    /// last read or wrote it, its records are merged in: a record this run did not write or
    /// remove is kept, and of two records for one output the one that matches the output file
    /// now wins, so the manifest agrees with the files whichever run saves last.
    package mutating func save() throws(ConversionError) {
        try saveFile()
        if name != Self.fileName, let directory = try? FileSystem.OpenedRoots.folder(folder, create: false) {
            // The marker that tells runs without --shard to look for shard manifests here.
            let fd = FileSystem.withPath(Shard.markerName) {
                openat(directory.descriptor, $0, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
            }
            if fd >= 0 { close(fd) }
        }
        guard !absorbed.isEmpty, let directory = try? FileSystem.OpenedRoots.folder(folder, create: false) else { return }
        for shard in absorbed + [Shard.markerName] {
            _ = FileSystem.withPath(shard) { unlinkat(directory.descriptor, $0, 0) }
        }
        absorbed.removeAll()
    }

    private mutating func saveFile() throws(ConversionError) {
        if let foreign { throw ConversionError.manifest(.leftAlone(foreign)) }
        if count == 0 && removed.isEmpty && known == nil && !FileSystem.linkExists(path) { return }
        // The run's own descriptor of the folder (never the path again), reopened for a lock that
        // ends with this call.
        let directory = try FileSystem.OpenedRoots.folder(folder, create: true).reopened()
        _ = directory.lock(waitingAtMost: 2)
        // The lock is released when `directory` is closed, at the end of this call.
        var onDisk = origin
        if let current = directory.info(name) {
            let kind = current.st_mode & S_IFMT
            guard kind == S_IFREG || kind == S_IFLNK else {
                throw ConversionError.manifest(.leftAlone(.notRegularFile))
            }
            if kind == S_IFLNK || FileSystem.FileState(current) != known {
                if kind == S_IFREG && rawCount > 0, case .done(let seal) = try mergeLazily(in: directory) {
                    onDisk = seal
                } else {
                    var theirs: [PathKey: Entry] = [:]
                    switch Self.read(FileSystem.joined(directory.openedPath, name), each: { theirs[PathKey($0.output)] = Entry($0) }) {
                    case .missing: onDisk = nil
                    case .foreign(let why):
                        throw ConversionError.manifest(.leftAlone(why))
                    case .manifest(let seal, _):
                        onDisk = seal
                        if kind == S_IFREG && seal != .damaged {
                            materialize()
                            merge(theirs, in: directory)
                        }
                    }
                }
            }
        } else {
            onDisk = nil
        }
        if count == 0 {
            if directory.info(name) != nil {
                _ = FileSystem.withPath(name) { unlinkat(directory.descriptor, $0, 0) }
            }
            known = nil
            return
        }
        let bytes = encoded()
        // A version 1 or damaged file is replaced whole: none of it should survive next to new bytes.
        let inPlace = onDisk != .version1 && onDisk != .damaged
        if inPlace, let state = try overwrite(in: directory, with: bytes) {
            known = state
            return
        }
        known = try replace(in: directory, with: bytes)
    }

    /// What ``mergeLazily(in:)`` did.
    private enum LazyMerge {
        /// Merged (or nothing to merge): what the file on disk is (`nil`: gone).
        case done(Seal?)
        /// Not possible without decoding everything: the caller merges the usual way.
        case notDone
    }

    /// ``merge(_:in:)`` for a manifest that keeps lines as bytes (a lazy load), when the file
    /// changed since this run read it: the file is read lazily too (decoding only the keys this
    /// run decoded, touched or removed), those records are merged as usual, and the two sorted
    /// runs of lines kept as bytes are merged line by line: a line only one side has is kept,
    /// and of two different lines for one output the one that matches the output file now wins
    /// (ours when neither or both do), as ``merge(_:in:)`` decides. Not done (`notDone`) when the
    /// file is out of order or decodes a record this run kept as bytes.
    private mutating func mergeLazily(in directory: FileSystem.Folder) throws(ConversionError) -> LazyMerge {
        let keys = Set(entries.keys).union(touched).union(removed)
        guard keys.count <= 16 else { return .notDone }
        var parser = ManifestFormat.Parser(wanted: keys.map { Array($0.text.utf8) })
        var theirs: [PathKey: Entry] = [:]
        var theirLines: [UInt8] = []
        switch Self.read(
            FileSystem.joined(directory.openedPath, name), parser: &parser, expecting: { _ in }, each: { theirs[PathKey($0.output)] = Entry($0) },
            keep: { theirLines = $0 })
        {
        case .missing: return .done(nil)
        case .foreign(let why):
            throw ConversionError.manifest(.leftAlone(why))
        case .manifest(let seal, _):
            if seal == .damaged { return .done(seal) }
            guard parser.ordered, theirs.keys.allSatisfy({ keys.contains($0) }) else { return .notDone }
            merge(theirs, in: directory)
            mergeLines(theirLines, in: directory)
            return .done(seal)
        }
    }

    /// Merges another run's lines kept as bytes into ``raw`` (both sorted by key, no key of
    /// ``entries`` among them).
    private mutating func mergeLines(_ theirLines: [UInt8], in directory: FileSystem.Folder) {
        var merged: [UInt8] = []
        merged.reserveCapacity(max(raw.count, theirLines.count) + 256)
        var count = 0
        let header = Array((Self.header + "\n").utf8)
        func entry(_ line: UnsafeBufferPointer<UInt8>) -> (PathKey, Entry)? {
            ManifestFormat.parse(header + Array(line)).records.first.map { (PathKey($0.output), Entry($0)) }
        }
        raw.withUnsafeBufferPointer { ours in
            theirLines.withUnsafeBufferPointer { theirs in
                var mine = Self.line(in: ours, from: 0)
                var other = Self.line(in: theirs, from: 0)
                while mine != nil || other != nil {
                    let order: Int
                    if let mine, let other {
                        order = ManifestFormat.compare(mine.key, other.key)
                    } else {
                        order = mine == nil ? 1 : -1
                    }
                    if order < 0, let line = mine {
                        merged.append(contentsOf: line.bytes)
                        mine = Self.line(in: ours, from: line.end)
                    } else if order > 0, let line = other {
                        merged.append(contentsOf: line.bytes)
                        other = Self.line(in: theirs, from: line.end)
                    } else if let ourLine = mine, let theirLine = other {
                        var kept = ourLine.bytes
                        if !ManifestFormat.same(ourLine.bytes, theirLine.bytes), let (key, ourEntry) = entry(ourLine.bytes),
                            let (_, theirEntry) = entry(theirLine.bytes)
                        {
                            let now = directory.info(key.text).flatMap {
                                ($0.st_mode & S_IFMT) == S_IFREG ? FileSystem.Stamp($0) : nil
                            }
                            if ourEntry.outputStamp != now && theirEntry.outputStamp == now { kept = theirLine.bytes }
                        }
                        merged.append(contentsOf: kept)
                        mine = Self.line(in: ours, from: ourLine.end)
                        other = Self.line(in: theirs, from: theirLine.end)
                    }
                    count += 1
                }
            }
        }
        raw = merged
        rawCount = count
    }

    /// The line of `lines` that starts at `start`: its key (up to the first tab), its bytes with
    /// the newline, and where the next one starts.
    private static func line(in lines: UnsafeBufferPointer<UInt8>, from start: Int)
        -> (key: UnsafeBufferPointer<UInt8>, bytes: UnsafeBufferPointer<UInt8>, end: Int)?
    {
        guard start < lines.count, let base = lines.baseAddress else { return nil }
        let tab = ManifestFormat.find(0x09, in: base, from: start, to: lines.count)
        let end = min(ManifestFormat.find(0x0A, in: base, from: tab, to: lines.count) + 1, lines.count)
        return (
            UnsafeBufferPointer(start: base + start, count: tab - start),
            UnsafeBufferPointer(start: base + start, count: end - start), end
        )
    }

    /// Takes the records another run saved: those this run did not touch, and, for an output
    /// both recorded, the record that matches the output file as it is now.
    private mutating func merge(_ theirs: [PathKey: Entry], in directory: FileSystem.Folder) {
        func current(_ key: PathKey) -> FileSystem.Stamp? {
            guard let info = directory.info(key.text), (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            return FileSystem.Stamp(info)
        }
        for (key, entry) in theirs where !removed.contains(key) {
            guard let ours = entries[key] else {
                entries[key] = entry
                continue
            }
            if ours != entry, ours.outputStamp != current(key), entry.outputStamp == current(key) {
                entries[key] = entry
            }
        }
        // Another run may have replaced an output this run recorded without saving its record yet:
        // a record that no longer matches its file would only cost a conversion; drop it.
        for key in touched where theirs[key] == nil {
            if let ours = entries[key], ours.outputStamp != current(key) { entries[key] = nil }
        }
    }

    /// Writes `bytes` over the regular manifest file in place (same inode and, unless it
    /// shrinks past a block, the same blocks: freeing the blocks of a file already on disk, as
    /// `unlink` or `O_TRUNC` do, waits for the disk on ext4 mounted with `discard`), and cuts it
    /// to their length. Not atomic: readers check the `end` line. The space is reserved first
    /// (`fallocate`), so a full disk fails before a byte is overwritten. Returns `nil`, having
    /// written nothing, when the file is missing, a symlink, not a regular file, has other hard
    /// links, cannot be opened for writing, or another run holds its `flock`.
    private func overwrite(in directory: FileSystem.Folder, with bytes: [UInt8]) throws(ConversionError)
        -> FileSystem.FileState?
    {
        let fd = FileSystem.withPath(name) {
            openat(directory.descriptor, $0, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        }
        if fd < 0 { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1 else { return nil }
        // Keeps a run that does not take the folder's lock (an older cafconv) from interleaving.
        // A file system without locks (ENOLCK, EOPNOTSUPP) goes ahead: a mix fails the reader's check.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK { return nil }
        if FileSystem.reserve(fd, bytes.count) != 0, errno == ENOSPC || errno == EDQUOT {
            throw ConversionError.manifest(.notWritten(errno: errno))
        }
        do {
            try FileSystem.writeAll(fd, bytes, at: 0)
        } catch {
            throw ConversionError.manifest(.notWrittenBecause(error))
        }
        guard ftruncate(fd, off_t(bytes.count)) == 0, fstat(fd, &info) == 0 else {
            throw ConversionError.manifest(.notWritten(errno: errno))
        }
        return FileSystem.FileState(info)
    }

    /// Replaces the manifest by a new file: written under an unguessable name (`O_EXCL |
    /// O_NOFOLLOW`), then renamed over the old name (a symlink there is replaced, not followed).
    private func replace(in directory: FileSystem.Folder, with bytes: [UInt8]) throws(ConversionError)
        -> FileSystem.FileState
    {
        let temporary: FileSystem.TemporaryFile
        do { temporary = try FileSystem.TemporaryFile(in: directory, for: name, replacingSymlink: true) } catch {
            throw ConversionError.manifest(.notWrittenBecause(error))
        }
        do {
            let fd = try temporary.descriptor()
            defer { close(fd) }
            try FileSystem.writeAll(fd, bytes, at: 0)
            try temporary.commit()
        } catch {
            throw ConversionError.manifest(.notWrittenBecause(error))
        }
        guard let info = directory.info(name) else {
            throw ConversionError.manifest(.vanished)
        }
        return FileSystem.FileState(info)
    }

    /// The path of `output` relative to `folder`, or `nil` when it is not inside it.
    package func relative(_ output: String) -> String? {
        if folder.isEmpty || folder == "." { return output.hasPrefix("/") ? nil : output }
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard output.utf8.starts(with: prefix.utf8), output.utf8.count > prefix.utf8.count else { return nil }
        return String(decoding: output.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }
}

extension Manifest.Entry {
    package init(_ record: ManifestFormat.Record) {
        self.init(
            source: record.source, sourceStamp: FileSystem.Stamp(size: record.sourceSize, modified: record.sourceModified),
            fingerprint: record.fingerprint,
            outputStamp: FileSystem.Stamp(size: record.outputSize, modified: record.outputModified),
            formatIn: record.formatIn, formatOut: record.formatOut, frames: record.frames,
            sourceContent: record.sourceChanged.map { Manifest.Content(changed: $0, digest: ContentDigest(text: record.sourceDigest)) },
            outputContent: record.outputChanged.map { Manifest.Content(changed: $0, digest: ContentDigest(text: record.outputDigest)) })
    }

    package func record(output: String) -> ManifestFormat.Record {
        ManifestFormat.Record(
            output: output, source: source, sourceSize: sourceStamp.size, sourceModified: sourceStamp.modified,
            fingerprint: fingerprint, outputSize: outputStamp.size, outputModified: outputStamp.modified,
            formatIn: formatIn, formatOut: formatOut, frames: frames,
            // Both change times or neither: a record is written in fourteen fields or in ten.
            sourceChanged: sourceContent != nil && outputContent != nil ? sourceContent?.changed : nil,
            sourceDigest: sourceContent?.digest?.text ?? "",
            outputChanged: sourceContent != nil && outputContent != nil ? outputContent?.changed : nil,
            outputDigest: outputContent?.digest?.text ?? "")
    }
}

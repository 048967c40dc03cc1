internal import CSystemCalls

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX calls the engine needs. Every failure carries `errno`'s text.
enum FileSystem {
    /// What a path is, following symlinks.
    enum Kind: Equatable {
        case file, directory, other, missing
    }

    /// Identity of a file: device and inode.
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The entries of a directory (not `.` and `..`), sorted by name bytes for a stable order.
    static func entries(of path: String) throws(ConversionError) -> [String] {
        guard let dir = opendir(path) else {
            throw ConversionError("cannot read folder: \(errorText())")
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Creates a folder and its parents (like `mkdir -p`).
    static func makeDirectories(_ path: String) throws(ConversionError) {
        if path.isEmpty || kind(of: path) == .directory { return }
        let parent = directoryName(path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o777) != 0 && errno != EEXIST {
            throw ConversionError("cannot create folder \(path): \(errorText())")
        }
        guard kind(of: path) == .directory else {
            throw ConversionError("cannot create folder \(path): a file is in the way")
        }
    }

    /// The folder part of a path (`.` for a bare name).
    static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a path.
    static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The name without its last extension (`kick.wav` -> `kick`; `.hidden` stays).
    static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    static func joined(_ folder: String, _ name: String) -> String {
        if folder.isEmpty || folder == "." { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Deletes a file; `false` (with `errno` set) when it could not.
    @discardableResult static func remove(_ path: String) -> Bool { unlink(path) == 0 }

    /// Moves the finished file `from` to `to` in one step: readers see the old file or the new
    /// one, never a mix. An existing file at `to` is swapped out (renameat2 with RENAME_EXCHANGE)
    /// and then deleted, because ext4 writes the new file's data out at once, about 1.4 ms per
    /// file, when rename(2) replaces a file. Elsewhere it is a plain rename.
    static func replace(_ from: String, with to: String) throws(ConversionError) {
        var info = stat()
        if lstat(to, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR, cafconv_exchange(from, to) == 0 {
            unlink(from)
            return
        }
        guard rename(from, to) == 0 else {
            throw ConversionError("cannot move the finished file into place: \(errorText())")
        }
    }

    static func truncate(_ path: String, to length: UInt64) throws(ConversionError) {
        guard Glibc.truncate(path, off_t(length)) == 0 else {
            throw ConversionError("cannot trim the output: \(errorText())")
        }
    }

    /// Creates a new, empty file that did not exist before (`O_EXCL`), readable and writable.
    static func createExclusive(_ path: String) throws(ConversionError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw ConversionError("cannot create a file in \(directoryName(path)): \(errorText())")
        }
        return fd
    }

    /// Opens an existing file for reading and writing.
    static func openForUpdate(_ path: String) throws(ConversionError) -> Int32 {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw ConversionError("cannot open \(path): \(errorText())") }
        return fd
    }

    static func closeFile(_ fd: Int32) { close(fd) }

    /// The current length of an open file.
    static func length(of fd: Int32) throws(ConversionError) -> UInt64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ConversionError("cannot read the output's size: \(errorText())") }
        return UInt64(max(0, info.st_size))
    }

    /// Reads exactly `buffer.count` bytes at `offset`; a file that ends sooner is an error.
    static func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ConversionError) {
        var done = 0
        while done < buffer.count {
            let got = pread(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            if got < 0 && errno == EINTR { continue }
            if got < 0 { throw ConversionError("reading failed: \(errorText())") }
            if got == 0 { throw ConversionError("the file ended early: it changed while it was being read") }
            done += got
        }
    }

    /// Writes all of `buffer` at `offset`.
    static func writeAll(_ fd: Int32, from buffer: UnsafeRawBufferPointer, at offset: UInt64) throws(ConversionError) {
        var done = 0
        while done < buffer.count {
            let wrote = pwrite(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            if wrote < 0 && errno == EINTR { continue }
            if wrote <= 0 {
                if wrote == 0 { errno = ENOSPC }
                throw ConversionError("writing failed: \(errorText())")
            }
            done += wrote
        }
    }

    /// Reads exactly `count` bytes at `offset`.
    static func readExactly(_ fd: Int32, count: Int, at offset: UInt64) throws(ConversionError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let failure = bytes.withUnsafeMutableBytes { raw -> ConversionError? in
            do throws(ConversionError) { try readExactly(fd, into: raw, at: offset) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes all of `bytes` at `offset`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: UInt64) throws(ConversionError) {
        let failure = bytes.withUnsafeBytes { raw -> ConversionError? in
            do throws(ConversionError) { try writeAll(fd, from: raw, at: offset) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Size and modification time of a file (following symlinks), as the manifest records them.
    struct Stamp: Equatable {
        var size: UInt64
        var modified: Int64
    }

    static func stamp(of path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return Stamp(size: UInt64(info.st_size), modified: nanoseconds)
    }

    /// Whether something (even a broken symlink) exists at `path`.
    static func linkExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The absolute path with symlinks resolved, or `nil` when it does not exist.
    static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reads a whole (small) file; `nil` when it cannot be opened.
    static func readSmallFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        // Sized by the file (plus one byte to see the end in one read), at most 64 KiB per read:
        // a fixed 64 KiB buffer cost more than reading a small manifest.
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int(max(0, info.st_size)) : 1 << 16
        var block = [UInt8](repeating: 0, count: min(max(size + 1, 4096), 1 << 16))
        while true {
            let got = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            if got <= 0 { break }
            bytes.append(contentsOf: block[0..<got])
        }
        return bytes
    }

    /// Replaces `path` with `bytes` atomically: a temporary file beside it is written and moved
    /// over it, so readers see either the old or the new content. It is not flushed to disk:
    /// the manifest is a cache, and a manifest lost in a crash costs a full re-run, never a
    /// wrong output.
    static func writeAtomically(_ path: String, _ bytes: [UInt8], temporarySuffix: String) throws(ConversionError) {
        let temporary = joined(directoryName(path), "." + baseName(path) + temporarySuffix)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ConversionError("cannot write \(path): \(errorText())") }
        do {
            defer { close(fd) }
            try writeAll(fd, bytes, at: 0)
        } catch {
            unlink(temporary)
            throw ConversionError("cannot write \(path): \(error.message)")
        }
        do { try replace(temporary, with: path) } catch {
            unlink(temporary)
            throw ConversionError("cannot write \(path): \(error.message)")
        }
    }

    /// Writes `bytes` over the regular file at `path` in place, creating it when missing, and cuts
    /// it to their length. The file keeps its inode and (unless it shrinks past a block) its
    /// blocks: freeing the blocks of a file already on disk, as `unlink` or `O_TRUNC` do, costs
    /// about 1.5 ms on ext4 mounted with `discard`. Not atomic: readers must check what they read.
    /// The space is reserved first (`fallocate`), so a full disk fails before a byte is
    /// overwritten. Returns `false`, having written nothing, when `path` is a symlink, not a
    /// regular file, has other hard links, cannot be opened for writing (a read-only file: a
    /// rename can still replace it), or another run holds its `flock`.
    static func overwrite(_ path: String, with bytes: [UInt8]) throws(ConversionError) -> Bool {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
        if fd < 0 {
            if errno == ELOOP || errno == EACCES || errno == EPERM { return false }
            throw ConversionError("cannot write \(path): \(errorText())")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1 else { return false }
        // Only keeps two runs from interleaving their writes. A file system without locks
        // (ENOLCK, EOPNOTSUPP) goes ahead: a mix would fail the reader's check.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK { return false }
        if cafconv_reserve(fd, Int64(bytes.count)) != 0, errno == ENOSPC || errno == EDQUOT {
            throw ConversionError("cannot write \(path): \(errorText())")
        }
        do {
            try writeAll(fd, bytes, at: 0)
        } catch {
            throw ConversionError("cannot write \(path): \(error.message)")
        }
        guard ftruncate(fd, off_t(bytes.count)) == 0 else {
            throw ConversionError("cannot write \(path): \(errorText())")
        }
        return true
    }

    /// Whether a process with this id is running (a temporary file of a live run must stay).
    static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    static var processID: Int32 { getpid() }

    /// Monotonic time in nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The number of processors online.
    static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// Why one file could not be converted: one sentence, without the file name (the report adds it).
public struct ConversionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The reason.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

import BinaryIO
import ConversionModel
import SystemLayer

/// Thin wrappers over the POSIX calls the engine needs. Every failure carries `errno`'s text.
package enum FileSystem {
    /// What a path is, following symlinks.
    package enum Kind: Equatable {
        case file, directory, other, missing
    }

    /// Identity of a file: device and inode.
    package struct Identity: Hashable {
        package var device: UInt64
        package var inode: UInt64
    }

    package static func errorText(_ code: Int32 = errno) -> String { ConversionError.systemText(code) }

    /// Calls a system call with the bytes of `path` (see ``PathBytes``): names that are not
    /// UTF-8 reach the system as the bytes they were read as. A path holding a NUL byte (which
    /// the system would cut short) fails with `EINVAL` and `-1` without calling.
    package static func withPath<Result: BinaryInteger>(_ path: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        if let result = PathBytes.withCString(path, body) { return result }
        errno = EINVAL
        return -1
    }

    /// stat(2) of `path` (following symlinks).
    package static func status(_ path: String, _ info: inout FileStatus) -> Int32 {
        withPath(path) { cPath -> Int32 in stat(cPath, &info) }
    }

    /// lstat(2) of `path` (a symlink itself).
    package static func linkStatus(_ path: String, _ info: inout FileStatus) -> Int32 {
        withPath(path) { cPath -> Int32 in lstat(cPath, &info) }
    }

    package static func kind(of path: String) -> Kind {
        var info = FileStatus()
        guard status(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    package static func identity(of path: String) -> Identity? {
        var info = FileStatus()
        guard status(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Identity of the open file `fd` (fstat(2)), or `nil` when it cannot be read.
    package static func identity(ofDescriptor fd: Int32) -> (identity: Identity, isCharacterDevice: Bool)? {
        var info = FileStatus()
        guard fstat(fd, &info) == 0 else { return nil }
        return (Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)), (info.st_mode & S_IFMT) == S_IFCHR)
    }

    /// The entries of a directory (not `.` and `..`), sorted by name bytes for a stable order.
    package static func entries(of path: String, sorted: Bool = true, hiddenOnly: Bool = false) throws(ConversionError)
        -> [String]
    {
        try typedEntries(of: path, sorted: sorted, hiddenOnly: hiddenOnly).map(\.name)
    }

    /// ``entries(of:sorted:hiddenOnly:)`` with each entry's kind when the directory says it
    /// (`d_type`: a regular file or a folder, not a symlink), so that a walk need not `stat`
    /// those; `nil` for anything else (a symlink, a special file, a file system that does not say).
    package static func typedEntries(of path: String, sorted: Bool = true, hiddenOnly: Bool = false) throws(ConversionError)
        -> [(name: String, kind: Kind?)]
    {
        guard let dir = PathBytes.withCString(path, { opendir($0) }) ?? nil else {
            throw ConversionError.io(errno: errno, doing: "cannot read folder", path: path)
        }
        defer { closedir(dir) }
        var found: [(bytes: [UInt8], name: String, kind: Kind?)] = []
        while let entry = readdir(dir) {
            // Names are bytes: one that is not UTF-8 is kept as it is (see PathBytes), never skipped.
            let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                // `hiddenOnly`: names that do not start with '.' are not even decoded (a build
                // system's one-file run looks for its hidden temporary files in a folder of
                // hundreds of outputs).
                if hiddenOnly && raw.first != UInt8(ascii: ".") { return nil }
                // A buffer, not a slice of one: the slice's generic type would be made at run
                // time for the call into BinaryIO.
                return PathBytes.decode(UnsafeRawBufferPointer(rebasing: raw.prefix { $0 != 0 }))
            }
            guard let name, name != "." && name != ".." else { continue }
            let kind: Kind? =
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_REG): .file
                case Int32(DT_DIR): .directory
                default: nil
                }
            // Each name's bytes are made once for the sort below, not at every comparison.
            found.append((sorted ? PathBytes.encode(name) : [], name, kind))
        }
        if sorted { found.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) } }
        return found.map { ($0.name, $0.kind) }
    }

    /// Creates a folder and its parents (like `mkdir -p`).
    package static func makeDirectories(_ path: String) throws(ConversionError) {
        if path.isEmpty || kind(of: path) == .directory { return }
        let parent = directoryName(path)
        if parent != path { try makeDirectories(parent) }
        if withPath(path, { mkdir($0, 0o777) }) != 0 && errno != EEXIST {
            throw ConversionError.output(.folderNotCreated(path: path, errno: errno))
        }
        guard kind(of: path) == .directory else {
            throw ConversionError.output(.fileInTheWay(path: path))
        }
    }

    /// The folder part of a path (`.` for a bare name).
    package static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a path.
    package static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The name without its last extension (`kick.wav` -> `kick`; `.hidden` stays).
    package static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    package static func joined(_ folder: String, _ name: String) -> String {
        if folder.isEmpty || folder == "." { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Deletes a file; `false` (with `errno` set) when it could not.
    @discardableResult package static func remove(_ path: String) -> Bool { withPath(path) { unlink($0) } == 0 }

    /// Opens an existing temporary file of this run for reading and writing. Never through a
    /// symlink, and never a file with other hard links: someone who can write the output folder
    /// must not be able to turn this write onto another file.
    /// Bytes an unprivileged writer can still put on the file system holding `path`, `nil` when
    /// `statvfs` cannot tell.
    package static func availableBytes(at path: String) -> UInt64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let (bytes, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        return overflow ? UInt64.max : bytes
    }

    /// An anonymous temporary file of this run (see ``TemporaryFile``) is reopened through its
    /// descriptor's path (``descriptorPath(_:)``, a link /proc keeps to this process's own open
    /// file, so followed) and must still have no name at all.
    package static func openForUpdate(_ path: String) throws(ConversionError) -> Int32 {
        let number = path.utf8.dropFirst(descriptorFolder.utf8.count)
        let ownDescriptor = path.hasPrefix(descriptorFolder) && !number.isEmpty
            && number.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let fd = withPath(path) { open($0, O_RDWR | (ownDescriptor ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw ConversionError.output(.notReopened(path: path, errno: errno)) }
        var info = FileStatus()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == (ownDescriptor ? 0 : 1) else {
            close(fd)
            throw ConversionError.output(.replaced(path: path))
        }
        return fd
    }

    /// Cuts a temporary file of this run to `length` bytes (see ``openForUpdate(_:)``).
    package static func truncate(_ path: String, to length: UInt64) throws(ConversionError) {
        let fd = try openForUpdate(path)
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw ConversionError.io(errno: errno, doing: "cannot trim the output", path: path)
        }
    }

    /// Opens a regular file for reading without ever waiting: a FIFO, socket or device is
    /// refused at once (`O_NONBLOCK`, then `fstat`), with a sentence saying why.
    package static func openForReading(_ path: String) throws(ConversionError) -> Int32 {
        let fd = withPath(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw ConversionError.io(errno: errno, doing: "cannot open it", path: path) }
        var info = FileStatus()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw ConversionError.io(errno: code, doing: "cannot open it", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ConversionError.input(.notRegularFile)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    package static func closeFile(_ fd: Int32) { close(fd) }

    /// Reserves disk blocks for the first `length` bytes of `fd` without changing its size
    /// (fallocate with FALLOC_FL_KEEP_SIZE); `-1` with `errno` where it cannot.
    package static func reserve(_ fd: Int32, _ length: Int) -> Int32 { cafconv_reserve(fd, Int64(length)) }

    /// The current length of an open file.
    package static func length(of fd: Int32) throws(ConversionError) -> UInt64 {
        var info = FileStatus()
        guard fstat(fd, &info) == 0 else { throw ConversionError.io(errno: errno, doing: "cannot read the output's size") }
        return UInt64(max(0, info.st_size))
    }

    /// Reads exactly `buffer.count` bytes at `offset`; a file that ends sooner is an error.
    package static func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ConversionError) {
        var done = 0
        while done < buffer.count {
            let got = Syscall.retryOnInterrupt {
                pread(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            }
            if got < 0 { throw ConversionError.io(errno: errno, doing: "reading failed") }
            if got == 0 { throw ConversionError.source(.fileEndedEarly) }
            done += got
        }
    }

    /// Writes all of `buffer` at `offset`.
    package static func writeAll(_ fd: Int32, from buffer: UnsafeRawBufferPointer, at offset: UInt64) throws(ConversionError) {
        var done = 0
        while done < buffer.count {
            let wrote = Syscall.retryOnInterrupt {
                pwrite(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset) + off_t(done))
            }
            if wrote <= 0 {
                if wrote == 0 { errno = ENOSPC }
                throw ConversionError.io(errno: errno, doing: "writing failed")
            }
            done += wrote
        }
    }

    /// Writes all of `bytes` at the descriptor's position (a pipe has no offsets: stdout).
    package static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws(ConversionError) {
        let failure = bytes.withUnsafeBytes { buffer -> ConversionError? in
            var done = 0
            while done < buffer.count {
                let wrote = Syscall.retryOnInterrupt { write(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done) }
                if wrote <= 0 {
                    return ConversionError.io(errno: wrote == 0 ? ENOSPC : errno, doing: "writing standard output failed")
                }
                done += wrote
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Reads exactly `count` bytes at `offset`.
    package static func readExactly(_ fd: Int32, count: Int, at offset: UInt64) throws(ConversionError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let failure = bytes.withUnsafeMutableBytes { raw -> ConversionError? in
            do throws(ConversionError) { try readExactly(fd, into: raw, at: offset) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes all of `bytes` at `offset`.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: UInt64) throws(ConversionError) {
        let failure = bytes.withUnsafeBytes { raw -> ConversionError? in
            do throws(ConversionError) { try writeAll(fd, from: raw, at: offset) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Size and modification time of a file (following symlinks), as the manifest records them.
    package struct Stamp: Equatable {
        package var size: UInt64
        package var modified: Int64

        package init(size: UInt64, modified: Int64) {
            self.size = size
            self.modified = modified
        }

        package init(_ info: FileStatus) {
            size = UInt64(max(0, info.st_size))
            modified = Int64(info.modificationTime.tv_sec) * 1_000_000_000 + Int64(info.modificationTime.tv_nsec)
        }
    }

    /// Sets a file's modification time to now (never through a symlink at `path` itself).
    package static func touch(_ path: String) {
        _ = withPath(path) { utimensat(AT_FDCWD, $0, nil, AT_SYMLINK_NOFOLLOW) }
    }

    /// A regular file's stamp and change time (`st_ctime` in nanoseconds), followed through
    /// symlinks as ``stamp(of:)``; `nil` when there is no regular file.
    package static func stampAndChange(of path: String) -> (stamp: Stamp, changed: Int64)? {
        var info = FileStatus()
        guard status(path, &info) == 0 else { return nil }
        return stampAndChange(info)
    }

    static func stampAndChange(_ info: FileStatus) -> (stamp: Stamp, changed: Int64)? {
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Stamp(info), Int64(info.changeTime.tv_sec) * 1_000_000_000 + Int64(info.changeTime.tv_nsec))
    }

    /// The canonical paths, stamps and change times of many files, each folder resolved once.
    /// A file that is not a symlink has its folder's canonical path followed by its name, so one
    /// lstat(2) per file stands for both realpath(3) (a readlink(2) per path component, and the
    /// working folder for a relative path) and ``stampAndChange(of:)``. A symlink, or a path whose
    /// last name is empty, `.` or `..`, takes those two calls as before. A probe lives for one
    /// run's decisions: folders are not looked up again while it lives.
    package struct SourceProbe {
        private var folders: [String: String?] = [:]

        package init() {}

        /// ``canonical(_:)`` and ``stampAndChange(of:)`` of `path`, the same as calling both.
        package mutating func probe(_ path: String) -> (canonical: String?, stamped: (stamp: Stamp, changed: Int64)?) {
            let folder: String
            let name: Substring
            if let slash = path.lastIndex(of: "/") {
                folder = slash == path.startIndex ? "/" : String(path[..<slash])
                name = path[path.index(after: slash)...]
            } else {
                folder = "."
                name = path[...]
            }
            var info = FileStatus()
            guard !name.isEmpty, name != ".", name != "..", linkStatus(path, &info) == 0,
                (info.st_mode & S_IFMT) != S_IFLNK
            else { return (canonical(path), stampAndChange(of: path)) }
            let resolved: String?
            if let known = folders[folder] {
                resolved = known
            } else {
                resolved = canonical(folder)
                folders[folder] = resolved
            }
            let joined = resolved.map { ($0 == "/" ? "" : $0) + "/" + name }
            // realpath(3) refuses a result of PATH_MAX bytes or more (a short path through a
            // symlinked folder can resolve to a long one): the same answer, from it.
            guard let joined, joined.utf8.count < Int(PATH_MAX) else { return (canonical(path), stampAndChange(of: path)) }
            return (joined, stampAndChange(info))
        }
    }

    package static func stamp(of path: String) -> Stamp? {
        var info = FileStatus()
        guard status(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Stamp(info)
    }

    /// Whether something (even a broken symlink) exists at `path`.
    package static func linkExists(_ path: String) -> Bool {
        var info = FileStatus()
        return linkStatus(path, &info) == 0
    }

    /// The absolute path as written (the working folder before a relative one), `.` and `..`
    /// folded by name, symlinks left as they are: the same in a build system's sandbox (inputs
    /// linked one by one) as in its execution root (folders linked), where `canonical` differs.
    package static func lexicalAbsolute(_ path: String) -> String? {
        var full = path
        if !path.hasPrefix("/") {
            guard let folder = getcwd(nil, 0) else { return nil }
            defer { free(folder) }
            full = String(cString: folder) + "/" + path
        }
        var parts: [Substring] = []
        for part in full.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The absolute path with symlinks resolved, or `nil` when it does not exist.
    package static func canonical(_ path: String) -> String? {
        guard let resolved = PathBytes.withCString(path, { realpath($0, nil) }) ?? nil else { return nil }
        defer { free(resolved) }
        return PathBytes.decode(UnsafeBufferPointer(start: resolved, count: strlen(resolved)).map { UInt8(bitPattern: $0) })
    }

    /// Where `path` is or would be written: its canonical path when it exists, else its
    /// folder's canonical path followed by its name (a file not written yet), else its
    /// ``lexicalAbsolute(_:)`` (its folder is missing too).
    package static func located(_ path: String) -> String? {
        if let resolved = canonical(path) { return resolved }
        let name = baseName(path)
        guard !name.isEmpty, name != ".", name != "..", let folder = canonical(directoryName(path)) else {
            return lexicalAbsolute(path)
        }
        return (folder == "/" ? "" : folder) + "/" + name
    }

    /// Whether `first` and `second` name the same file: the same bytes, the same identity
    /// (device and inode, following symlinks) where both exist, else the same ``located(_:)``
    /// path (`./x`, `dir/../x` and a symlinked folder's spelling of a file not written yet).
    package static func sameFile(_ first: String, _ second: String) -> Bool {
        if first.utf8.elementsEqual(second.utf8) { return true }
        let firstIdentity = identity(of: first)
        let secondIdentity = identity(of: second)
        if let firstIdentity, let secondIdentity { return firstIdentity == secondIdentity }
        if (firstIdentity == nil) != (secondIdentity == nil) { return false }
        guard let firstPath = located(first), let secondPath = located(second) else { return false }
        return firstPath.utf8.elementsEqual(secondPath.utf8)
    }

    /// Whether `path` is or would be written inside `folder` (at any depth), by their
    /// ``located(_:)`` paths; `false` when either cannot be resolved.
    package static func isInside(_ path: String, folder: String) -> Bool {
        guard let file = located(path), let root = located(folder) else { return false }
        return file.hasPrefix(root == "/" ? "/" : root + "/")
    }

    package static var processID: Int32 { getpid() }

    static let descriptorFolder = "/proc/self/fd/"

    /// The path of this process's open file `fd` (/proc/self/fd/N).
    package static func descriptorPath(_ fd: Int32) -> String { descriptorFolder + String(fd) }

    /// Whether `/proc/self/fd` names this process's open files (Linux with /proc mounted).
    package static let hasProcessFolder: Bool = withPath("/proc/self/fd") { access($0, F_OK) } == 0

    /// Monotonic time in nanoseconds.
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

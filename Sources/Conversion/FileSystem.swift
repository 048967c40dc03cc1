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
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
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

    static func remove(_ path: String) { unlink(path) }

    static func rename(_ from: String, _ to: String) throws(ConversionError) {
        guard Glibc.rename(from, to) == 0 else {
            throw ConversionError("cannot move the finished file into place: \(errorText())")
        }
    }

    static func truncate(_ path: String, to length: UInt64) throws(ConversionError) {
        guard Glibc.truncate(path, off_t(length)) == 0 else {
            throw ConversionError("cannot trim the output: \(errorText())")
        }
    }

    static func size(of path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }

    /// Creates a new, empty file that did not exist before (`O_EXCL`), readable and writable.
    static func createExclusive(_ path: String) throws(ConversionError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw ConversionError("cannot create a file in \(directoryName(path)): \(errorText())")
        }
        return fd
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

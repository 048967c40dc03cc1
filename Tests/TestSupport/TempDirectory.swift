#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh directory under the system temporary folder, removed with everything in it when freed.
public final class TempDirectory: @unchecked Sendable {
    /// The absolute path.
    public let path: String

    /// Creates the directory.
    public init(_ label: String = "cafconv-test") {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return mkdtemp(base) != nil
        }
        precondition(made, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { _ = TempDirectory.removeTree(path) }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` (creating parent folders) and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = file(name)
        var parent = ""
        for part in name.split(separator: "/").dropLast() {
            parent += "/" + part
            mkdir(path + parent, 0o755)
        }
        writeFile(target, bytes)
        return target
    }

    /// Removes a file or folder tree.
    @discardableResult
    public static func removeTree(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            if let dir = opendir(path) {
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if name == "." || name == ".." { continue }
                    removeTree(path + "/" + name)
                }
                closedir(dir)
            }
            return rmdir(path) == 0
        }
        return unlink(path) == 0
    }
}

/// Writes `bytes` to `path`, replacing it.
public func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "cannot create \(path)")
    bytes.withUnsafeBytes { raw in
        var done = 0
        while done < raw.count {
            let wrote = write(fd, raw.baseAddress! + done, raw.count - done)
            precondition(wrote > 0, "write failed")
            done += wrote
        }
    }
    close(fd)
}

/// Reads a whole (small) file, or `nil` when it does not exist.
public func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        result += buffer[0..<got]
    }
    return result
}

/// Whether something exists at `path` (without following a final symlink).
public func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

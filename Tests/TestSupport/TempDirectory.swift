import BinaryIO

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
            _ = PathBytes.withCString(path + parent) { mkdir($0, 0o755) }
        }
        writeFile(target, bytes)
        return target
    }

    /// Removes a file or folder tree.
    @discardableResult
    public static func removeTree(_ path: String) -> Bool {
        // Names are bytes (see PathBytes): a name that is not UTF-8 is removed too.
        var info = stat()
        guard PathBytes.withCString(path, { lstat($0, &info) }) == 0 else { return false }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            if let dir = PathBytes.withCString(path, { opendir($0) }) ?? nil {
                while let entry = readdir(dir) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                        PathBytes.decode(raw.prefix { $0 != 0 })
                    }
                    if name == "." || name == ".." { continue }
                    removeTree(path + "/" + name)
                }
                closedir(dir)
            }
            return PathBytes.withCString(path, { rmdir($0) }) == 0
        }
        return PathBytes.withCString(path, { unlink($0) }) == 0
    }
}

/// Writes `bytes` to `path`, replacing it.
public func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = PathBytes.withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) } ?? -1
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
    let fd = PathBytes.withCString(path) { open($0, O_RDONLY) } ?? -1
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
    return PathBytes.withCString(path) { lstat($0, &info) } == 0
}

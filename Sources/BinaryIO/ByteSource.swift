import SystemLayer

/// Random access to the bytes of a file or a buffer, without loading all of it.
///
/// Parsers read a chunk header or a small chunk at a time, so reading a chunk table costs
/// O(chunks), and no allocation follows a size field that the source cannot back.
public protocol ByteSource {
    /// The total number of bytes.
    var length: UInt64 { get }
    /// Reads up to `count` bytes at `offset`; fewer only at the end of the source.
    func read(at offset: UInt64, count: Int) throws(ByteError) -> [UInt8]
}

extension ByteSource {
    /// Reads exactly `count` bytes at `offset` or throws ``ByteError/truncated(offset:needed:available:)``.
    public func readExactly(at offset: UInt64, count: Int) throws(ByteError) -> [UInt8] {
        let bytes = try read(at: offset, count: count)
        guard bytes.count == count else {
            throw .truncated(offset: offset, needed: UInt64(count), available: UInt64(bytes.count))
        }
        return bytes
    }

    /// A cursor over `count` bytes at `offset` (fewer at the end of the source).
    public func cursor(at offset: UInt64, count: Int) throws(ByteError) -> ByteCursor {
        ByteCursor(try read(at: offset, count: count), baseOffset: offset)
    }
}

/// A byte source over bytes in memory.
public struct MemoryByteSource: ByteSource, Sendable {
    /// The bytes.
    public let bytes: [UInt8]
    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var length: UInt64 { UInt64(bytes.count) }

    public func read(at offset: UInt64, count: Int) throws(ByteError) -> [UInt8] {
        guard offset < UInt64(bytes.count), count > 0 else { return [] }
        let start = Int(offset)
        let end = start + min(count, bytes.count - start)
        return Array(bytes[start..<end])
    }
}

/// A byte source over a file, read with `pread`; the descriptor closes when the value is freed.
public final class FileByteSource: ByteSource {
    /// The path the file was opened with, for messages.
    public let path: String
    /// The length of the file when it was opened.
    public let length: UInt64
    private let descriptor: Int32

    /// Opens `path` for reading. Only a regular file is read: a FIFO, a device or a socket is
    /// refused at once (the open never waits for a writer), and so is a folder. `path` may hold
    /// bytes that are not UTF-8 (see ``PathBytes``).
    public init(path: String) throws(ByteError) {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        let opened = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard let fd = opened else { throw .io(path: path, errno: EINVAL, message: "the path holds a NUL byte") }
        guard fd >= 0 else { throw FileByteSource.error(path: path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = FileByteSource.error(path: path)
            close(fd)
            throw error
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            close(fd)
            throw .io(path: path, errno: EISDIR, message: "is a directory")
        default:
            close(fd)
            throw .io(path: path, errno: EINVAL, message: "not a regular file (a FIFO, socket or device)")
        }
        // Reads of a regular file never wait; the flag only mattered for the open.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.path = path
        self.descriptor = fd
        self.length = UInt64(max(0, info.st_size))
    }

    deinit { close(descriptor) }

    /// The open file, for calls that work on descriptors (such as copying it in the kernel). It
    /// stays open, and owned by this source, while the source lives.
    public var fileDescriptor: Int32 { descriptor }

    public func read(at offset: UInt64, count: Int) throws(ByteError) -> [UInt8] {
        guard count > 0, offset < length else { return [] }
        let wanted = Int(min(UInt64(count), length - offset))
        var result = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = Syscall.retryOnInterrupt {
                result.withUnsafeMutableBytes { buffer in
                    pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
                }
            }
            if got < 0 {
                throw FileByteSource.error(path: path)
            }
            if got == 0 { break }
            filled += got
        }
        if filled < wanted { result.removeLast(wanted - filled) }
        return result
    }

    static func error(path: String) -> ByteError {
        let code = errno
        return .io(path: path, errno: code, message: String(cString: strerror(code)))
    }
}

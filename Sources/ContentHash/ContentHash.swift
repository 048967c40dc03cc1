internal import CXXHash
import SystemLayer

/// A digest of a file's bytes, as the manifest records it: `xxh3:` and the 32 hexadecimal digits
/// of its XXH3 128-bit hash (libxxhash's canonical order, high word first). The prefix names the
/// algorithm, so a later change of hash reads old records as "unknown", never as "different".
public struct ContentDigest: Hashable, Sendable, CustomStringConvertible {
    /// The recorded text (`xxh3:` + 32 lowercase hexadecimal digits).
    public let text: String

    /// The prefix of every digest cafconv writes.
    public static let prefix = "xxh3:"

    /// A digest from its recorded text; `nil` unless it is exactly what ``text`` looks like.
    public init?(text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == Self.prefix.utf8.count + 32, text.hasPrefix(Self.prefix),
            utf8.dropFirst(Self.prefix.utf8.count).allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        self.text = text
    }

    init(high: UInt64, low: UInt64) {
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        text = Self.prefix + hex(high) + hex(low)
    }

    public var description: String { text }
}

/// Digests of file contents with libxxhash's XXH3-128 (Debian libxxhash0), opened with `dlopen`
/// at the first digest. Why this hash: it is what decides whether a source or output whose times
/// changed still holds the same bytes, so it runs over every source after a fresh checkout, and
/// at tens of GB/s it costs less than reading the file; 128 bits make an accidental collision
/// negligible at any corpus size. It is not a cryptographic hash: someone who can write both a
/// source and its old bytes' collision can keep a stale output in place; such a person can edit
/// the manifest anyway (see docs/incremental.md), and `--force` ignores every record.
public enum ContentHash {
    /// Why no digest can be made (libxxhash missing), or `nil` when digests work.
    public static var unavailable: String? {
        cafconv_xxh_load().map { String(cString: $0) }
    }

    /// The library's version (e.g. 801 for 0.8.1), 0 when it cannot be loaded.
    public static var libraryVersion: UInt32 { cafconv_xxh_version() }

    /// The digest of `bytes`, or `nil` when libxxhash cannot be loaded.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> ContentDigest? {
        guard cafconv_xxh_load() == nil else { return nil }
        let hash = cafconv_xxh3_128(bytes.baseAddress, bytes.count)
        return ContentDigest(high: hash.high64, low: hash.low64)
    }

    /// The digest of `bytes`, or `nil` when libxxhash cannot be loaded.
    public static func digest(_ bytes: [UInt8]) -> ContentDigest? {
        bytes.withUnsafeBytes { digest($0) }
    }

    /// The block read at a time by a one-off digest (``digest(ofFile:limit:)``): 64 KiB stays
    /// below glibc's mmap threshold (128 KiB), so the block comes from the heap instead of being
    /// mapped and zero-filled per file. Many files are read with one ``Reader`` instead.
    public static let blockSize = 1 << 16

    /// The digest of the regular file at `path` (symlinks followed, a FIFO or device refused
    /// without blocking), read in blocks of ``blockSize``; `nil` when it cannot be read or
    /// libxxhash cannot be loaded. Reads at most `limit` bytes past which it gives `nil`.
    public static func digest(ofFile path: String, limit: UInt64 = .max) -> ContentDigest? {
        Reader(blockSize: blockSize)?.digest(ofFile: path, limit: limit)
    }

    /// ``digest(ofFile:limit:)`` of an open descriptor, read from offset 0 (the descriptor's
    /// own offset is left alone).
    public static func digest(ofDescriptor fd: Int32, limit: UInt64 = .max) -> ContentDigest? {
        Reader(blockSize: blockSize)?.digest(ofDescriptor: fd, limit: limit)
    }

    /// Digests of many files by one thread: the block and the hash state are allocated once
    /// (memory: `blockSize` per reader, whatever the files' sizes) and reused for every file,
    /// instead of being allocated, faulted in and freed per file.
    public final class Reader {
        private let block: UnsafeMutableRawBufferPointer
        private let state: UnsafeMutableRawPointer

        /// `nil` when libxxhash cannot be loaded.
        public init?(blockSize: Int = 1 << 18) {
            guard cafconv_xxh_load() == nil, let state = cafconv_xxh3_create() else { return nil }
            self.state = state
            block = UnsafeMutableRawBufferPointer.allocate(byteCount: max(blockSize, 4096), alignment: 64)
        }

        deinit {
            block.deallocate()
            cafconv_xxh3_free(state)
        }

        /// ``ContentHash/digest(ofFile:limit:)`` with this reader's block.
        public func digest(ofFile path: String, limit: UInt64 = .max) -> ContentDigest? {
            let fd = path.withCString { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
            guard fd >= 0 else { return nil }
            defer { Syscall.close(fd) }
            return digest(ofDescriptor: fd, limit: limit)
        }

        /// ``ContentHash/digest(ofDescriptor:limit:)`` with this reader's block.
        public func digest(ofDescriptor fd: Int32, limit: UInt64 = .max) -> ContentDigest? {
            var info = FileStatus()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            guard cafconv_xxh3_reset(state) == 0 else { return nil }
            var offset: off_t = 0
            var total: UInt64 = 0
            while true {
                let got = Syscall.retryOnInterrupt { pread(fd, block.baseAddress, block.count, offset) }
                if got < 0 { return nil }
                if got == 0 { break }
                total += UInt64(got)
                if total > limit { return nil }
                guard cafconv_xxh3_update(state, block.baseAddress, got) == 0 else { return nil }
                offset += off_t(got)
            }
            let hash = cafconv_xxh3_digest(state)
            return ContentDigest(high: hash.high64, low: hash.low64)
        }
    }
}

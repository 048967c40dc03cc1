@_exported import CSystemCalls

// The one place that imports the C library: every other target imports SystemLayer, which
// re-exports the platform's C module (Glibc, Musl or Darwin) and CSystemCalls (the Linux calls the
// Glibc module does not export, and the signal handler), so the platform choice is made once.
#if canImport(Glibc)
    @_exported import Glibc
#elseif canImport(Musl)
    @_exported import Musl
#elseif canImport(Darwin)
    @_exported import Darwin
#else
    #error("SystemLayer: no C library module for this platform")
#endif

/// The C library's file status record (`struct stat`), named so that it is not confused with the
/// `stat(2)` function of the same name.
public typealias FileStatus = stat

/// The system calls whose plain names clash with cafconv's own methods (`close`, `open`, `read`)
/// and the one EINTR loop every caller shares.
public enum Syscall {
    /// Calls `call` again for as long as it fails with `EINTR` (a signal arrived before it did any
    /// work), and returns its first other result: the call's value, or -1 with `errno` set.
    @inlinable
    public static func retryOnInterrupt<Result: SignedInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }

    /// `close(2)`. In debug builds (the tests), closing a descriptor that is not open traps: a
    /// second close of one number is a bug that, with other threads opening files, closes one of
    /// theirs.
    @discardableResult
    public static func close(_ descriptor: Int32) -> Int32 {
        let result = platformClose(descriptor)
        assert(result == 0 || errno != EBADF, "close(\(descriptor)): not an open descriptor (closed twice?)")
        return result
    }

    /// `open(2)` without a creation mode.
    public static func open(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { platformOpen(path, flags) }

    /// `read(2)`.
    public static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        platformRead(descriptor, buffer, count)
    }
}

// At file scope the plain names are the C library's.
private func platformClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func platformOpen(_ path: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { open(path, flags) }
private func platformRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

extension FileStatus {
    /// The last modification time (`st_mtim` on Linux, `st_mtimespec` on Darwin).
    public var modificationTime: timespec {
        #if canImport(Darwin)
            st_mtimespec
        #else
            st_mtim
        #endif
    }

    /// The last status change time (`st_ctim` on Linux, `st_ctimespec` on Darwin).
    public var changeTime: timespec {
        #if canImport(Darwin)
            st_ctimespec
        #else
            st_ctim
        #endif
    }
}

extension Syscall {
    /// The processors online, at least 1: the default number of jobs.
    public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

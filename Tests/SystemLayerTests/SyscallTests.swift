import SystemLayer
import Testing

@Suite("System layer")
struct SyscallTests {
    @Test("retryOnInterrupt calls again after EINTR and returns the first other result")
    func retriesInterruptedCalls() {
        var calls = 0
        let result = Syscall.retryOnInterrupt { () -> Int in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 5
        }
        #expect(result == 5)
        #expect(calls == 3)
    }

    @Test("retryOnInterrupt returns any other failure at once, errno kept")
    func returnsOtherFailures() {
        var calls = 0
        let result = Syscall.retryOnInterrupt { () -> Int32 in
            calls += 1
            errno = EBADF
            return -1
        }
        #expect(result == -1)
        #expect(errno == EBADF)
        #expect(calls == 1)
    }

    @Test("the funnel's open, read and close are the C library's")
    func openReadClose() throws {
        let descriptor = Syscall.open("/dev/zero", O_RDONLY)
        try #require(descriptor >= 0)
        var bytes = [UInt8](repeating: 0xFF, count: 8)
        let got = bytes.withUnsafeMutableBytes { Syscall.read(descriptor, $0.baseAddress, 8) }
        #expect(got == 8)
        #expect(bytes == [UInt8](repeating: 0, count: 8))
        #expect(Syscall.close(descriptor) == 0)
        // Not closed twice to show it: in debug builds `Syscall.close` traps on a descriptor that is not open.
        #expect(fcntl(descriptor, F_GETFD) == -1 && errno == EBADF, "the descriptor is closed")
    }
}

@Suite("System layer: file status")
struct FileStatusTests {
    @Test("modificationTime is the time utimensat set")
    func modificationTime() throws {
        let path = "/tmp/cafconv-systemlayer-\(getpid())"
        let descriptor = Syscall.retryOnInterrupt { creat(path, 0o600) }
        try #require(descriptor >= 0)
        defer {
            Syscall.close(descriptor)
            unlink(path)
        }
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 123), timespec(tv_sec: 1_500_000_000, tv_nsec: 456)]
        try #require(futimens(descriptor, &times) == 0)
        var info = FileStatus()
        try #require(fstat(descriptor, &info) == 0)
        #expect(info.modificationTime.tv_sec == 1_500_000_000)
        #expect(info.modificationTime.tv_nsec == 456)
        #expect(info.changeTime.tv_sec > 1_500_000_000, "the change time is now")
    }
}

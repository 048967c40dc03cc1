import ContentHash
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ContentHashTests {
    static let available = ContentHash.unavailable == nil

    /// The binding's layout and word order against XXH3-128's published values (xxHash's
    /// `sanity_test_vectors.h` and its README: the empty input hashes to 99aa06d3014798d86001c324468d497f).
    @Test(.enabled(if: available, "libxxhash.so.0 is not installed")) func publishedVectors() throws {
        #expect(ContentHash.digest([])?.text == "xxh3:99aa06d3014798d86001c324468d497f")
    }

    /// A file read in blocks gives the digest of its bytes in one piece, across block edges.
    @Test(.enabled(if: available, "libxxhash.so.0 is not installed")) func fileMatchesBytes() throws {
        for size in [0, 1, ContentHash.blockSize - 1, ContentHash.blockSize, ContentHash.blockSize * 2 + 17] {
            var bytes = [UInt8](repeating: 0, count: size)
            var state: UInt32 = 12345
            for index in bytes.indices {
                state = state &* 1_103_515_245 &+ 12345
                bytes[index] = UInt8(truncatingIfNeeded: state >> 16)
            }
            let path = "/tmp/cafconv-contenthash-\(getpid())-\(size)"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(fd >= 0)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            defer { unlink(path) }
            #expect(ContentHash.digest(ofFile: path) == ContentHash.digest(bytes), "size \(size)")
            #expect(ContentHash.digest(ofFile: path, limit: UInt64(max(0, size - 1))) == (size == 0 ? ContentHash.digest([]) : nil))
            if size > 0 {
                bytes[size / 2] ^= 1
                #expect(ContentHash.digest(ofFile: path) != ContentHash.digest(bytes))
            }
        }
    }

    @Test func recordedText() {
        #expect(ContentDigest(text: "xxh3:99aa06d3014798d86001c324468d497f") != nil)
        #expect(ContentDigest(text: "xxh3:99AA06d3014798d86001c324468d497f") == nil)
        #expect(ContentDigest(text: "xxh3:99aa06d3014798d86001c324468d497") == nil)
        #expect(ContentDigest(text: "md5:99aa06d3014798d86001c324468d497f") == nil)
        #expect(ContentDigest(text: "") == nil)
    }

    @Test func notARegularFile() {
        #expect(ContentHash.digest(ofFile: "/tmp") == nil)
        #expect(ContentHash.digest(ofFile: "/nonexistent/file") == nil)
    }
}

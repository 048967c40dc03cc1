import ContentHash
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ContentHashTests {
    static let available = ContentHash.unavailable == nil

    /// A file in /tmp holding `bytes`, named after this process and `label`.
    static func written(_ bytes: [UInt8], _ label: String) -> String {
        let path = "/tmp/cafconv-contenthash-\(getpid())-\(label)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return path
    }

    /// The binding's layout and word order against XXH3-128's published values (xxHash's
    /// `sanity_test_vectors.h` and its README: the empty input hashes to 99aa06d3014798d86001c324468d497f).
    @Test(.enabled(if: available, "libxxhash.so.0 is not installed")) func publishedVectors() throws {
        #expect(ContentHash.digest([])?.text == "xxh3:99aa06d3014798d86001c324468d497f")
    }

    /// A digest long enough for the vector code (AVX2/AVX-512 when libxxhash's dispatcher is
    /// taken) equals the one the portable SSE2 code gives, pinned from libxxhash 0.8.1's
    /// `XXH3_128bits`: manifests recorded before the dispatcher was used stay valid.
    @Test(.enabled(if: available, "libxxhash.so.0 is not installed")) func vectorCodeSameDigest() throws {
        let bytes = (0..<100_003).map { UInt8(truncatingIfNeeded: UInt32(truncatingIfNeeded: UInt64($0) &* 2_654_435_761) >> 13) }
        let pinned = "xxh3:19bacb7bf95a97ea25ba638a3c66d20f"
        #expect(ContentHash.digest(bytes)?.text == pinned)
        let path = Self.written(bytes, "vector")
        defer { unlink(path) }
        #expect(ContentHash.digest(ofFile: path)?.text == pinned)
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
            let path = Self.written(bytes, "\(size)")
            defer { unlink(path) }
            #expect(ContentHash.digest(ofFile: path) == ContentHash.digest(bytes), "size \(size)")
            #expect(ContentHash.digest(ofFile: path, limit: UInt64(max(0, size - 1))) == (size == 0 ? ContentHash.digest([]) : nil))
            if size > 0 {
                bytes[size / 2] ^= 1
                #expect(ContentHash.digest(ofFile: path) != ContentHash.digest(bytes))
            }
        }
    }

    /// One reader digests many files with one block and one hash state: each digest is that of
    /// its own file's bytes alone (the state starts afresh), whatever came before, and a file that
    /// cannot be read leaves the next one unaffected.
    @Test(.enabled(if: available, "libxxhash.so.0 is not installed")) func readerReusedAcrossFiles() throws {
        let reader = try #require(ContentHash.Reader(blockSize: 4096))
        let sizes = [5000, 0, 4096, 3, 9000, 4097]
        for (round, size) in sizes.enumerated() {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
            let path = Self.written(bytes, "reader-\(round)")
            defer { unlink(path) }
            #expect(reader.digest(ofFile: path) == ContentHash.digest(bytes), "file \(round), \(size) bytes")
            #expect(reader.digest(ofFile: path, limit: UInt64(max(0, size - 1))) == (size == 0 ? ContentHash.digest([]) : nil))
            #expect(reader.digest(ofFile: "/tmp") == nil)
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

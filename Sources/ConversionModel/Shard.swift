/// `--shard K/N`: the share of a run's files that shard `K` of `N` converts, so that N machines
/// (a CI matrix) split one tree. A file belongs to shard `1 + h mod N`, where `h` is a hash of its
/// output path relative to the output root (the path its manifest records): FNV-1a over the
/// path's UTF-8 bytes, then SplitMix64's finaliser so that every bit of the hash counts. The
/// share of a file depends on its own path only, never on which other files exist or their
/// order, so adding files moves no other file to another shard, and every machine, Swift
/// version and run agrees (Swift's `Hasher` is seeded per process and could not be used).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// This shard, 1...count.
    public var index: Int
    /// How many shards there are.
    public var count: Int

    /// Parses `K/N` (1 <= K <= N), or throws a sentence saying what is wrong.
    public init(parsing text: String) throws(DataFormatError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw DataFormatError("--shard \(text): expected K/N, as in --shard 2/4 (the second of four shards)")
        }
        guard count >= 1, (1...count).contains(index) else {
            throw DataFormatError("--shard \(text): K must be from 1 to N, and N at least 1")
        }
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }

    /// The stable 64-bit hash of a relative path.
    public static func hash(_ path: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        // SplitMix64's finaliser.
        hash ^= hash >> 30
        hash &*= 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 27
        hash &*= 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return hash
    }

    /// Whether the file whose output is at `relative` (to the output root) is this shard's.
    public func contains(_ relative: String) -> Bool { Int(Self.hash(relative) % UInt64(count)) == index - 1 }
}

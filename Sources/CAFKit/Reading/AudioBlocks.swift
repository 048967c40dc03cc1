import BinaryIO

extension CAFFile {
    /// Calls `body` with the audio bytes in order, `blockSize` bytes at a time (the last block
    /// may be shorter). Memory stays bounded by `blockSize` whatever the file size.
    public func forEachAudioBlock(
        in source: some ByteSource, blockSize: Int = 1 << 20,
        _ body: (ArraySlice<UInt8>) throws -> Void
    ) throws {
        let step = max(blockSize, 1)
        var offset = audioOffset
        let end = audioOffset + audioBytes
        while offset < end {
            let count = Int(min(UInt64(step), end - offset))
            let block = try source.readExactly(at: offset, count: count)
            try body(block[...])
            offset += UInt64(count)
        }
    }
}

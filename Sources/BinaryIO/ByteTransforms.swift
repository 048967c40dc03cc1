/// In-place transforms of sample bytes, written as plain loops over machine words so that the
/// optimiser vectorises them.
public enum ByteTransforms {
    /// Reverses the bytes of every `width`-byte sample (2, 3, 4 or 8) in `bytes`, turning
    /// little-endian samples into big-endian ones and back. A partial last sample is left alone.
    public static func swap(width: Int, _ bytes: UnsafeMutableRawBufferPointer) {
        switch width {
        case 2: swapWords(bytes, as: UInt16.self)
        case 4: swapWords(bytes, as: UInt32.self)
        case 8: swapWords(bytes, as: UInt64.self)
        case 3:
            var index = 0
            while index + 3 <= bytes.count {
                let first = bytes[index]
                bytes[index] = bytes[index + 2]
                bytes[index + 2] = first
                index += 3
            }
        default: break
        }
    }

    /// Flips the top bit of every byte: unsigned 8-bit samples become signed ones and back.
    public static func flipSign(_ bytes: UnsafeMutableRawBufferPointer) {
        let done = forEachWord(bytes, as: UInt64.self) { $0 ^= 0x8080_8080_8080_8080 }
        for index in done..<bytes.count { bytes[index] ^= 0x80 }
    }

    private static func swapWords<Word: FixedWidthInteger>(_ bytes: UnsafeMutableRawBufferPointer, as type: Word.Type) {
        _ = forEachWord(bytes, as: type) { $0 = $0.byteSwapped }
    }

    /// Applies `body` to every whole `Word` of `bytes`; returns the bytes covered.
    private static func forEachWord<Word: FixedWidthInteger>(
        _ bytes: UnsafeMutableRawBufferPointer, as type: Word.Type, _ body: (inout Word) -> Void
    ) -> Int {
        let size = MemoryLayout<Word>.size
        let count = bytes.count / size
        guard count > 0, let base = bytes.baseAddress else { return 0 }
        if Int(bitPattern: base) % MemoryLayout<Word>.alignment == 0 {
            base.withMemoryRebound(to: Word.self, capacity: count) { words in
                for index in 0..<count { body(&words[index]) }
            }
        } else {
            for index in 0..<count {
                var value = bytes.loadUnaligned(fromByteOffset: index * size, as: Word.self)
                body(&value)
                bytes.storeBytes(of: value, toByteOffset: index * size, as: Word.self)
            }
        }
        return count * size
    }
}

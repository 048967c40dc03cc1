import SystemLayer

/// A path compared byte by byte. Swift's `String` equality is Unicode canonical equivalence, so
/// `"é"` (NFC) and `"e\u{301}"` (NFD) would be one key; on Linux they are two files.
package struct PathKey: Hashable, Comparable {
    package let text: String

    package init(_ text: String) { self.text = text }

    package static func == (lhs: PathKey, rhs: PathKey) -> Bool { compare(lhs.text, rhs.text) == 0 }

    /// Byte-wise comparison of the UTF-8 of two strings (memcmp on native strings).
    package static func compare(_ lhs: String, _ rhs: String) -> Int {
        let fast = lhs.utf8.withContiguousStorageIfAvailable { a in
            rhs.utf8.withContiguousStorageIfAvailable { b -> Int in
                let common = min(a.count, b.count)
                if common > 0, let pa = a.baseAddress, let pb = b.baseAddress {
                    let order = memcmp(pa, pb, common)
                    if order != 0 { return Int(order) }
                }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
        }
        if let order = fast ?? nil { return order }
        if lhs.utf8.elementsEqual(rhs.utf8) { return 0 }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? -1 : 1
    }

    package func hash(into hasher: inout Hasher) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in text.utf8 { hasher.combine(byte) }
        }
    }

    /// A stable order (by the UTF-8 of the text): the manifest is the same whatever `-j` is.
    package static func < (lhs: PathKey, rhs: PathKey) -> Bool { compare(lhs.text, rhs.text) < 0 }
}

// libFuzzer entry point for the manifest parser (Sources/IncrementalState/ManifestFormat.swift).
// Built by Fuzz/build.sh manifest: ManifestFormat.swift is compiled into this module with an
// instrumented BinaryIO (for PathBytes), so no file system code is involved.
import BinaryIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    // Whole, and fed in uneven pieces: the streaming parser must give the same answer.
    let whole = ManifestFormat.parse(bytes)
    var parser = ManifestFormat.Parser()
    var offset = 0
    var step = 1
    while offset < bytes.count {
        let end = min(bytes.count, offset + step)
        parser.feed(bytes[offset..<end])
        offset = end
        step = step * 3 % 97 + 1
    }
    let pieces = parser.finish()
    precondition(pieces.seal == whole.seal && pieces.records == whole.records, "streaming differs from whole")
    for record in whole.records {
        // The security rule: no kept record may leave the manifest's folder.
        precondition(ManifestFormat.isSafeOutputPath(record.output), "unsafe output path kept")
        let raw = PathBytes.encode(record.output)
        precondition(!raw.contains(0) && raw.first != 0x2F, "NUL or absolute path kept")
        precondition(!raw.split(separator: 0x2F).contains { $0.elementsEqual([0x2E, 0x2E]) }, "'..' kept")
        // The law: a kept record written out reads back the same.
        let again = ManifestFormat.parse(
            Array("cafconv-manifest 2\n".utf8) + ManifestFormat.line(record)
        ).records
        precondition(
            again.count == 1 && PathBytes.encode(again[0].output) == raw
                && PathBytes.encode(again[0].source) == PathBytes.encode(record.source), "record does not round-trip")
    }
    // Kept as bytes (a lazy load that wants no key): each kept line is exactly what the writer
    // writes for its record, and kept plus decoded records are the whole file's records.
    var lazy = ManifestFormat.Parser(wanted: [])
    lazy.feed(bytes)
    let raw = lazy.takeRaw()
    let lazyResult = lazy.finish()
    precondition(lazyResult.seal == whole.seal, "a lazy parse judges the file differently")
    let header = Array("cafconv-manifest 2\n".utf8)
    var kept: [ManifestFormat.Record] = []
    var start = 0
    for (index, byte) in raw.enumerated() where byte == 0x0A {
        let line = Array(raw[start...index])
        let records = ManifestFormat.parse(header + line).records
        precondition(records.count == 1 && ManifestFormat.line(records[0]) == line, "a kept line is not as written")
        kept += records
        start = index + 1
    }
    if lazy.ordered && lazyResult.seal != .damaged {
        func sortedKeys(_ records: [ManifestFormat.Record]) -> [[UInt8]] {
            records.map { Array($0.output.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        }
        precondition(sortedKeys(kept + lazyResult.records) == sortedKeys(whole.records), "lazy records differ")
    }
    // A manifest sealed by the writer is read back sealed.
    let body = Array("cafconv-manifest 2\n".utf8) + whole.records.flatMap(ManifestFormat.line)
    let sealed = ManifestFormat.parse(body + Array(ManifestFormat.seal(body).utf8))
    precondition(sealed.seal == .sealed && sealed.records.count == whole.records.count, "resealed file not sealed")
    return 0
}

// libFuzzer entry point for the CAF reader, chunk parser, validator and writer.
// Built by Fuzz/build-caf.sh against instrumented BinaryIO and CAFKit modules.
import BinaryIO
import CAFKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let source = MemoryByteSource(bytes)
    guard let file = try? CAFFile(reading: source) else { return 0 }
    _ = CAFValidator.validate(file, expecting: CAFExpectations(formatID: .lpcm, byteOrder: .little, validFrames: 1))
    _ = file.validFrames
    if let layout = PCMLayout(file.audioDescription), layout.bytesPerFrame > 0 {
        let audio = bytes[Int(min(file.audioOffset, UInt64(bytes.count)))...].prefix(4096)
        if layout.isFloat { _ = layout.decodeFloats(audio) } else { _ = layout.decodeIntegers(audio) }
    }
    // A tiny body limit makes bodies "not loaded", so that path is exercised too.
    for limit in [CAFDocument.defaultBodyLimit, 64] {
        guard let document = try? CAFDocument(reading: source, loadingAudio: limit > 64, bodyLimit: limit) else { continue }
        _ = CAFValidator.validate(document)
        let contents = document.contents
        _ = (contents.packetTable?.totalByteSize, contents.channelLayout?.channelCount, contents.alacConfiguration,
             contents.markers.count, contents.regions.count, contents.strings?.string(for: 0), contents.infoStrings?["k"])
        // The law: a file read without warnings is written back byte for byte.
        if document.warnings.isEmpty {
            let rewritten = try? CAFWriter.bytes(of: contents, copyingFrom: source)
            precondition(rewritten == bytes, "rewrite differs from the input")
        }
    }
    return 0
}

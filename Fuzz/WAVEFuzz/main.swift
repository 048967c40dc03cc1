// libFuzzer entry point for the WAVE and AIFF readers. Built by Fuzz/build-wave.sh, which compiles
// the BinaryIO and WAVEKit sources as static modules with the same sanitizers.
import BinaryIO
import WAVEKit

/// Feeds one input to both readers and touches every typed accessor.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let source = MemoryByteSource(bytes)
    _ = Container.detect(Array(bytes.prefix(12)))
    if let file = try? WAVEFile(reading: source) {
        var sink = 0
        sink &+= file.chunks.count &+ file.warnings.count &+ Int(truncatingIfNeeded: file.frames ?? 0)
        sink &+= file.formatID.count &+ (file.bitsPerChannel ?? 0) &+ (file.validBitsPerSample ?? 0)
        sink &+= file.isFloat ? 1 : 0
        sink &+= file.sampleByteOrder == nil ? 0 : 1
        sink &+= file.format.encodingName.count &+ Int(file.format.effectiveTag)
        sink &+= file.format.isLinearPCM ? 1 : 0
        sink &+= Int(file.factSampleLength ?? 0)
        sink &+= Int(truncatingIfNeeded: file.ds64?.sampleCount ?? 0)
        sink &+= file.info.count &+ file.infoStrings.reduce(0) { $0 &+ $1.key.count &+ $1.value.count }
        let adtl = file.associatedData
        sink &+= adtl.labels.count &+ adtl.notes.count &+ adtl.labeledTexts.count
        sink &+= file.broadcast.map { $0.description.count &+ $0.codingHistory.count } ?? 0
        sink &+= file.sampler?.loops.count ?? 0
        sink &+= file.cuePoints.count &+ file.unknownChunks.count
        sink &+= file.warnings.reduce(0) { $0 &+ $1.description.count }
        sink &+= file.chunks.reduce(0) { $0 &+ $1.type.description.count &+ Int(truncatingIfNeeded: $1.bodyOffset) }
        if sink == 0x7FFF_FFFF_FFFF { print(sink) }
    }
    if let file = try? AIFFFile(reading: source) {
        var sink = 0
        sink &+= file.chunks.count &+ file.warnings.count &+ Int(truncatingIfNeeded: file.frames)
        sink &+= file.formatID.count &+ (file.bitsPerChannel ?? 0) &+ file.channels
        sink &+= file.isFloat ? 1 : 0
        sink &+= file.byteOrder == nil ? 0 : 1
        sink &+= file.sampleRate.isNaN ? 1 : 0
        sink &+= file.compressionType.trimmed.count &+ (file.common.compressionName?.count ?? 0)
        sink &+= Int(truncatingIfNeeded: file.audioOffset &+ file.audioBytes)
        sink &+= file.markers.reduce(0) { $0 &+ $1.name.count }
        sink &+= Int(file.instrument?.gain ?? 0) &+ Int(file.formatVersion ?? 0)
        sink &+= file.texts.reduce(0) { $0 &+ $1.text.count } &+ file.comments.reduce(0) { $0 &+ $1.text.count }
        sink &+= file.unknownChunks.count
        sink &+= file.warnings.reduce(0) { $0 &+ $1.description.count }
        if sink == 0x7FFF_FFFF_FFFF { print(sink) }
    }
    if bytes.count >= 10 { _ = doubleFromExtended80(Array(bytes.prefix(10))) }
    return 0
}

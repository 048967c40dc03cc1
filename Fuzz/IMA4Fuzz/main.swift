// libFuzzer entry point for the IMA4 codec: the pakt-trimmed stream reader on CAF bytes, the raw
// packet decoder on any bytes, and the encoder on any samples, whose output must decode to the
// right length and alike under both preamble rules. Built by Fuzz/build-ima4.sh.
import BinaryIO
import CAFKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let source = MemoryByteSource(bytes)
    // 1. A CAF file: whatever it declares, decoding stays within the file and delivers exactly
    //    the valid frames, or throws.
    if let file = try? CAFFile(reading: source), let stream = try? IMA4Stream(file) {
        var delivered: UInt64 = 0
        if (try? stream.decode(from: source, packetsPerBlock: 3, { delivered += UInt64($0.count) })) != nil {
            precondition(delivered == stream.validFrames * UInt64(stream.channels), "wrong frame count")
        }
    }
    guard let first = bytes.first else { return 0 }
    // 2. Raw packets for 1-8 channels, both rules.
    let channels = Int(first & 7) + 1
    for rule in [IMA4Decoder.PreambleRule.continueWhenClose, .reload] {
        var decoder = IMA4Decoder(channels: channels, rule: rule)
        var output: [Int16] = []
        let packets = decoder.decode(bytes.dropFirst(), appendingTo: &output)
        precondition(output.count == packets * 64 * channels && packets == (bytes.count - 1) / (34 * channels))
    }
    // 3. The encoder on the bytes read as 16-bit samples (short inputs only, to stay fast).
    guard bytes.count <= 4096 else { return 0 }
    let samples = stride(from: 1, to: bytes.count - 1, by: 2).map {
        Int16(bitPattern: UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]))
    }
    let frames = samples.count / channels
    let whole = Array(samples.prefix(frames * channels))
    guard
        let file = try? CAFWriter.ima4Bytes(
            sampleRate: 44_100, channels: channels, samples: whole,
            options: IMA4Encoder.Options(searchWidth: Int(first >> 3) % 8 + 1))
    else {
        preconditionFailure("the writer refused valid input")
    }
    guard let caf = try? CAFFile(reading: MemoryByteSource(file)), let stream = try? IMA4Stream(caf),
        let ffmpegRule = try? stream.decodeAll(from: MemoryByteSource(file)),
        let reloadRule = try? stream.decodeAll(from: MemoryByteSource(file), rule: .reload)
    else {
        preconditionFailure("our own file does not read back")
    }
    precondition(ffmpegRule.count == whole.count, "decoded length differs from the input")
    precondition(ffmpegRule == reloadRule, "the output depends on the decoder's preamble rule")
    return 0
}

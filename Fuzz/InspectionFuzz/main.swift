// libFuzzer entry point for the Inspection module: `cafconv info` over arbitrary bytes, whatever
// container the magic bytes name (CAF, WAV, RIFX, RF64, AIFF, AIFF-C), rendered as text (the
// block and the --brief line) and as JSON exactly as `info` prints them. Built by Fuzz/build.sh
// inspection with instrumented CAFKit, WAVEKit, Inspection and JSONKit.
import BinaryIO
import Inspection
import JSONKit

/// Whether `text` holds something a terminal obeys or a log splits at.
func isUnsafe(_ text: String) -> Bool {
    text.unicodeScalars.contains { scalar in
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let report = Inspector.inspect(MemoryByteSource(bytes), path: "fuzz.caf")
    // The text output: no line may hold a control character (a forged line, a terminal command).
    for line in InfoText.block(report) + [InfoText.briefLine(report)] {
        precondition(!isUnsafe(line), "raw control character in info's text output")
    }
    // The JSON output: always encodable, one document.
    guard let json = try? JSONValueEncoder().text(report) else { preconditionFailure("info --json failed") }
    precondition(json.hasPrefix("{") && json.hasSuffix("}"), "info --json is not one object")
    return 0
}

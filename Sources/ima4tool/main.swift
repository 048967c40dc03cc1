// A developer tool for the IMA4 codec, kept out of the cafconv command line: bench/ima4-quality.sh
// uses it to encode and decode with CAFKit alone.
//
//   ima4tool encode [--width N] [--range R] CHANNELS RATE IN.s16le OUT.caf
//   ima4tool decode IN.caf OUT.s16le
import BinaryIO
import CAFKit
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ima4tool: \(message)\n".utf8))
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var options = IMA4Encoder.Options.standard
@MainActor func take(_ flag: String) -> Int? {
    guard let position = arguments.firstIndex(of: flag), position + 1 < arguments.count else { return nil }
    let value = Int(arguments[position + 1])
    arguments.removeSubrange(position...position + 1)
    return value
}
let width = take("--width")
let range = take("--range")
options = IMA4Encoder.Options(searchWidth: width ?? options.searchWidth, codeRange: range ?? options.codeRange)

switch arguments.first {
case "encode":
    guard arguments.count == 5, let channels = Int(arguments[1]), let rate = Double(arguments[2]) else {
        fail("usage: ima4tool encode [--width N] [--range R] CHANNELS RATE IN.s16le OUT.caf")
    }
    guard let data = FileManager.default.contents(atPath: arguments[3]) else { fail("cannot read \(arguments[3])") }
    let samples = data.withUnsafeBytes { raw in
        (0..<raw.count / 2).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self)) }
    }
    let frames = samples.count / channels
    var output: [UInt8] = []
    var offset = 0
    let block = 65536 * channels
    do {
        try CAFWriter.writeIMA4(
            sampleRate: rate, channels: channels, frames: UInt64(frames), options: options,
            nextBlock: {
                let end = min(offset + block, frames * channels)
                defer { offset = end }
                return samples[offset..<end]
            },
            to: { output.append(contentsOf: $0) })
    } catch { fail("\(error)") }
    guard FileManager.default.createFile(atPath: arguments[4], contents: Data(output)) else {
        fail("cannot write \(arguments[4])")
    }
case "decode":
    guard arguments.count == 3 else { fail("usage: ima4tool decode IN.caf OUT.s16le") }
    do {
        let source = try FileByteSource(path: arguments[1])
        let stream = try IMA4Stream(try CAFFile(reading: source))
        var bytes: [UInt8] = []
        try stream.decode(from: source) { block in
            for sample in block {
                let bits = UInt16(bitPattern: sample)
                bytes.append(UInt8(bits & 0xFF))
                bytes.append(UInt8(bits >> 8))
            }
        }
        guard FileManager.default.createFile(atPath: arguments[2], contents: Data(bytes)) else {
            fail("cannot write \(arguments[2])")
        }
    } catch { fail("\(arguments[1]): \(error)") }
default:
    fail("usage: ima4tool encode|decode ...")
}

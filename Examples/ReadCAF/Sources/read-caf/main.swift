// read-caf: describes and validates CAF files with CAFKit.
//
//     read-caf FILE...     describe and validate each file; exit 1 if any is unreadable or invalid
//     read-caf --demo      write a small CAF in memory, read it back and validate it
import BinaryIO
import CAFKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads `source` with every chunk body parsed, prints what it holds and every broken rule, and
/// returns whether the file is valid.
func check(_ source: some ByteSource, named name: String) -> Bool {
    let document: CAFDocument
    do {
        document = try CAFDocument(reading: source)
    } catch {
        // A CAFError says what was expected and what was found, at which byte.
        print("\(name): not readable as CAF: \(error)")
        return false
    }
    let file = document.file
    let format = file.audioDescription
    let frames = file.validFrames.map { "\($0) valid frames" } ?? "an unknown number of frames"
    print("\(name): \(format.formatName), \(format.channelsPerFrame) ch, \(format.sampleRate) Hz, \(frames)")
    for warning in document.warnings {
        print("  warning: \(warning)")
    }
    // The rules of the CAF specification, plus what this program expects of its files.
    let problems = CAFValidator.validate(document, expecting: CAFExpectations(formatID: .lpcm))
    for problem in problems {
        print("  \(problem)")
    }
    return problems.isEmpty
}

/// One second of a 440 Hz sine, 16-bit little-endian mono at 8000 Hz, as a whole CAF file.
func demoFile() throws -> [UInt8] {
    let description = AudioDescription.linearPCM(
        sampleRate: 8000, channels: 1, bits: 16, isFloat: false, byteOrder: .little)
    var audio: [UInt8] = []
    for frame in 0..<8000 {
        let sample = Int16(12000 * sin(2 * Double.pi * 440 * Double(frame) / 8000))
        let bits = UInt16(bitPattern: sample)
        audio += [UInt8(bits & 0xFF), UInt8(bits >> 8)]
    }
    let contents = CAFContents(chunks: [
        .description(description),
        .audioData(AudioDataChunk(audio: .bytes(audio))),
    ])
    return try CAFWriter.bytes(of: contents)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("-h") || arguments.contains("--help") {
    print("usage: read-caf FILE... | read-caf --demo")
    exit(arguments.isEmpty ? 64 : 0)
}
var allValid = true
for argument in arguments {
    if argument == "--demo" {
        do {
            let bytes = try demoFile()
            allValid = check(MemoryByteSource(bytes), named: "demo (\(bytes.count) bytes)") && allValid
        } catch {
            print("demo: cannot write: \(error)")
            allValid = false
        }
        continue
    }
    do {
        // FileByteSource reads with pread at offsets: the audio is never loaded.
        let source = try FileByteSource(path: argument)
        allValid = check(source, named: argument) && allValid
    } catch {
        print("\(argument): cannot open: \(error)")
        allValid = false
    }
}
exit(allValid ? 0 : 1)

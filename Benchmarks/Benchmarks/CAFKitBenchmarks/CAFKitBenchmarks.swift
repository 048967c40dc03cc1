import Benchmark
// Micro-benchmarks for the pieces of cafconv that run per byte or per chunk: parsing a CAF chunk
// table, swapping and sign-flipping sample bytes in place, and decoding samples to compare them. Throughput is in iterations
// per second; each benchmark's name says how many bytes one iteration handles.
import BinaryIO
import CAFKit

/// A CAF file with a 'desc' chunk, `count` small chunks of kinds cafconv keeps as they are, and a
/// short 'data' chunk: a chunk table that is long on purpose.
func cafWithManyChunks(_ count: Int) -> [UInt8] {
    var bytes: [UInt8] = Array("caff".utf8) + [0, 1, 0, 0]
    func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
    func chunk(_ type: String, _ body: [UInt8]) {
        bytes.append(contentsOf: Array(type.utf8))
        append(Int64(body.count))
        bytes.append(contentsOf: body)
    }
    var desc: [UInt8] = []
    withUnsafeBytes(of: Double(44100).bitPattern.bigEndian) { desc.append(contentsOf: $0) }
    for field: UInt32 in [0x6C70_636D, 2, 4, 1, 2, 16] {  // 'lpcm', little-endian, 4 bytes, 1 frame, 2 ch, 16 bits
        withUnsafeBytes(of: field.bigEndian) { desc.append(contentsOf: $0) }
    }
    chunk("desc", desc)
    let kinds = ["free", "user", "uuid", "info"]
    for index in 0..<count {
        chunk(kinds[index % kinds.count], [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 16 + index % 32))
    }
    chunk("data", [0, 0, 0, 0] + [UInt8](repeating: 0x55, count: 4096))
    return bytes
}

/// `count` bytes of deterministic sample data (a 32-bit LCG, no Foundation).
func sampleBytes(_ count: Int) -> [UInt8] {
    var state: UInt32 = 2026
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

/// A copy of `input` with every `width`-byte sample reversed, by cafconv's own transform.
func swapped(_ input: [UInt8], width: Int) -> [UInt8] {
    var output = input
    output.withUnsafeMutableBytes { ByteTransforms.swap(width: width, $0) }
    return output
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )

    let caf = cafWithManyChunks(4096)
    Benchmark("CAF chunk table, 4096 chunks (\(caf.count / 1024) KiB in memory)") { benchmark in
        let source = MemoryByteSource(caf)
        for _ in benchmark.scaledIterations {
            blackHole(try CAFFile(reading: source))
        }
    }

    let oneMiB = 1 << 20
    let samples16 = sampleBytes(oneMiB)
    let samples24 = sampleBytes(3 * oneMiB / 2)  // 1.5 MiB: a whole number of 24-bit samples

    // In place, as the converter does it on each 1 MiB block it reads.
    for (width, input) in [(2, samples16), (3, samples24), (4, samples16)] {
        Benchmark("Byte swap in place, \(width * 8)-bit samples (\(input.count / 1024) KiB)") { benchmark in
            var buffer = input
            for _ in benchmark.scaledIterations {
                buffer.withUnsafeMutableBytes { ByteTransforms.swap(width: width, $0) }
                blackHole(buffer)
            }
        }
    }

    Benchmark("Sign flip in place, 8-bit samples (1 MiB)") { benchmark in
        var buffer = samples16
        for _ in benchmark.scaledIterations {
            buffer.withUnsafeMutableBytes { ByteTransforms.flipSign($0) }
            blackHole(buffer)
        }
    }

    for width in [2, 3] {
        let little = width == 2 ? samples16 : samples24
        let big = swapped(little, width: width)
        let bits = width * 8
        let le = PCMLayout(bits: bits, isFloat: false, byteOrder: .little, channels: 2)
        let be = PCMLayout(bits: bits, isFloat: false, byteOrder: .big, channels: 2)
        Benchmark("Compare samples, \(bits)-bit little vs big (\(little.count / 1024) KiB each)") { benchmark in
            for _ in benchmark.scaledIterations {
                let same = le.decodeIntegers(little[...]) == be.decodeIntegers(big[...])
                precondition(same, "the swapped buffer must decode to the same samples")
                blackHole(same)
            }
        }
    }

    let floats = PCMLayout(bits: 32, isFloat: true, byteOrder: .little, channels: 2)
    let floatsBig = PCMLayout(bits: 32, isFloat: true, byteOrder: .big, channels: 2)
    let samples32Big = swapped(samples16, width: 4)
    Benchmark("Compare samples, 32-bit float little vs big (1024 KiB each)") { benchmark in
        for _ in benchmark.scaledIterations {
            let left = floats.decodeFloats(samples16[...]).map { $0.bitPattern }
            let right = floatsBig.decodeFloats(samples32Big[...]).map { $0.bitPattern }
            precondition(left == right, "the swapped buffer must decode to the same samples")
            blackHole(left)
        }
    }
}

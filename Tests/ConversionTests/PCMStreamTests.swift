import BinaryIO
import CAFKit
import ConversionModel
import Testing

@testable import Transcoding

/// The proof a streamed CAF gets (`PCMStream`, `convert -o -` with linear PCM): each block packed
/// into the output's bytes is decoded again by CAFKit and compared with the reference's block,
/// and the two must hold as many frames. The end-to-end tests cannot make a source fail half-way
/// through a stream; these feed the block's check the faults directly.
@Suite("Streamed linear PCM: the block proof")
struct PCMStreamTests {
    /// Every linear PCM layout `-d` names, both byte orders.
    static let layouts: [PCMLayout] =
        [8, 16, 24, 32].flatMap { bits in
            [ByteOrder.little, .big].map { PCMLayout(bits: bits, isFloat: false, byteOrder: $0, channels: 2) }
        }
        + [32, 64].flatMap { bits in
            [ByteOrder.little, .big].map { PCMLayout(bits: bits, isFloat: true, byteOrder: $0, channels: 2) }
        }

    /// A block of 50 frames of left-justified integers with both extremes, and the same as floats.
    static func block() -> StreamBlock {
        var block = StreamBlock(channels: 2, blockSamples: 100)
        let ints: [Int32] =
            [.max, .min, 0, -1, 1 << 8, -(1 << 16)] + (0..<94).map { Int32(truncatingIfNeeded: $0 &* 0x2F3A_1B7D) }
        block.ints = ints
        block.referenceInts = ints
        for index in 0..<100 { block.doubles[index] = SampleScaling.float(ints[index]) }
        block.referenceDoubles = block.doubles
        return block
    }

    @Test("each block packed into the output's bytes decodes, by CAFKit, to the reference's samples", arguments: layouts)
    func packedBlocksDecode(_ layout: PCMLayout) {
        var block = Self.block()
        let route: SampleRoute = layout.isFloat ? .integersToFloats : .integers
        let bytes = block.pack(50, route: route, layout: layout)
        #expect(bytes.count == 50 * layout.bytesPerFrame)
        #expect(block.firstDifference(bytes, frames: 50, layout: layout, referenceIsFloat: false) == nil)
    }

    @Test("a byte that differs from the reference's sample is caught, at its sample", arguments: layouts)
    func wrongSampleCaught(_ layout: PCMLayout) throws {
        var block = Self.block()
        var bytes = block.pack(50, route: layout.isFloat ? .integersToFloats : .integers, layout: layout)
        // The most significant byte of sample 37 (frame 18, channel 2).
        let width = layout.bits / 8
        bytes[37 * width + (layout.byteOrder == .big ? 0 : width - 1)] ^= 0x40
        let difference = try #require(block.firstDifference(bytes, frames: 50, layout: layout, referenceIsFloat: false))
        #expect(difference.index == 37)
    }

    @Test("a reference with fewer or more frames than the encoder's audio fails the stream with both counts")
    func frameCountsDisagree() throws {
        var block = StreamBlock(channels: 1, blockSamples: 10)
        let short = MemoryFrames([Double](repeating: 0.25, count: 7), channels: 1, sampleRate: 8000)
        #expect(throws: ConversionError.proof(.frameCount(found: 110, expected: 107, decoder: "memory"))) {
            try block.check(short, frames: 10, from: 100)
        }
        let long = MemoryFrames([Double](repeating: 0.25, count: 25), channels: 1, sampleRate: 8000)
        try block.check(long, frames: 10, from: 0)
        // The encoder's audio ended (0 frames) with 15 of the reference's left.
        #expect(throws: ConversionError.proof(.frameCount(found: 10, expected: 25, decoder: "memory"))) {
            try block.check(long, frames: 0, from: 10)
        }
        let exact = MemoryFrames([Double](repeating: 0.25, count: 10), channels: 1, sampleRate: 8000)
        try block.check(exact, frames: 10, from: 0)
        try block.check(exact, frames: 0, from: 10)
    }
}

import BinaryIO
import CAFKit
@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import SndFile
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification
import WAVEKit

@testable import Conversion

/// The probe that guards the direct road must notice a wrong sample at either end, and name it.
@Suite("Sample probe: libsndfile's first and last frames against stored bytes")
struct SampleProbeTests {
    @Test(
        "a changed sample in the head or the tail is found at its frame and channel",
        arguments: [WAVFixture.Encoding.int16, .int24, .float32])
    func findsDifferences(encoding: WAVFixture.Encoding) throws {
        let folder = TempDirectory()
        let fixture = WAVFixture.signal(encoding, channels: 2, frames: 10_000)
        let path = folder.write("in.wav", fixture.bytes)
        let wave = try WAVEFile(reading: try FileByteSource(path: path))
        let reader = try SoundFile.open(readingFrom: path)
        try reader.setNormalisation(false)
        let target = TargetFormat.resolve(source: reader.info.encoding, sourceOrder: .little, dataFormat: nil, endian: .little)
        let samples = try #require(WAVESamples(wave: wave))
        let payload = try #require(
            DirectPayload(samples: samples, source: reader.info, target: target, fileLength: UInt64(fixture.bytes.count)))
        let probe = try #require(try SampleProbe.read(reader, payload: payload))
        let bytes = fixture.bytes
        #expect(try probe.firstDifference(in: MemoryByteSource(bytes), at: payload.offset, layout: payload.layout) == nil)

        let width = encoding.bits / 8
        // Frame 7, channel 2 (head) and frame 9998, channel 1 (tail); frame 5000 is outside both ends.
        for (frame, channel, expectFound) in [(7, 2, true), (9998, 1, true), (5000, 1, false)] {
            var changed = bytes
            let at = Int(payload.offset) + (frame * 2 + channel - 1) * width + width - 1
            changed[at] ^= 0x40
            let difference = try probe.firstDifference(in: MemoryByteSource(changed), at: payload.offset, layout: payload.layout)
            if expectFound {
                #expect(difference?.frame == Int64(frame) && difference?.channel == channel, "\(String(describing: difference))")
            } else {
                #expect(difference == nil, "the middle is not probed")
            }
        }
    }

    @Test("a source of at most twice 2048 frames is one block: every frame read and compared once")
    func overlappingEndsAreOneBlock() throws {
        let folder = TempDirectory()
        for (frames, blocks) in [(2205, [0..<2205]), (4096, [0..<4096]), (4097, [0..<2048, 2049..<4097])] {
            let fixture = WAVFixture.signal(.int16, channels: 1, frames: frames)
            let path = folder.write("in-\(frames).wav", fixture.bytes)
            let reader = try SoundFile.open(readingFrom: path)
            try reader.setNormalisation(false)
            let probe = try #require(try SampleProbe.read(reader, frames: Int64(frames), channels: 1, isFloat: false))
            #expect(probe.blocks.map { Int($0.start)..<Int($0.start) + $0.frames } == blocks, "\(frames) frames")
            #expect(probe.blocks.allSatisfy { $0.ints.count == $0.frames })

            // The last frame is compared (in the tail, or in the one block).
            let wave = try WAVEFile(reading: try FileByteSource(path: path))
            let samples = try #require(WAVESamples(wave: wave))
            var changed = fixture.bytes
            changed[Int(samples.offset) + (frames - 1) * 2 + 1] ^= 0x40
            let difference = try probe.firstDifference(from: samples, in: MemoryByteSource(changed))
            #expect(difference?.frame == Int64(frames - 1), "\(frames) frames: \(String(describing: difference))")
        }
    }
}

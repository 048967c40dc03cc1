import BinaryIO
import CAFKit
import SndFile
import TestSupport
import Testing
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
}

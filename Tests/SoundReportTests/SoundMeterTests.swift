import SoundLevels
import Foundation
import SoundReport
import Testing

@Suite struct SoundMeterTests {
    /// An impulse at a known frame lands in the column that covers it, and nowhere else.
    @Test func impulseLandsInItsColumn() {
        var meter = SoundMeter(channels: 2, expectedFrames: 10_000, columns: 400)
        var samples = [Double](repeating: 0, count: 20_000)
        samples[2 * 1234] = 1.0  // left channel
        samples[2 * 7777 + 1] = -0.5  // right channel
        // In blocks of an awkward size, as a decoder gives them.
        var start = 0
        while start < 10_000 {
            let count = min(997, 10_000 - start)
            meter.add(doubles: Array(samples[(2 * start)..<(2 * (start + count))]), frames: count)
            start += count
        }
        let envelope = meter.envelope
        #expect(envelope.span == 25)
        #expect(envelope.frames == 10_000)
        #expect(envelope.columns == 400)
        let left = envelope.channels[0]
        #expect(left.maximum.firstIndex(of: 1.0) == 1234 / 25)
        #expect(left.maximum.filter { $0 != 0 }.count == 1)
        let right = envelope.channels[1]
        #expect(right.minimum.firstIndex(of: -0.5) == 7777 / 25)
        #expect(right.minimum.filter { $0 != 0 }.count == 1)
        #expect(meter.samplePeaks == [1.0, 0.5])
    }

    /// Without a length known ahead, columns double their span as frames come: memory stays at
    /// the column count, and the extremes stay at their place in time.
    @Test func unknownLengthStaysBounded() {
        var meter = SoundMeter(channels: 1, expectedFrames: nil, columns: 400)
        let frames = 1_000_000
        var block = [Int32](repeating: 0, count: 4096)
        var position = 0
        while position < frames {
            let count = min(4096, frames - position)
            for index in 0..<count { block[index] = position + index == 654_321 ? Int32.min : 1 << 20 }
            meter.add(ints: block, frames: count)
            position += count
        }
        let envelope = meter.envelope
        #expect(envelope.frames == Int64(frames))
        #expect(envelope.columns <= 400)
        #expect(envelope.columns >= 200)
        let column = envelope.channels[0].minimum.firstIndex(of: -1.0)
        #expect(column == Int(654_321 / envelope.span))
        #expect(meter.samplePeak == 1.0)
    }

    /// A sine at a quarter of the rate, sampled 45 degrees off its crests: every sample is at
    /// 0.707 but the signal between them reaches 1.0. The true peak finds it; the sample peak
    /// does not.
    @Test func truePeakFindsInterSampleCrests() {
        var meter = SoundMeter(channels: 1, expectedFrames: 4800)
        let samples = (0..<4800).map { n in sin(Double.pi / 2 * Double(n) + Double.pi / 4) }
        meter.add(doubles: samples, frames: samples.count)
        #expect(abs(meter.samplePeak - 0.7071) < 0.001)
        #expect(abs(meter.truePeakValue - 1.0) < 0.02)
        // A slow sine has its crests on samples: the true peak is the sample peak.
        var slow = SoundMeter(channels: 1, expectedFrames: 4800)
        let low = (0..<4800).map { n in 0.5 * sin(2 * Double.pi * 100 * Double(n) / 48000) }
        slow.add(doubles: low, frames: low.count)
        #expect(abs(slow.truePeakValue - 0.5) < 0.002)
    }

    @Test func silenceHasZeroPeaks() {
        var meter = SoundMeter(channels: 1, expectedFrames: 100)
        meter.add(ints: [Int32](repeating: 0, count: 100), frames: 100)
        #expect(meter.samplePeak == 0)
        #expect(meter.truePeakValue == 0)
        #expect(meter.envelope.channels[0].maximum.allSatisfy { $0 == 0 })
    }
}

import SystemLayer

/// One channel's envelope: the lowest and highest sample of each column of frames.
public struct ChannelEnvelope: Equatable, Sendable {
    /// The lowest sample of each column (full scale ±1.0).
    public var minimum: [Float]
    /// The highest sample of each column.
    public var maximum: [Float]

    public init(minimum: [Float], maximum: [Float]) {
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// A min/max envelope of a whole file: column `i` covers frames `i * span ..< (i + 1) * span`.
public struct Envelope: Equatable, Sendable {
    /// Frames per column.
    public var span: Int64
    /// Frames measured.
    public var frames: Int64
    /// One envelope per channel, all of the same number of columns.
    public var channels: [ChannelEnvelope]

    public init(span: Int64, frames: Int64, channels: [ChannelEnvelope]) {
        self.span = span
        self.frames = frames
        self.channels = channels
    }

    /// Columns per channel.
    public var columns: Int { channels.first?.minimum.count ?? 0 }
}

/// What the report measures of a file while it is read, block by block: the min/max envelope
/// per channel in a fixed number of columns, the sample peak and the true peak. Memory is
/// bounded by the number of columns and channels, whatever the file's length: when frames run
/// past the last column (a length not known ahead, or longer than said), neighbouring columns
/// are merged in pairs and each column then covers twice as many frames.
public struct SoundMeter: Sendable {
    /// The columns an envelope has at most, by default.
    public static let defaultColumns = 400

    public let channelCount: Int
    /// Columns at most.
    public let capacity: Int
    /// Frames per column.
    public private(set) var span: Int64
    /// Frames measured so far.
    public private(set) var frames: Int64 = 0
    private var minimum: [[Float]]
    private var maximum: [[Float]]
    /// Columns in use.
    private var used = 0
    /// The highest absolute sample per channel.
    public private(set) var samplePeaks: [Double]
    private var truePeak: [TruePeakFilter]

    /// A meter for `channels` channels; `expectedFrames` (when known) spreads the columns over
    /// the file at once, else they start one frame wide and double as needed. Without
    /// `measuresTruePeak` (someone else measures it) ``truePeakValue`` is the sample peak.
    public init(channels: Int, expectedFrames: Int64?, columns: Int = defaultColumns, measuresTruePeak: Bool = true) {
        channelCount = max(1, channels)
        capacity = max(2, columns) / 2 * 2
        if let expectedFrames, expectedFrames > 0 {
            let (quotient, remainder) = expectedFrames.quotientAndRemainder(dividingBy: Int64(capacity))
            span = max(1, quotient + (remainder > 0 ? 1 : 0))
        } else {
            span = 1
        }
        minimum = Array(repeating: Array(repeating: 0, count: capacity), count: channelCount)
        maximum = minimum
        samplePeaks = Array(repeating: 0, count: channelCount)
        truePeak = measuresTruePeak ? Array(repeating: TruePeakFilter(), count: channelCount) : []
    }

    /// Adds `count` interleaved frames of left-justified 32-bit integers (an N-bit sample `s` is
    /// `s << (32 - N)`, as `SourceAudio` gives them).
    public mutating func add(ints: [Int32], frames count: Int) {
        let total = min(count, ints.count / channelCount)
        var index = 0
        for _ in 0..<max(0, total) {
            prepareColumn()
            let column = Int(frames / span)
            for channel in 0..<channelCount {
                record(Double(ints[index]) / 2_147_483_648.0, channel: channel, column: column)
                index += 1
            }
            frames += 1
        }
    }

    /// Adds `count` interleaved frames of floating-point samples (full scale ±1.0).
    public mutating func add(doubles: [Double], frames count: Int) {
        let total = min(count, doubles.count / channelCount)
        var index = 0
        for _ in 0..<max(0, total) {
            prepareColumn()
            let column = Int(frames / span)
            for channel in 0..<channelCount {
                let sample = doubles[index]
                record(sample.isFinite ? sample : 0, channel: channel, column: column)
                index += 1
            }
            frames += 1
        }
    }

    /// Opens the column of the next frame, merging columns when it would be past the last one.
    private mutating func prepareColumn() {
        if frames % span != 0 { return }
        var column = frames / span
        while column >= Int64(capacity) {
            for channel in 0..<channelCount {
                for pair in 0..<(capacity / 2) {
                    minimum[channel][pair] = min(minimum[channel][2 * pair], minimum[channel][2 * pair + 1])
                    maximum[channel][pair] = max(maximum[channel][2 * pair], maximum[channel][2 * pair + 1])
                }
            }
            used = capacity / 2
            span *= 2
            column = frames / span
            if frames % span != 0 { return }
        }
        let index = Int(column)
        if index >= used {
            for channel in 0..<channelCount {
                minimum[channel][index] = .infinity
                maximum[channel][index] = -.infinity
            }
            used = index + 1
        }
    }

    private mutating func record(_ sample: Double, channel: Int, column: Int) {
        let value = Float(sample)
        if value < minimum[channel][column] { minimum[channel][column] = value }
        if value > maximum[channel][column] { maximum[channel][column] = value }
        let magnitude = abs(sample)
        if magnitude > samplePeaks[channel] { samplePeaks[channel] = magnitude }
        if !truePeak.isEmpty { truePeak[channel].add(sample) }
    }

    /// The highest absolute sample of any channel (full scale 1.0).
    public var samplePeak: Double { samplePeaks.max() ?? 0 }

    /// The highest absolute value of the signal between samples too, of any channel: the
    /// samples upsampled four times (ITU-R BS.1770's true peak, by a windowed-sinc interpolator
    /// of 12 taps per phase); at least the sample peak.
    public var truePeakValue: Double {
        var peak = 0.0
        for filter in truePeak {
            var flushed = filter
            peak = max(peak, flushed.finish())
        }
        return max(peak, samplePeak)
    }

    /// The envelope of the frames measured.
    public var envelope: Envelope {
        let columns = frames == 0 ? 0 : Int((frames + span - 1) / span)
        let channels = (0..<channelCount).map { channel in
            ChannelEnvelope(
                minimum: Array(minimum[channel].prefix(columns)), maximum: Array(maximum[channel].prefix(columns)))
        }
        return Envelope(span: span, frames: frames, channels: channels)
    }
}

/// A 4x oversampling interpolator that keeps the highest absolute value it produced: between
/// each pair of samples three values are interpolated by a Hann-windowed sinc of 12 taps.
struct TruePeakFilter: Sendable {
    static let taps = 12
    static let half = 6
    /// `coefficients[phase - 1][m]`: the weight of sample `n + m - 5` for the value at
    /// `n + phase / 4`.
    static let coefficients: [[Double]] = (1...3).map { phase in
        (0..<taps).map { tap in
            let offset = Double(tap - (half - 1)) - Double(phase) / 4
            let x = Double.pi * offset
            let sinc = offset == 0 ? 1 : sin(x) / x
            let window = 0.5 + 0.5 * cos(Double.pi * offset / Double(half))
            return sinc * window
        }
    }

    /// The last 12 samples twice over (each written at `i` and `i + 12`), so that the 12 from
    /// the oldest are always contiguous: `history[next ..< next + 12]`.
    private var history = [Double](repeating: 0, count: 2 * taps)
    private var next = 0
    private var count = 0
    private(set) var peak = 0.0

    mutating func add(_ sample: Double) {
        history[next] = sample
        history[next + Self.taps] = sample
        next = next + 1 == Self.taps ? 0 : next + 1
        count += 1
        // With samples n-5 ... n+6 in the window, the values between n and n+1.
        guard count >= Self.half else { return }
        let start = next
        var highest = peak
        history.withUnsafeBufferPointer { window in
            for phase in Self.coefficients {
                phase.withUnsafeBufferPointer { weights in
                    var sum = 0.0
                    for tap in 0..<Self.taps { sum += weights[tap] * window[start + tap] }
                    highest = max(highest, abs(sum))
                }
            }
        }
        peak = highest
    }

    /// The peak once the signal is followed by silence (the last values interpolated).
    mutating func finish() -> Double {
        for _ in 0..<Self.half { add(0) }
        return peak
    }
}

import Synchronization
import SystemLayer

/// How far one file's conversion has got, for a progress display: the source frames the encoder
/// has read, against the source's frame count. The reader adds each block it reads (one atomic
/// add and one clock read per block, never per sample) and calls `due` at most once per
/// `interval`; the display reads the counts there. Thread-safe.
public final class FrameProgress: Sendable {
    /// The input, as the job names it.
    public let input: String
    /// Nanoseconds on a monotonic clock (``monotonicNanoseconds()`` unless a test gives another).
    public let clock: @Sendable () -> UInt64
    /// When the conversion of this file started (by ``clock``).
    public let started: UInt64
    private let done = Atomic<Int64>(0)
    private let total = Atomic<Int64>(-1)
    private let nextDue: Atomic<UInt64>
    private let interval: UInt64
    private let due: @Sendable (FrameProgress) -> Void

    /// A counter for `input` that calls `due` at most once per `interval` nanoseconds.
    public init(
        input: String, interval: UInt64, clock: @escaping @Sendable () -> UInt64 = FrameProgress.monotonicNanoseconds,
        due: @escaping @Sendable (FrameProgress) -> Void
    ) {
        self.input = input
        self.clock = clock
        self.interval = interval
        self.due = due
        let now = clock()
        started = now
        nextDue = Atomic(now &+ interval)
    }

    /// Source frames read so far.
    public var framesDone: Int64 { done.load(ordering: .relaxed) }
    /// The source's frames, or `nil` while unknown.
    public var framesTotal: Int64? {
        let value = total.load(ordering: .relaxed)
        return value >= 0 ? value : nil
    }

    /// Sets the source's frame count (when the source is open).
    public func setTotal(_ frames: Int64?) { total.store(max(-1, frames ?? -1), ordering: .relaxed) }

    /// Counts a block of `frames` frames read; calls `due` when its time has come.
    public func add(_ frames: Int) {
        done.add(Int64(frames), ordering: .relaxed)
        let now = clock()
        let next = nextDue.load(ordering: .relaxed)
        guard now >= next, nextDue.compareExchange(expected: next, desired: now &+ interval, ordering: .relaxed).exchanged
        else { return }
        due(self)
    }

    /// The encoder has read the whole source (a road that moves bytes without counting frames,
    /// such as the kernel copy, ends here too): done is the total.
    public func finishReading() {
        if let total = framesTotal, framesDone < total { done.store(total, ordering: .relaxed) }
    }

    /// Where the file is at `now` (by ``clock``), for people: `1.2M of 5.0M frames (24%), 2.3M
    /// frames/s, ETA 2 s` (the rate and ETA once frames have been read).
    public func summary(at now: UInt64) -> String {
        let done = framesDone
        let seconds = Double(now &- started) / 1e9
        var text = Self.amount(done)
        if let total = framesTotal, total > 0 {
            text += " of \(Self.amount(total)) frames (\(done * 100 / total)%)"
        } else {
            text += " frames"
        }
        guard seconds > 0, done > 0 else { return text }
        let rate = Double(done) / seconds
        text += ", \(Self.amount(Int64(rate.rounded()))) frames/s"
        if let total = framesTotal, total > done {
            text += ", ETA \(Int((Double(total - done) / rate).rounded(.up))) s"
        }
        return text
    }

    /// 950, 12.3k, 4.5M.
    public static func amount(_ value: Int64) -> String {
        if value >= 1_000_000 { return "\(Double(value / 100_000) / 10)M" }
        if value >= 10_000 { return "\(Double(value / 100) / 10)k" }
        return "\(value)"
    }

    /// `CLOCK_MONOTONIC` in nanoseconds.
    @Sendable public static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(clamping: time.tv_sec) &* 1_000_000_000 &+ UInt64(clamping: time.tv_nsec)
    }
}

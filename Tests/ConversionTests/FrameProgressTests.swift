import ConversionModel
import Synchronization
import Testing

/// `FrameProgress`: the per-block frame counter behind convert's progress line, heartbeat and
/// JSON events, driven by a test clock.
@Suite("frame progress")
struct FrameProgressTests {
    /// A clock the test moves by hand.
    final class TestClock: Sendable {
        let now = Mutex<UInt64>(1_000)
        func advance(seconds: Double) { now.withLock { $0 += UInt64(seconds * 1e9) } }
        func read() -> UInt64 { now.withLock { $0 } }
    }

    @Test("a 5 s heartbeat: nothing for a file done in under 5 s, then one line per 5 s with the frames so far")
    func heartbeat() {
        let clock = TestClock()
        let lines = Mutex<[String]>([])
        let progress = FrameProgress(input: "big.wav", interval: 5_000_000_000, clock: { clock.read() }) { progress in
            lines.withLock { $0.append(progress.summary(at: clock.read())) }
        }
        progress.setTotal(1_000_000)
        // 100 blocks of 10,000 frames, 0.1 s each: 10 s in all.
        for block in 1...100 {
            clock.advance(seconds: 0.1)
            progress.add(10_000)
            if block == 49 { #expect(lines.withLock { $0 }.isEmpty, "no line before 5 s") }
        }
        let written = lines.withLock { $0 }
        #expect(written.count == 2, "\(written)")
        #expect(written.first == "500.0k of 1.0M frames (50%), 100.0k frames/s, ETA 5 s")
        #expect(written.last == "1.0M of 1.0M frames (100%), 100.0k frames/s")
    }

    @Test("counts are exact under blocks added from several threads, and finishReading makes done the total")
    func counts() async {
        let progress = FrameProgress(input: "a.wav", interval: .max) { _ in }
        progress.setTotal(400_000)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { for _ in 0..<100 { progress.add(500) } } }
        }
        #expect(progress.framesDone == 200_000)
        progress.finishReading()
        #expect(progress.framesDone == 400_000)
        #expect(progress.framesTotal == 400_000)
        let unknown = FrameProgress(input: "b.wav", interval: .max) { _ in }
        #expect(unknown.framesTotal == nil)
        #expect(unknown.summary(at: unknown.started) == "0 frames")
    }
}

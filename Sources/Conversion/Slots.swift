import Dispatch
import Synchronization

/// The one worker pool of the engine: `body` is called once for each slot `0..<count`, on up to
/// `workers` threads (one of them the caller's: a one-slot or one-worker run starts no thread),
/// each worker taking the next slot in order as it finishes one. Returns when every slot is done.
enum Slots {
    static func forEach(_ count: Int, workers: Int, _ body: @Sendable (Int) -> Void) {
        forEach(count, workers: workers, scratch: {}) { _, slot in body(slot) }
    }

    /// ``forEach(_:workers:_:)`` with a scratch value per worker, made by `scratch` when the
    /// worker starts and passed to each of its slots (buffers reused from one slot to the next).
    static func forEach<Scratch>(
        _ count: Int, workers: Int, scratch: @Sendable () -> Scratch, _ body: @Sendable (inout Scratch, Int) -> Void
    ) {
        let next = Mutex(0)
        @Sendable func run(_: Int) {
            var scratch = scratch()
            while true {
                let slot = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard slot < count else { return }
                body(&scratch, slot)
            }
        }
        let workers = min(max(1, workers), count)
        if workers == 1 {
            run(0)
        } else if workers > 1 {
            DispatchQueue.concurrentPerform(iterations: workers, execute: run)
        }
    }
}

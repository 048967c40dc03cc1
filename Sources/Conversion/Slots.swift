import Dispatch
import Synchronization

/// The one worker pool of the engine: `body` is called once for each slot `0..<count`, on up to
/// `workers` threads (one of them the caller's: a one-slot or one-worker run starts no thread),
/// each worker taking the next slot in order as it finishes one. Returns when every slot is done.
enum Slots {
    static func forEach(_ count: Int, workers: Int, _ body: @Sendable (Int) -> Void) {
        let next = Mutex(0)
        @Sendable func run(_: Int) {
            while true {
                let slot = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard slot < count else { return }
                body(slot)
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

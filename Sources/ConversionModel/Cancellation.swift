import Synchronization

/// A flag that stops a run. Set it (from a signal handler, say) and the engine starts no new file
/// and abandons the files in flight at their next block, deleting their temporary files.
public final class Cancellation: Sendable {
    /// The reason given to files that were stopped or never started.
    public static let reason = "interrupted"
    private let flag = Atomic<Bool>(false)
    private let condition: (@Sendable () -> Bool)?

    /// A flag that is not set.
    public init() { condition = nil }

    /// A flag that also counts as set once `condition` returns true (a signal was received, say).
    /// `condition` is called often, from any thread: it must be cheap and thread-safe.
    public init(also condition: @escaping @Sendable () -> Bool) { self.condition = condition }

    /// Asks the run to stop.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether the run was asked to stop.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) || condition?() == true }
}

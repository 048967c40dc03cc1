@testable import Conversion
import Testing

/// The order workers take jobs in (``Engine/largestFirst(sizes:workers:)``).
@Suite("Job order")
struct JobOrderTests {
    @Test("several workers take the largest sources first, ties in plan order")
    func largestFirst() {
        // Plan order is by path; the bench's music corpus grows track by track, so plan order
        // would leave the largest file to start last.
        let sizes: [UInt64] = [34, 36, 52, 36, 0, 51]
        #expect(Engine.largestFirst(sizes: sizes, workers: 2) == [2, 5, 1, 3, 0, 4])
        #expect(Engine.largestFirst(sizes: [], workers: 2).isEmpty)
    }

    @Test("one worker keeps plan order")
    func oneWorker() {
        #expect(Engine.largestFirst(sizes: [1, 3, 2], workers: 1) == [0, 1, 2])
    }
}

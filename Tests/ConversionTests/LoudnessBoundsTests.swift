import Testing

@testable import Verification

/// `verify --loudness` and `--max-true-peak` messages: a value that broke its bound never reads
/// as the bound itself.
@Suite("loudness bounds in verify's messages")
struct LoudnessBoundsTests {
    @Test("a broken bound and its value are written with as many decimals as it takes to tell them apart")
    func apart() {
        #expect(LoudnessBounds.apart(-0.99997, from: -1) == "-0.99997")
        #expect(LoudnessBounds.apart(-21.96, from: -22) == "-21.96")
        #expect(LoudnessBounds.apart(-25.3, from: -22) == "-25.3")
        #expect(LoudnessBounds.apart(0.05, from: 0) == "0.1")
        #expect(LoudnessBounds.apart(-1 + 1e-9, from: -1) == "-1.000000")
        #expect(LoudnessBounds.fixed(-0.5, decimals: 2) == "-0.50")
        #expect(LoudnessBounds.fixed(3.14159, decimals: 3) == "3.142")
    }
}

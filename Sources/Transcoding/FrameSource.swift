import CAFKit
import ConversionModel
import OutputFiles

/// Where a stage takes interleaved frames from: a source's decoding (`SourceAudio`) or the
/// transform stage's output (`TransformedAudio`). The encoder's pump and the proof read through
/// it, so neither assumes the source's rate or channels.
package protocol FrameSource: AnyObject {
    /// Channels per frame.
    var channels: Int { get }
    /// Frames per second.
    var sampleRate: Int { get }
    /// Frames per second exactly as the source stores them (22254.545 Hz in an AIFF), where
    /// `sampleRate` is libsndfile's integer; the rate an output of it says.
    var exactSampleRate: Double { get }
    /// Whether samples come as `Double`s (full scale ±1.0) rather than left-justified `Int32`s.
    var isFloat: Bool { get }
    /// Bits of a sample, for naming rules.
    var bits: Int { get }
    /// Who decoded the samples, as the proof names it.
    var decoderName: String { get }
    /// The law of the samples' codes, when they are a G.711 source's own.
    var law: G711Law? { get }
    /// The source's own G.711 codes of `count` frames from `start`, when there are any.
    func codes(from start: Int64, count: Int) throws(SourceError) -> [UInt8]?
    /// Reads up to `frames` frames into `ints` or `doubles` (by `isFloat`); 0 at the end.
    func read(ints: inout [Int32], doubles: inout [Double], frames: Int) throws(SourceError) -> Int
}

extension SourceAudio: FrameSource {}

extension TransformedAudio {
    /// The plan's output rate, a whole number of Hz.
    package var exactSampleRate: Double { Double(sampleRate) }
}

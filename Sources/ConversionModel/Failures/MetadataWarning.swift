/// Metadata warnings (`ConversionWarning`), one case per warning with its data; `message` is the
/// one place each becomes its sentence.
public enum MetadataWarning: Equatable, Sendable, CustomStringConvertible {
    /// An AAC source's loops, markers and text, which are not carried.
    case notCarriedFromAAC
    /// An Ogg Opus source's OpusHead output gain (Q7.8 dB), which an Opus CAF cannot carry.
    case opusOutputGain(Int)
    /// A CAF source's `info` or `edct` chunk whose count says another number of pairs than it
    /// holds (or with stray bytes after them); the output's says what it holds.
    case infoCount(chunk: String, declared: Int, held: Int, strayBytes: Int)
    /// A WAV `cue ` point ID met again; the first is kept.
    case duplicateCue(Int)
    /// A `smpl` loop (1-based) that ends before it starts; not carried.
    case smplLoopBackwards(loop: Int, start: Int, end: Int)
    /// A `smpl` loop of a vendor's type; carried as a forward loop.
    case smplVendorType(loop: Int, type: Int)
    /// A `smpl` loop with a play count, which CAF regions do not have.
    case smplPlayCount(loop: Int, count: Int)
    /// An AIFF `MARK` marker ID met again; the first is kept.
    case duplicateMarker(Int)
    /// An AIFF `INST` loop (`sustain`, `release`) naming markers `MARK` does not hold.
    case instLoopMarkers(loop: String, begin: Int, end: Int)
    /// An AIFF `INST` loop that ends where or before it starts; not carried.
    case instLoopBackwards(loop: String, start: Int, end: Int)
    /// An AIFF `INST` loop of an unknown play mode; carried as a forward loop.
    case instPlayMode(loop: String, mode: Int)

    /// The warning, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .notRescaled(let sentence): sentence
        case .notWrittenToAAC:
            "the source's loops, markers and text are not written: -d aac outputs carry none (--strip-metadata drops them without this warning)"
        case .opusOutputGain(let gain):
            "the source's OpusHead asks for an output gain of \(Double(gain) / 256) dB, which a CAF cannot carry: the moved packets play without it"
        case .notCarriedFromAAC:
            "the source's loops, markers and text are not written: they are not carried from AAC sources (--strip-metadata drops them without this warning)"
        case .infoCount(let chunk, let declared, let held, let strayBytes):
            "the source's '\(chunk)' chunk declares \(declared) key/value pairs but holds \(held)\(strayBytes == 0 ? "" : " and \(strayBytes) stray bytes after them"); the output's says \(held)"
        case .duplicateCue(let id): "'cue ' point \(id) comes more than once; the first is kept"
        case .smplLoopBackwards(let loop, let start, let end):
            "'smpl' loop \(loop) ends (frame \(end)) before it starts (frame \(start)); it is not carried"
        case .smplVendorType(let loop, let type):
            "'smpl' loop \(loop) has the vendor type \(type); it is carried as a forward loop"
        case .smplPlayCount(let loop, let count):
            "'smpl' loop \(loop) plays \(count) times; a CAF region has no play count, so it loops until released"
        case .duplicateMarker(let id): "'MARK' marker \(id) comes more than once; the first is kept"
        case .instLoopMarkers(let loop, let begin, let end):
            "'INST' \(loop) loop names markers \(begin) and \(end), which 'MARK' does not hold; it is not carried"
        case .instLoopBackwards(let loop, let start, let end):
            "'INST' \(loop) loop ends (frame \(end)) before it starts (frame \(start)) or where it starts; it is not carried"
        case .instPlayMode(let loop, let mode):
            "'INST' \(loop) loop has the play mode \(mode); it is carried as a forward loop"
        }
    }

    public var description: String { message }

    // Cases of the files outside the source stage (the output codecs).
    /// `-d aac`: the source's loops, markers and text are not written (AAC outputs carry none).
    case notWrittenToAAC
    /// A marker, region or loop CAFKit could not carry to the output's rate or length (its
    /// sentence, from CAFKit's `CAFMetadata.rescaled`).
    case notRescaled(String)
}

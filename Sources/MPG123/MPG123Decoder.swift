import CMPG123

/// Why libmpg123 cannot open or decode a stream: a sentence.
public struct MPG123Error: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// An MPEG audio stream (MP3, MP2) decoded by libmpg123 (loaded with `dlopen` at the first open,
/// never linked) to floats: the first decoder of MP3 sources, libavcodec (`AVFileDecoder`) the
/// second. The stream is scanned to its end when opened, so ``frames`` is exact (a VBR stream
/// without a Xing header included); the encoder delay and padding a LAME/Xing header states are
/// left out, as libsndfile and libavcodec leave them out.
public final class MPG123Decoder {
    private let handle: OpaquePointer
    private var floats: [Float] = []
    /// Channels per frame (1 or 2).
    public let channels: Int
    /// Frames per second.
    public let sampleRate: Int
    /// The frames the scan found, or `nil` when libmpg123 does not know.
    public let frames: Int64?

    /// Opens the stream in `path` from byte `offset` for `length` bytes (`nil`: to the end of the
    /// file; a WAV's 'data' chunk); throws a sentence when libmpg123 cannot be loaded or read it.
    public init(path: String, offset: UInt64 = 0, length: UInt64? = nil) throws(MPG123Error) {
        var text = [CChar](repeating: 0, count: 512)
        let start = Int64(clamping: offset)
        let count = length.map { Int64(clamping: $0) } ?? -1
        let opened = text.withUnsafeMutableBufferPointer { buffer in
            cafconv_mpg123_open(path, start, count, buffer.baseAddress, buffer.count)
        }
        guard let opened else { throw MPG123Error(Self.string(text)) }
        handle = opened
        channels = Int(cafconv_mpg123_channels(opened))
        sampleRate = Int(cafconv_mpg123_rate(opened))
        let length = cafconv_mpg123_length(opened)
        frames = length >= 0 ? length : nil
    }

    deinit { cafconv_mpg123_close(handle) }

    /// Reads up to `frames` frames into `doubles` (which must hold `frames * channels` samples),
    /// full scale ±1.0; 0 at the end.
    public func read(into doubles: inout [Double], frames: Int) throws(MPG123Error) -> Int {
        let wanted = min(frames, doubles.count / max(channels, 1))
        guard wanted > 0 else { return 0 }
        if floats.count < wanted * channels { floats = [Float](repeating: 0, count: wanted * channels) }
        var text = [CChar](repeating: 0, count: 512)
        let got = floats.withUnsafeMutableBufferPointer { samples in
            text.withUnsafeMutableBufferPointer { buffer in
                cafconv_mpg123_read(handle, samples.baseAddress, Int32(clamping: wanted), buffer.baseAddress, buffer.count)
            }
        }
        if got < 0 { throw MPG123Error(Self.string(text)) }
        let count = Int(got) * channels
        for index in 0..<count { doubles[index] = Double(floats[index]) }
        return Int(got)
    }

    private static func string(_ text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

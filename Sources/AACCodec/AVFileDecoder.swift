import CAVCodec

/// A whole file decoded by libavformat and libavcodec (loaded with `dlopen` at the first open,
/// never linked): the second decoder of the sources libsndfile reads (MP3, Ogg Vorbis and Opus,
/// FLAC), and the only decoder of lossless sources libsndfile refuses (12-bit FLAC...).
///
/// Samples come as libsndfile's `sf_read_int` gives them (integers left-justified in 32 bits) or
/// as `Double`s (float decoders: MP3, Vorbis, Opus). A packet that fails to decode (a FLAC frame
/// whose CRC fails, a damaged MP3 frame) is skipped, as ffmpeg does, and listed in ``damage``.
public final class AVFileDecoder {
    private let handle: OpaquePointer
    /// Channels per frame.
    public let channels: Int
    /// Frames per second, as the decoder produces them.
    public let sampleRate: Int
    /// libavcodec's name of the codec: `mp3`, `vorbis`, `opus`, `flac`...
    public let codec: String
    /// Whether ``read(ints:doubles:frames:)`` fills `doubles` rather than `ints`.
    public let isFloat: Bool
    /// Bits of the decoded container: 8, 16 or 32 for integers, 32 or 64 for floats.
    public let containerBits: Int
    /// Bits the stream says it codes (12 for a 12-bit FLAC), or `nil` when it does not say.
    public let rawBits: Int?

    /// The stream's length in frames as the container states it (an Ogg stream's last granule
    /// position), or `nil` when it does not say.
    public var statedFrames: Int64? {
        let frames = cafconv_av_reader_stated_frames(handle)
        return frames >= 0 ? frames : nil
    }

    /// Opens `path`'s first audio stream; throws a sentence when libavformat cannot be loaded or
    /// cannot read the file.
    public init(path: String) throws(AACCodecError) {
        let (pointer, message) = withErrorBuffer { cafconv_av_reader_open(path, $0, $1) }
        guard let pointer else { throw AACCodecError(message) }
        handle = pointer
        channels = Int(cafconv_av_reader_channels(pointer))
        sampleRate = Int(cafconv_av_reader_rate(pointer))
        codec = String(cString: cafconv_av_reader_codec(pointer))
        isFloat = cafconv_av_reader_is_float(pointer) != 0
        containerBits = Int(cafconv_av_reader_container_bits(pointer))
        let raw = Int(cafconv_av_reader_raw_bits(pointer))
        rawBits = raw > 0 ? raw : nil
    }

    deinit { cafconv_av_reader_close(handle) }

    /// Reads up to `frames` frames into `ints` or `doubles` (by ``isFloat``; each must hold
    /// `frames * channels` samples); 0 at the end.
    public func read(ints: inout [Int32], doubles: inout [Double], frames: Int) throws(AACCodecError) -> Int {
        let wanted = min(frames, (isFloat ? doubles.count : ints.count) / max(channels, 1))
        guard wanted > 0 else { return 0 }
        let (got, message) = withErrorBuffer { text, size in
            ints.withUnsafeMutableBufferPointer { intBuffer in
                doubles.withUnsafeMutableBufferPointer { doubleBuffer in
                    cafconv_av_reader_read(
                        handle, intBuffer.baseAddress, doubleBuffer.baseAddress, Int32(clamping: wanted), text, size)
                }
            }
        }
        if got < 0 { throw AACCodecError(message) }
        return Int(got)
    }

    /// A packet that failed to decode: the frame the decoding had reached, and the packet's
    /// byte offset in the file when the demuxer knows it.
    public struct Damage: Equatable, Sendable {
        public var frame: Int64
        public var byte: Int64?
    }

    /// How many packets failed to decode so far.
    public var damagedPackets: Int64 { cafconv_av_reader_damaged(handle) }

    /// The first few packets that failed to decode (at most 8).
    public var damage: [Damage] {
        var found: [Damage] = []
        var index: Int32 = 0
        var frame: Int64 = 0
        var byte: Int64 = 0
        while cafconv_av_reader_damage_at(handle, index, &frame, &byte) == 0 {
            found.append(Damage(frame: frame, byte: byte >= 0 ? byte : nil))
            index += 1
        }
        return found
    }
}

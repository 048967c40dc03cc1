import CAVCodec

/// A file's audio packets as its container stores them, never decoded: libavformat (loaded with
/// `dlopen` at the first open, never linked) reads MP4/M4A and ADTS; ADTS frames lose their
/// headers (libavcodec's `aac_adtstoasc`), so every packet is one raw AAC access unit and
/// ``config`` is the AudioSpecificConfig, as in MP4. One packet is held at a time.
public final class AVDemuxer {
    private let handle: OpaquePointer
    /// libavformat's name of the container: `mov,mp4,m4a,3gp,3g2,mj2` or `aac` (ADTS).
    public let container: String
    /// libavformat's name of the codec: `aac`, `alac`, `mp3`...
    public let codec: String
    /// Channels and rate as the container states them (0: not stated).
    public let channels: Int
    public let sampleRate: Int
    /// The bit rate the container states (0: not stated).
    public let bitRate: Int64
    /// The audio streams in the file (the best one is read).
    public let audioStreams: Int
    /// The stream's time base: timestamps count `timeBase.numerator / timeBase.denominator` seconds.
    public let timeBase: (numerator: Int, denominator: Int)

    /// libavformat's names of the containers it may open: MP4 and its kin, ADTS.
    public static let formats = "mov,aac"

    /// Opens `path`; throws a sentence when libavformat cannot be loaded or read it, or it holds
    /// no audio stream.
    public init(path: String) throws(AACCodecError) {
        let (pointer, message) = withErrorBuffer { cafconv_av_demuxer_open(path, Self.formats, $0, $1) }
        guard let pointer else { throw AACCodecError(message) }
        handle = pointer
        container = String(cString: cafconv_av_demuxer_container(pointer))
        codec = String(cString: cafconv_av_demuxer_codec(pointer))
        channels = Int(cafconv_av_demuxer_channels(pointer))
        sampleRate = Int(cafconv_av_demuxer_rate(pointer))
        bitRate = cafconv_av_demuxer_bit_rate(pointer)
        audioStreams = Int(cafconv_av_demuxer_audio_streams(pointer))
        var denominator: Int32 = 1
        let numerator = cafconv_av_demuxer_time_base(pointer, &denominator)
        timeBase = (Int(numerator), Int(denominator))
    }

    deinit { cafconv_av_demuxer_close(handle) }

    /// The packets the container's index lists (an MP4's sample table); 0 when it does not say.
    public var listedPackets: Int64 { cafconv_av_demuxer_listed_packets(handle) }

    /// The packets libavformat's index of the stream holds so far; once every packet was read, in
    /// a fragmented MP4 (whose sample table lists none) those its fragments' `trun` boxes list.
    public var indexedPackets: Int64 { cafconv_av_demuxer_indexed_packets(handle) }

    /// The duration of `path`'s audio stream in its time base as the sample table gives it (an
    /// MP4's `stts` added up, or its fragments'), the edit list not applied: a second opening
    /// of the file. `nil` when it cannot be opened or does not say.
    public static func sampleTableDuration(path: String) -> Int64? {
        let duration = cafconv_av_demuxer_table_duration(path, formats)
        return duration >= 0 ? duration : nil
    }

    /// Whether the container is ADTS (no timestamps, no priming recorded).
    public var isADTS: Bool { container == "aac" }

    /// The codec's configuration (an AAC AudioSpecificConfig); for ADTS known once the first
    /// packet was read.
    public var config: [UInt8] {
        var bytes: UnsafePointer<UInt8>?
        let count = Int(cafconv_av_demuxer_config(handle, &bytes))
        guard let bytes, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }

    /// The metadata value stored for `key` (the container's, else the stream's).
    public func tag(_ key: String) -> String? { cafconv_av_demuxer_tag(handle, key).map { String(cString: $0) } }

    /// Every metadata key and value of the container, in libavformat's order.
    public var tags: [(key: String, value: String)] {
        var found: [(String, String)] = []
        var key: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        while found.count < 1024, cafconv_av_demuxer_tag_at(handle, Int32(found.count), &key, &value) == 0, let key, let value {
            found.append((String(cString: key), String(cString: value)))
        }
        return found
    }

    /// One packet as stored.
    public struct Packet {
        /// Its bytes.
        public var bytes: [UInt8]
        /// Its presentation time in ``timeBase`` units (`nil`: unknown).
        public var pts: Int64?
        /// Its duration in ``timeBase`` units (0: unknown).
        public var duration: Int64
        /// The container marks it decoded but not presented (before an edit list's start).
        public var discard: Bool
        /// Frames libavformat says to drop at its start and end.
        public var skipStart: Int64
        public var skipEnd: Int64
        /// libavformat marks it damaged (`AV_PKT_FLAG_CORRUPT`): the file ends inside it.
        public var corrupt = false
        /// Its byte offset in the file (`nil`: unknown).
        public var position: Int64?
    }

    /// The next packet, `nil` at the end; throws a sentence when the file cannot be read, or (ADTS)
    /// when a frame's header changes the profile, rate or channel configuration of the first, or
    /// the file ends before the frame_length its header says.
    public func next() throws(AACCodecError) -> Packet? {
        var packet = cafconv_av_packet()
        let (status, message) = withErrorBuffer { cafconv_av_demuxer_next(handle, &packet, $0, $1) }
        if status < 0 { throw AACCodecError(message) }
        if status == 0 { return nil }
        let bytes = packet.bytes.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, packet.size)))) } ?? []
        return Packet(
            bytes: bytes, pts: packet.pts == Int64.min ? nil : packet.pts, duration: packet.duration,
            discard: packet.discard != 0, skipStart: packet.skip_start, skipEnd: packet.skip_end, corrupt: packet.corrupt != 0,
            position: packet.position >= 0 ? packet.position : nil)
    }
}

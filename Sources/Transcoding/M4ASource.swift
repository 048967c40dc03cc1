import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer

/// `.m4a`/`.mp4` AAC and ADTS `.aac` sources: libavformat demuxes the packets (``AVDemuxer``, never
/// a parser of cafconv's own), libavcodec decodes them (``AACFileDecoder`` fed by the demuxer).
///
/// The accounting a CAF's `pakt` carries is read once from the packets, before anything is written:
/// - MP4 with an edit list: libavformat places the edit's start at time 0, so the first packet's
///   negative timestamp is the priming and the end of the last presented packet the valid frames
///   (ffmpeg's encoder writes 1024 frames of priming, Apple's 2112), never past the sample
///   table's end (the edit's duration is rounded to the movie's time scale);
/// - MP4 without one but with iTunes' `iTunSMPB` tag: its priming, remainder and valid frames;
/// - ADTS, or MP4 with neither: no priming is recorded, so every coded frame is taken as audio,
///   and a warning says so (``SourceWarning/aacPrimingUnknown(container:frames:)``): guessing
///   1024 or 2112 would cut real audio from files whose encoder primed otherwise.
///
/// An ADTS stream is one configuration: a frame whose header changes the profile, rate or channel
/// configuration of the first is refused by the demuxer (``AVDemuxer/next()``), naming it.
///
/// AAC-LC only (the decoder's limit); another lossy codec in MP4 (MP3...) is refused naming it,
/// a lossless one (ALAC) goes the way of other lossless streams libsndfile refuses (libavcodec).
package enum M4ASource {
    /// An MP4 or ADTS AAC stream as its packets describe it.
    package struct Stream: Equatable {
        /// `MP4` or `ADTS`, for messages and `info`.
        package var container: String
        package var channels: Int
        package var sampleRate: Int
        /// The AudioSpecificConfig.
        package var config: [UInt8]
        package var framesPerPacket: Int
        package var packets: Int64
        package var priming: Int
        package var remainder: Int
        package var validFrames: Int64
        package var audioBytes: UInt64
        package var largestPacket: Int
        /// Whether the container records the priming (an edit list or `iTunSMPB`).
        package var primingKnown: Bool
        /// The container's metadata (title, artist...), as libavformat names it.
        package var tags: [String: String]
        /// The audio tracks the file holds: only one is read (libavformat's best).
        package var audioTracks = 1
    }

    /// An opened source: its path and what the scan found.
    package struct Source {
        package let path: String
        package let stream: Stream

        /// A fresh decoding of the source (each call is an independent decoding).
        package func audio() throws(ConversionError) -> SourceAudio {
            SourceAudio(packets: try M4ASource.decoder(path, stream))
        }
    }

    /// Whether `input` starts like MP4 (an `ftyp` box) or ADTS (a sync word with layer 0), the
    /// ADTS perhaps behind an ID3v2 tag (recorders and radio streams write one; libavformat skips
    /// it as it demuxes).
    package static func sniff(_ input: some ByteSource) -> Bool {
        guard let prefix = try? input.read(at: 0, count: 10) else { return false }
        if prefix.count >= 8, Array(prefix[4..<8]) == Array("ftyp".utf8) { return true }
        let start = id3v2Length(prefix, fileLength: input.length) ?? 0
        guard let sync = try? input.read(at: start, count: 2), sync.count == 2 else { return false }
        return sync[0] == 0xFF && sync[1] & 0xF6 == 0xF0
    }

    /// The bytes an ID3v2 tag at the start of a file takes (its 10-byte header, the syncsafe size
    /// of its frames, a 10-byte footer when its flags say so), when `prefix` (the file's first 10
    /// bytes) is such a header and the tag ends before the file does; else `nil`.
    package static func id3v2Length(_ prefix: [UInt8], fileLength: UInt64) -> UInt64? {
        guard prefix.count == 10, Array(prefix[0..<3]) == Array("ID3".utf8), prefix[3] != 0xFF, prefix[4] != 0xFF,
            prefix[6..<10].allSatisfy({ $0 < 0x80 })
        else { return nil }
        let size = prefix[6..<10].reduce(UInt64(0)) { $0 << 7 | UInt64($1) }
        let total = 10 + size + (prefix[5] & 0x10 != 0 ? 10 : 0)
        return total < fileLength ? total : nil
    }

    /// Opens a `convert` job's MP4 or ADTS source: scanned, its AAC checked. `nil` when its audio
    /// is a lossless codec (the caller's libavcodec road takes it); throws for another lossy codec
    /// or an unreadable file, naming why.
    package static func admit(
        _ path: String, input: FileByteSource, content: SourceContent, output: String, warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> SourceStage? {
        try LibAVCodecLoad.load()
        guard let stream = try scan(path) else { return nil }
        if let identity = FileSystem.identity(of: path), identity == FileSystem.identity(of: output) {
            throw .output(.replacesItsSource)
        }
        if !stream.primingKnown {
            warnings.append(.source(.aacPrimingUnknown(container: stream.container, frames: stream.validFrames)))
        }
        if stream.audioTracks > 1 { warnings.append(.source(.otherAudioTracks(count: stream.audioTracks))) }
        let info = SoundInfo(
            frames: stream.validFrames, sampleRate: stream.sampleRate, channels: stream.channels, major: .other(0),
            encoding: .float32, endianness: .little)
        return SourceStage(
            path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: nil, probe: nil,
            encoding: .float32, headerFrames: stream.validFrames, codec: .m4a(Source(path: path, stream: stream)))
    }

    /// Reads every packet of `path` once (nothing is decoded) and returns its accounting; `nil`
    /// when its audio is a lossless codec.
    package static func scan(_ path: String) throws(ConversionError) -> Stream? {
        let demuxer: AVDemuxer
        do { demuxer = try AVDemuxer(path: path) } catch { throw .source(.mp4Unreadable(container: "MP4", reason: error.message)) }
        let container = demuxer.isADTS ? "ADTS" : "MP4"
        guard demuxer.codec == "aac" else {
            if !AVCodecSource.lossyCodecs.contains(demuxer.codec), demuxer.codec != "none" { return nil }
            throw .source(.mp4NotAAC(container: container, codec: demuxer.codec))
        }
        var tally = Tally()
        do {
            while let packet = try demuxer.next() { try tally.add(packet, framesPerPacket: 1024, demuxer: demuxer) }
            if !demuxer.isADTS {
                tally.tableFrames = AVDemuxer.sampleTableDuration(path: path).flatMap { tally.frames($0, demuxer) }
            }
        } catch let error as AACCodecError {
            throw .source(.mp4Unreadable(container: container, reason: error.message))
        } catch {
            throw .source(.mp4Unreadable(container: container, reason: "\(error)"))
        }
        do { return try tally.stream(demuxer, container: container) } catch {
            throw .source(.mp4Unreadable(container: container, reason: error.message))
        }
    }

    /// The next packet's bytes of `demuxer`, in the decoder's error type.
    static func packet(_ demuxer: AVDemuxer) throws(AACFormatError) -> [UInt8]? {
        do throws(AACCodecError) { return try demuxer.next()?.bytes } catch { throw AACFormatError(error.message) }
    }

    /// A decoder of the stream: a fresh demuxing of `path` feeding libavcodec, the priming
    /// dropped, the valid frames kept.
    package static func decoder(_ path: String, _ stream: Stream) throws(ConversionError) -> AACFileDecoder {
        let demuxer: AVDemuxer
        do { demuxer = try AVDemuxer(path: path) } catch {
            throw .source(.mp4Unreadable(container: stream.container, reason: error.message))
        }
        let next = { () throws(AACFormatError) -> [UInt8]? in try packet(demuxer) }
        do throws(AACFormatError) {
            return try AACFileDecoder(
                packets: next, count: stream.packets, config: stream.config, sampleRate: stream.sampleRate,
                channels: stream.channels, framesPerPacket: stream.framesPerPacket, priming: Int64(stream.priming),
                validFrames: stream.validFrames)
        } catch {
            throw .source(.aacUndecodable(error.message))
        }
    }
}

extension M4ASource {
    /// The packets' sizes and timestamps, added up as they are read.
    struct Tally {
        var packets: Int64 = 0
        var bytes: UInt64 = 0
        var largest = 0
        /// The first packet's timestamp and libavformat's frames to skip at its start.
        var first: Int64?
        var firstSkip: Int64 = 0
        /// The end of the last packet presented, in frames.
        var end: Int64 = 0
        /// The first timestamp that breaks the run of whole packets, described.
        var gap: String?
        /// MP4: the frames the sample table gives the packets (their durations added up, the edit
        /// list not applied); `nil` when unknown.
        var tableFrames: Int64?
        /// MP4: the first packet libavformat marks damaged (the file ends inside it), described.
        var damaged: String?

        /// Adds one packet: its bytes, and (MP4) its timestamp in frames, which must follow the
        /// one before by `framesPerPacket`.
        mutating func add(_ packet: AVDemuxer.Packet, framesPerPacket: Int, demuxer: AVDemuxer) throws(AACFormatError) {
            guard !packet.bytes.isEmpty else { throw AACFormatError("its packet \(packets) is empty") }
            if packet.corrupt, damaged == nil {
                let at = packet.position.map { " (at byte \($0))" } ?? ""
                damaged = "the file ends \(packet.bytes.count) bytes into its packet \(packets)\(at)"
            }
            defer {
                packets += 1
                bytes += UInt64(packet.bytes.count)
                largest = max(largest, packet.bytes.count)
            }
            guard !demuxer.isADTS, gap == nil else { return }
            guard let pts = packet.pts.flatMap({ frames($0, demuxer) }), let duration = frames(packet.duration, demuxer) else {
                gap = "packet \(packets) has no timestamp in whole frames"
                return
            }
            if packets == 0 {
                first = pts
                firstSkip = packet.skipStart
            }
            let expected = (first ?? 0) + packets * Int64(framesPerPacket)
            guard pts == expected else {
                gap = "packet \(packets) is at frame \(pts), not \(expected)"
                return
            }
            if !packet.discard { end = max(end, pts + duration) }
        }

        /// `time` in the stream's time base, as frames at its rate; `nil` when not a whole number.
        func frames(_ time: Int64, _ demuxer: AVDemuxer) -> Int64? {
            let (numerator, denominator) = demuxer.timeBase
            guard numerator > 0, denominator > 0, demuxer.sampleRate > 0, abs(time) < 1 << 40 else { return nil }
            let (partial, overflowed) = time.multipliedReportingOverflow(by: Int64(numerator))
            let (scaled, overflowedAgain) = partial.multipliedReportingOverflow(by: Int64(demuxer.sampleRate))
            guard !overflowed, !overflowedAgain, scaled % Int64(denominator) == 0 else { return nil }
            return scaled / Int64(denominator)
        }

        /// The stream the packets make: its AudioSpecificConfig checked, its priming, valid and
        /// remainder frames from the timestamps, `iTunSMPB` or nothing (see ``M4ASource``).
        func stream(_ demuxer: AVDemuxer, container: String) throws(AACFormatError) -> Stream {
            let config = demuxer.config
            guard !config.isEmpty else { throw AACFormatError("it holds no AudioSpecificConfig") }
            let framesPerPacket = try M4ASource.framesPerPacket(config)
            guard demuxer.channels > 0, demuxer.channels <= 64, demuxer.sampleRate > 0 else {
                throw AACFormatError("libavformat finds \(demuxer.channels) channels at \(demuxer.sampleRate) Hz")
            }
            let description = AudioDescription(
                sampleRate: Double(demuxer.sampleRate), formatID: .aac, formatFlags: 0, bytesPerPacket: 0,
                framesPerPacket: UInt32(framesPerPacket), channelsPerFrame: UInt32(demuxer.channels), bitsPerChannel: 0)
            try AACFileDecoder.check(config, against: description)
            try cutShort(demuxer)
            let coded = packets * Int64(framesPerPacket)
            var (priming, valid, known) = (Int64(0), coded, false)
            if !demuxer.isADTS {
                if let gap { throw AACFormatError("its timestamps do not run in whole packets (\(gap)): an edit list of more than one edit is not read") }
                (priming, valid, known) = try timing(demuxer, coded: coded)
            }
            let remainder = coded - priming - valid
            guard priming >= 0, valid >= 0, remainder >= 0, priming <= Int64(Int32.max), remainder <= Int64(Int32.max) else {
                throw AACFormatError("its \(packets) packets code \(coded) frames, but it declares \(priming) priming and \(valid) valid frames")
            }
            var tags: [String: String] = [:]
            for (key, value) in demuxer.tags where tags[key] == nil { tags[key] = value }
            return Stream(
                container: container, channels: demuxer.channels, sampleRate: demuxer.sampleRate, config: config,
                framesPerPacket: framesPerPacket, packets: packets, priming: Int(priming), remainder: Int(remainder),
                validFrames: valid, audioBytes: bytes, largestPacket: largest, primingKnown: known, tags: tags,
                audioTracks: max(1, demuxer.audioStreams))
        }

        /// Throws when the file is cut short: a sample table (or, in a fragmented MP4, the
        /// fragments' `trun` boxes) listing more packets than the file holds, or a packet
        /// libavformat marks damaged because the file ends inside it. (ADTS: the demuxer refuses
        /// a frame shorter than its header says.)
        func cutShort(_ demuxer: AVDemuxer) throws(AACFormatError) {
            let listed = demuxer.listedPackets
            guard listed == 0 || listed == packets else {
                throw AACFormatError("it is cut short: its sample table lists \(listed) packets, the file holds \(packets)")
            }
            let indexed = demuxer.isADTS ? 0 : demuxer.indexedPackets
            guard listed > 0 || indexed <= packets else {
                throw AACFormatError("it is cut short: its fragments list \(indexed) packets, the file holds \(packets)")
            }
            if let damaged { throw AACFormatError("it is cut short: \(damaged)") }
        }

        /// An MP4's priming and valid frames, and whether the file records them. The audio ends at
        /// the edit's end or the sample table's, whichever comes first: the edit's duration is in
        /// the movie's time scale (1/1000 s by ffmpeg's default, 1/600 s by QuickTime's), so
        /// libavformat's end of the last packet may run a few frames past the samples.
        func timing(_ demuxer: AVDemuxer, coded: Int64) throws(AACFormatError) -> (Int64, Int64, Bool) {
            let start = first ?? 0
            // The sample table's end only where it falls less than a packet before the edit's
            // (the edit's duration rounded to the movie's time scale); libavformat's table
            // duration is also the track header's, which files get wrong by far more.
            var end = self.end
            if let table = tableFrames, start + table < end, end - (start + table) < 1024 { end = start + table }
            if start < 0 { return (-start, end, true) }
            guard start == 0 else {
                throw AACFormatError("its audio starts at frame \(start) (an edit list that delays it), which a CAF cannot say")
            }
            if let smpb = demuxer.tag("iTunSMPB").flatMap(M4ASource.iTunSMPB), smpb.priming + smpb.valid <= coded {
                return (smpb.priming, smpb.valid, true)
            }
            if firstSkip > 0 { return (firstSkip, end - firstSkip, true) }
            return (0, end, false)
        }
    }

    /// The frames per packet the AudioSpecificConfig says (1024, or 960 with its frameLengthFlag);
    /// throws for an object type other than AAC-LC.
    static func framesPerPacket(_ config: [UInt8]) throws(AACFormatError) -> Int {
        var bits = config.flatMap { byte in (0..<8).map { Int(byte >> (7 - $0) & 1) } }[...]
        func read(_ count: Int) throws(AACFormatError) -> Int {
            guard bits.count >= count else { throw AACFormatError("its AudioSpecificConfig is cut short") }
            defer { bits = bits.dropFirst(count) }
            return bits.prefix(count).reduce(0) { $0 << 1 | $1 }
        }
        let type = try read(5)
        guard type == 2 else {
            throw AACFormatError("its AudioSpecificConfig says audio object type \(type); cafconv reads AAC-LC (2) from MP4 and ADTS")
        }
        if try read(4) == 15 { _ = try read(24) }
        _ = try read(4)
        return try read(1) == 1 ? 960 : 1024
    }

    /// iTunes' `iTunSMPB` tag: ` 00000000 PRIMING REMAINDER VALID ...` in hexadecimal.
    static func iTunSMPB(_ text: String) -> (priming: Int64, remainder: Int64, valid: Int64)? {
        let fields = text.split(separator: " ").compactMap { Int64($0, radix: 16) }
        guard fields.count >= 4, fields[1] >= 0, fields[2] >= 0, fields[3] > 0 else { return nil }
        return (fields[1], fields[2], fields[3])
    }
}

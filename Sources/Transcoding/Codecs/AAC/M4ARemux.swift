import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SystemLayer

/// An MP4/M4A or ADTS AAC source moved into CAF without decoding: every packet libavformat
/// hands out copied byte for byte, the AudioSpecificConfig in the `kuki` (the ES_Descriptor form
/// Apple's encoder writes), the priming, remainder and valid frames the source records
/// (``M4ASource``) in the `pakt`, the tags CAF has keys for in `info` (``infoKeys``), laid out as
/// afconvert lays out an AAC CAF. The packets go to
/// spool files as they are read: memory stays bounded by one packet.
package enum M4ARemux {
    /// Whether the job moves an MP4 or ADTS source's packets rather than encoding: the source is
    /// AAC (``M4ASource``) and nothing asks for a change the packets cannot carry (another rate or
    /// channel count, a bit rate, a loudness gain) and `--reencode` is not given.
    package static func moves(_ source: SourceStage, options: ConversionOptions) -> Bool {
        guard case .m4a(let m4a)? = source.codec else { return false }
        return (options.sampleRate == nil || options.sampleRate == m4a.stream.sampleRate)
            && (options.channels == nil || options.channels == m4a.stream.channels) && options.bitRate == nil
            && options.loudnessTarget == nil && options.loudnessGain == nil && !options.reencode
    }

    /// Demuxes `source` again and writes the AAC CAF into `output` (an empty file in `folder`);
    /// `nil` when `isCancelled` said stop.
    package static func remux(
        _ source: M4ASource.Source, to output: Int32, folder: FileSystem.Folder, info: [CAFChunk] = [],
        isCancelled: () -> Bool
    ) throws(ConversionError) -> M4ASource.Stream? {
        let stream = source.stream
        let demuxer = try demux(source)
        let spooled = try SpooledPackets(in: folder)
        while true {
            if spooled.count & 1023 == 0, isCancelled() { return nil }
            let next: AVDemuxer.Packet?
            do { next = try demuxer.next() } catch {
                throw .source(.mp4Unreadable(container: stream.container, reason: error.message))
            }
            guard let packet = next else { break }
            try spooled.append(packet.bytes)
        }
        guard spooled.count == stream.packets, spooled.packets.length == stream.audioBytes else {
            throw .source(.sourceEndedEarly)
        }
        let header = PacketTableHeader(
            numberPackets: stream.packets, numberValidFrames: stream.validFrames, primingFrames: Int32(stream.priming),
            remainderFrames: Int32(stream.remainder))
        let done = try AACStage.assemble(
            spooled, config: stream.config, framesPerPacket: stream.framesPerPacket, header: header,
            channels: stream.channels, sampleRate: stream.sampleRate, extra: info, to: output, isCancelled: isCancelled)
        return done ? stream : nil
    }

    /// The source's tags that CAF's `info` chunk has keys for (libavformat's names, CAF's keys).
    package static let infoKeys: [(tag: String, key: String)] = [
        ("title", "title"), ("artist", "artist"), ("album", "album"), ("composer", "composer"), ("genre", "genre"),
        ("date", "year"), ("track", "track number"), ("comment", "comments"), ("copyright", "copyright"),
        ("lyrics", "lyricist"), ("encoder", "encoding application"),
    ]

    /// The `info` chunk of `tags` (none when no tag maps, or with `--strip-metadata`).
    package static func infoChunk(_ tags: [String: String]) -> [CAFChunk] {
        let entries = infoKeys.compactMap { pair in tags[pair.tag].map { InfoEntry(key: pair.key, value: $0) } }
        return entries.isEmpty ? [] : [.info(InfoStrings(entries))]
    }

    /// A fresh demuxing of the source.
    private static func demux(_ source: M4ASource.Source) throws(ConversionError) -> AVDemuxer {
        do { return try AVDemuxer(path: source.path) } catch {
            throw .source(.mp4Unreadable(container: source.stream.container, reason: error.message))
        }
    }

    /// The proof of a move, without decoding (``PacketMove``): CAFKit reads the written file back
    /// (layout, `pakt` accounting, the `kuki`'s AudioSpecificConfig) and hands out its packets,
    /// which must be byte-identical, in order and in number, to a fresh demuxing of the source;
    /// priming, remainder and valid frames must be the source's. `nil` when cancelled.
    package static func prove(
        _ path: String, source: M4ASource.Source, moved: M4ASource.Stream, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof? {
        var expected = CAFExpectations(channels: UInt32(moved.channels), sampleRate: Double(moved.sampleRate))
        expected.formatID = .aac
        expected.validFrames = UInt64(moved.validFrames)
        let demuxer: AVDemuxer
        do { demuxer = try AVDemuxer(path: source.path) } catch { throw .proof(.sourceUnreadable(reason: error.message)) }
        let accounting = PacketMove.Accounting(
            packets: moved.packets, priming: moved.priming, remainder: moved.remainder, validFrames: moved.validFrames)
        return try PacketMove.prove(
            path, expecting: expected, accounting: accounting,
            naming: PacketMove.Naming(codec: "AAC", rule: "aac-packets-moved", sourceReader: "libavformat"),
            check: { file, bytes throws(ConversionError) in try checkCookie(file, bytes: bytes, moved: moved) },
            isCancelled: isCancelled
        ) { () throws(ConversionError) -> [UInt8]? in
            do throws(AACCodecError) { return try demuxer.next()?.bytes } catch { throw .proof(.sourceUnreadable(reason: error.message)) }
        }
    }

    /// The written `kuki` must hold the source's AudioSpecificConfig.
    private static func checkCookie(_ file: CAFFile, bytes: FileByteSource, moved: M4ASource.Stream) throws(ConversionError) {
        guard let kuki = file.chunks.first(where: { $0.type == .kuki }), kuki.size <= 1 << 16,
            let cookie = try? bytes.readExactly(at: kuki.bodyOffset, count: Int(kuki.size)),
            let descriptor = try? MPEG4ESDescriptor(parsing: cookie), descriptor.audioSpecificConfig == moved.config
        else {
            throw .proof(.invalid(finding: "its 'kuki' does not hold the source's AudioSpecificConfig"))
        }
    }
}

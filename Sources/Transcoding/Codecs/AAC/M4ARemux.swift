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
        let spooled = AACStage.Spooled(packets: try AACStage.Spool(in: folder), table: try AACStage.Spool(in: folder))
        while true {
            if spooled.count & 1023 == 0, isCancelled() { return nil }
            let next: AVDemuxer.Packet?
            do { next = try demuxer.next() } catch {
                throw .source(.mp4Unreadable(container: stream.container, reason: error.message))
            }
            guard let packet = next else { break }
            var failure: ConversionError?
            packet.bytes.withUnsafeBytes { bytes in
                do throws(ConversionError) { try spooled.append(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
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

    /// The proof of a move, without decoding: CAFKit reads the written file back (layout, `pakt`
    /// accounting, the `kuki`'s AudioSpecificConfig) and hands out its packets, which must be
    /// byte-identical, in order and in number, to a fresh demuxing of the source; priming,
    /// remainder and valid frames must be the source's. `nil` when cancelled.
    package static func prove(
        _ path: String, source: M4ASource.Source, moved: M4ASource.Stream, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof? {
        let (bytes, file) = try ContainerStage.readBackFile(path)
        var expected = CAFExpectations(channels: UInt32(moved.channels), sampleRate: Double(moved.sampleRate))
        expected.formatID = .aac
        expected.validFrames = UInt64(moved.validFrames)
        if let first = CAFValidator.validate(file, expecting: expected).first {
            throw .proof(.invalid(finding: "\(first)"))
        }
        try checkHeader(file, bytes: bytes, moved: moved)
        var packets: CAFPacketReader
        do { packets = try CAFPacketReader(file: file, source: bytes) } catch { throw .proof(.unreadable(reason: error.message)) }
        let demuxer: AVDemuxer
        do { demuxer = try AVDemuxer(path: source.path) } catch { throw .proof(.sourceUnreadable(reason: error.message)) }
        var index: Int64 = 0
        while true {
            if index & 1023 == 0, isCancelled() { return nil }
            let original: AVDemuxer.Packet?
            do { original = try demuxer.next() } catch { throw .proof(.sourceUnreadable(reason: error.message)) }
            let copied: (offset: UInt64, size: Int)?
            do { copied = try packets.next() } catch { throw .proof(.unreadable(reason: error.message)) }
            switch (original, copied) {
            case (nil, nil):
                var proof = Proof(
                    comparison: "exact", rule: "aac-packets-moved", sourceDecoder: "libavformat", outputDecoder: "cafkit",
                    extent: "every-packet")
                proof.primingFrames = moved.priming
                return proof
            case (let original?, let copied?):
                let held: [UInt8]
                do { held = try bytes.readExactly(at: copied.offset, count: copied.size) } catch {
                    throw .proof(.unreadable(reason: "\(error)"))
                }
                guard held == original.bytes else { throw .proof(.invalid(finding: "packet \(index) differs from the source's")) }
            default:
                throw .proof(
                    .invalid(finding: "it holds \(copied == nil ? "fewer" : "more") packets than the source (\(index) in common)"))
            }
            index += 1
        }
    }

    /// The written `pakt` must hold the source's accounting and the `kuki` its AudioSpecificConfig.
    private static func checkHeader(_ file: CAFFile, bytes: FileByteSource, moved: M4ASource.Stream) throws(ConversionError) {
        guard let header = file.packetTableHeader, header.numberPackets == moved.packets,
            Int(header.primingFrames) == moved.priming, Int(header.remainderFrames) == moved.remainder,
            header.numberValidFrames == moved.validFrames
        else {
            throw .proof(
                .invalid(
                    finding: "its 'pakt' does not hold the source's \(moved.packets) packets, \(moved.priming) priming, \(moved.validFrames) valid and \(moved.remainder) remainder frames"))
        }
        guard let kuki = file.chunks.first(where: { $0.type == .kuki }), kuki.size <= 1 << 16,
            let cookie = try? bytes.readExactly(at: kuki.bodyOffset, count: Int(kuki.size)),
            let descriptor = try? MPEG4ESDescriptor(parsing: cookie), descriptor.audioSpecificConfig == moved.config
        else {
            throw .proof(.invalid(finding: "its 'kuki' does not hold the source's AudioSpecificConfig"))
        }
    }
}

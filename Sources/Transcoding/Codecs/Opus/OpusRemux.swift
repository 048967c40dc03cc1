import BinaryIO
import CAFKit
import ConversionModel
import OggOpus
import OutputFiles
import SystemLayer

/// Opus packets moved into CAF without decoding, from an Ogg Opus stream or an Opus CAF: every
/// packet copied byte for byte and laid out as Apple's Opus CAF (``CAFWriter/opusLayout``,
/// audio at 4096). From Ogg: the `OpusHead` pre-skip as the `pakt` priming and the last page's
/// granule position as the end trimming (remainder), at 48000 Hz (Ogg Opus's granule rate), a
/// cookie saying audio and an automatic bit rate (Ogg does not record the application). From a
/// CAF: its rate, its `pakt` priming, remainder and valid frames, its `kuki` (a cookie like
/// Ogg's when it has none) and its metadata chunks. The packets go to spool files as they are
/// read, so memory stays bounded by one page and one packet.
package enum OpusRemux {
    /// What was moved.
    package struct Remuxed: Equatable {
        package var sampleRate: Int
        package var channels: Int
        package var framesPerPacket: Int
        package var packets: Int64
        package var priming: Int
        package var remainder: Int
        package var validFrames: Int64
        package var audioBytes: UInt64
        /// The `OpusHead` output gain (Q7.8 dB), which CAF cannot carry (0 for a CAF source).
        package var outputGain: Int
        /// The `kuki` written.
        package var cookie: OpusCookie

        /// The accounting the written `pakt` holds.
        package var accounting: PacketMove.Accounting {
            PacketMove.Accounting(packets: packets, priming: priming, remainder: remainder, validFrames: validFrames)
        }
    }

    /// Whether the job moves an Opus source's packets rather than encoding: nothing asks for a
    /// change the packets cannot carry (another rate or channel count, a bit rate or strategy, a
    /// loudness gain), `--reencode` is not given, and a CAF's `pakt` is to be trusted. An Opus
    /// CAF in ffmpeg's layout (priming 0, valid frames = packets x frames per packet: the
    /// encoder's pre-skip dropped, and no `kuki` that would hold it) is decoded and encoded
    /// again instead: a move would carry its wrong length forward into a file that looks right.
    package static func moves(_ source: SourceStage, options: ConversionOptions) -> Bool {
        guard case .opus(let opus)? = source.codec, (1...2).contains(source.info.channels) else { return false }
        if let file = opus.file, OpusSourceRoute.untrusted(file) { return false }
        return (options.sampleRate == nil || options.sampleRate == source.info.sampleRate)
            && (options.channels == nil || options.channels == source.info.channels) && options.bitRate == nil
            && options.bitRateStrategy == nil && !options.reencode && options.loudnessTarget == nil
            && options.loudnessGain == nil
    }

    /// The reason the source cannot be moved into CAF as it is.
    package static func refuse(_ reason: String) -> ConversionError { .source(.unusable(reason: reason)) }

    /// What an Opus CAF source carries into the moved file besides its packets: its `chan` when
    /// it describes the file's channels (and is laid out as the spec or Apple writes it), and its
    /// metadata chunks (none with `stripMetadata`, and none from Ogg), with the warnings their
    /// reading gave.
    package static func carried(_ source: OpusSourceRoute.Source, channels: Int, stripMetadata: Bool) -> (
        layout: ChannelLayout?, metadata: [CAFChunk], warnings: [MetadataWarning]
    ) {
        guard source.file != nil, let document = try? CAFDocument(reading: source.input) else { return (nil, [], []) }
        var layout: ChannelLayout?
        for case .channelLayout(let found) in document.contents.chunks
        where found.channelCount == channels && found.descriptions.count == Int(found.declaredCount)
            && (found.trailing.isEmpty || found.isAppleZeroedSlot)
        {
            layout = found
            break
        }
        if stripMetadata { return (layout, [], []) }
        let (metadata, warnings) = MetadataMapping.corrected(CAFMetadata(contents: document.contents))
        return (layout, metadata.chunks, warnings)
    }

    /// Reads the Opus `source` and writes the Opus CAF into `output` (an empty file in `folder`):
    /// `layout` as its `chan` (else the mono or stereo tag), `extra` chunks (metadata) after it;
    /// `nil` when `isCancelled` said stop.
    package static func remux(
        _ source: OpusSourceRoute.Source, layout: ChannelLayout? = nil, extra: [CAFChunk] = [], to output: Int32,
        folder: FileSystem.Folder, isCancelled: () -> Bool
    ) throws(ConversionError) -> Remuxed? {
        var packets: OpusPackets
        var caf: OpusFileDecoder?
        do {
            if let file = source.file {
                caf = try OpusFileDecoder(file: file, source: source.input)
                packets = try OpusPackets(caf: file, source: source.input)
            } else {
                packets = try OpusPackets(ogg: source.input)
            }
        } catch { throw .source(.brokenContainer(reason: error.message)) }
        let spooled = try SpooledPackets(in: folder)
        var framesPerPacket = caf?.framesPerPacket ?? 0
        while true {
            if packets.packetsRead & 1023 == 0, isCancelled() { return nil }
            let next: (bytes: [UInt8], frames: Int?)?
            do { next = try packets.next() } catch { throw .source(.brokenContainer(reason: error.message)) }
            guard let packet = next else { break }
            if let frames = packet.frames {
                if framesPerPacket == 0 { framesPerPacket = frames }
                guard frames == framesPerPacket else {
                    throw refuse(
                        "its Opus packets vary in duration (packet \(packets.packetsRead - 1) holds \(frames) frames, the first \(framesPerPacket)); a CAF holds packets of one duration, so it must be encoded again"
                    )
                }
            }
            try spooled.append(packet.bytes)
        }
        try spooled.flush()
        let moved: Remuxed
        if let caf, let header = source.file?.packetTableHeader {
            moved = Remuxed(
                sampleRate: caf.sampleRate, channels: caf.channels, framesPerPacket: caf.framesPerPacket, packets: spooled.count,
                priming: Int(caf.primingFrames), remainder: Int(header.remainderFrames), validFrames: caf.validFrames,
                audioBytes: spooled.packets.length, outputGain: 0,
                cookie: caf.cookie
                    ?? defaultCookie(sampleRate: caf.sampleRate, framesPerPacket: caf.framesPerPacket, channels: caf.channels))
        } else if let ogg = packets.ogg {
            moved = try accounting(ogg, spooled: spooled, framesPerPacket: framesPerPacket == 0 ? 960 : framesPerPacket)
        } else {
            throw .source(.brokenContainer(reason: "its Opus CAF has no 'pakt' chunk"))
        }
        let header = PacketTableHeader(
            numberPackets: moved.packets, numberValidFrames: moved.validFrames, primingFrames: Int32(moved.priming),
            remainderFrames: Int32(clamping: moved.remainder))
        let layout = CAFWriter.opusLayout(
            sampleRate: Double(moved.sampleRate), channels: moved.channels, framesPerPacket: moved.framesPerPacket,
            cookie: moved.cookie, packetTable: header, tableBytes: Int(spooled.table.length), audioBytes: spooled.packets.length,
            channelLayout: layout, extra: extra)
        return try spooled.write(layout, to: output, isCancelled: isCancelled) ? moved : nil
    }

    /// The cookie of a source that has none: audio, an automatic bit rate.
    static func defaultCookie(sampleRate: Int, framesPerPacket: Int, channels: Int) -> OpusCookie {
        OpusCookie(
            application: 2049, sampleRate: Int32(sampleRate), framesPerPacket: Int32(framesPerPacket),
            bitRate: OpusCookie.automaticBitRate, channels: Int32(channels))
    }

    /// What an Ogg stream read to its end moves: pre-skip, end trimming and length at 48 kHz.
    private static func accounting(_ ogg: OggOpusReader, spooled: SpooledPackets, framesPerPacket: Int) throws(ConversionError)
        -> Remuxed
    {
        let accounting: OggOpusReader.Accounting
        do { accounting = try ogg.accounting(maximumTrim: Int64(framesPerPacket)) } catch {
            throw .source(.brokenContainer(reason: error.message))
        }
        return Remuxed(
            sampleRate: 48_000, channels: ogg.head.channels, framesPerPacket: framesPerPacket, packets: spooled.count,
            priming: Int(accounting.priming), remainder: Int(accounting.remainder), validFrames: accounting.validFrames,
            audioBytes: spooled.packets.length, outputGain: ogg.head.outputGain,
            cookie: defaultCookie(sampleRate: 48_000, framesPerPacket: framesPerPacket, channels: ogg.head.channels))
    }
}

extension OpusRemux {
    /// The proof of a move, without decoding (``PacketMove``): CAFKit reads the written file back
    /// (layout, Opus rules, `pakt` accounting, the `kuki`) and hands out its packets, which must
    /// be byte-identical, in order and in number, to a fresh reading of the source; priming,
    /// remainder and valid frames must be the source's (Ogg: pre-skip, end trimming and length).
    /// `nil` when cancelled.
    package static func prove(
        _ path: String, source: OpusSourceRoute.Source, moved: Remuxed, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof? {
        var expected = CAFExpectations(channels: UInt32(moved.channels), sampleRate: Double(moved.sampleRate))
        expected.formatID = .opus
        expected.validFrames = UInt64(moved.validFrames)
        var packets: OpusPackets
        do throws(OpusFormatError) {
            if let file = source.file {
                packets = try OpusPackets(caf: file, source: source.input)
            } else {
                packets = try OpusPackets(ogg: source.input)
            }
        } catch { throw .proof(.sourceUnreadable(reason: error.message)) }
        let naming = PacketMove.Naming(
            codec: "Opus", rule: "opus-packets-moved", sourceReader: source.file == nil ? "cafconv-ogg" : "cafkit")
        return try PacketMove.prove(
            path, expecting: expected, accounting: moved.accounting, naming: naming,
            check: { file, bytes throws(ConversionError) in try checkCookie(file, bytes: bytes, moved: moved) },
            isCancelled: isCancelled
        ) { () throws(ConversionError) -> [UInt8]? in
            do throws(OpusFormatError) { return try packets.next()?.bytes } catch {
                throw .proof(.sourceUnreadable(reason: error.message))
            }
        }
    }

    /// The written `kuki` must be the cookie moved (the source's own, for a CAF).
    private static func checkCookie(_ file: CAFFile, bytes: FileByteSource, moved: Remuxed) throws(ConversionError) {
        guard let kuki = file.chunks.first(where: { $0.type == .kuki }), kuki.size == UInt64(OpusCookie.size),
            let cookie = try? bytes.readExactly(at: kuki.bodyOffset, count: OpusCookie.size), cookie == moved.cookie.bytes
        else {
            throw .proof(.packetsNotMoved(codec: "Opus", reason: "its 'kuki' is not the source's Opus cookie"))
        }
    }
}

import BinaryIO
import CAFKit
import ConversionModel
import OggOpus
import OutputFiles
import SystemLayer

/// Ogg Opus moved into CAF without decoding: every packet copied byte for byte, the `OpusHead`
/// pre-skip as the `pakt` priming and the last page's granule position as the end trimming
/// (remainder), at 48000 Hz (Ogg Opus's granule rate), laid out as Apple's Opus CAF. The packets
/// go to spool files as they are read, so memory stays bounded by one page and one packet.
package enum OggOpusRemux {
    /// What was moved.
    package struct Remuxed: Equatable {
        package var channels: Int
        package var framesPerPacket: Int
        package var packets: Int64
        package var priming: Int
        package var remainder: Int
        package var validFrames: Int64
        package var audioBytes: UInt64
        /// The `OpusHead` output gain (Q7.8 dB), which CAF cannot carry.
        package var outputGain: Int
    }

    /// The reason the source cannot be moved into CAF as it is.
    package static func refuse(_ reason: String) -> ConversionError { .source(.unusable(reason: reason)) }

    /// Reads the Ogg Opus `source` and writes the Opus CAF into `output` (an empty file in
    /// `folder`); `nil` when `isCancelled` said stop.
    package static func remux(
        _ source: any ByteSource, to output: Int32, folder: FileSystem.Folder, isCancelled: () -> Bool
    ) throws(ConversionError) -> Remuxed? {
        var reader: OggOpusReader
        do { reader = try OggOpusReader(source: source) } catch { throw ConversionError.source(.brokenContainer(reason: error.message)) }
        let spooled = AACStage.Spooled(packets: try AACStage.Spool(in: folder), table: try AACStage.Spool(in: folder))
        var framesPerPacket = 0
        while true {
            if reader.packetsRead & 1023 == 0, isCancelled() { return nil }
            let next: OggOpusReader.Packet?
            do { next = try reader.next() } catch { throw ConversionError.source(.brokenContainer(reason: error.message)) }
            guard let packet = next else { break }
            if framesPerPacket == 0 { framesPerPacket = packet.frames }
            guard packet.frames == framesPerPacket else {
                throw refuse(
                    "its Opus packets vary in duration (packet \(reader.packetsRead - 1) holds \(packet.frames) frames, the first \(framesPerPacket)); a CAF holds packets of one duration, so it must be encoded again")
            }
            var failure: ConversionError?
            packet.bytes.withUnsafeBytes { bytes in
                do throws(ConversionError) { try spooled.append(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try spooled.packets.flush()
        try spooled.table.flush()
        let accounting: OggOpusReader.Accounting
        do { accounting = try reader.accounting(maximumTrim: Int64(framesPerPacket)) } catch {
            throw ConversionError.source(.brokenContainer(reason: error.message))
        }
        let valid = accounting.validFrames
        let remainder = accounting.remainder
        let remuxed = Remuxed(
            channels: reader.head.channels, framesPerPacket: max(framesPerPacket, 960), packets: spooled.count,
            priming: Int(accounting.priming), remainder: Int(remainder), validFrames: valid,
            audioBytes: spooled.packets.length, outputGain: reader.head.outputGain)
        // The application is not recorded in Ogg Opus: the cookie says audio, the bit rate automatic.
        let cookie = OpusCookie(
            application: 2049, sampleRate: 48_000, framesPerPacket: Int32(remuxed.framesPerPacket),
            bitRate: OpusCookie.automaticBitRate, channels: Int32(remuxed.channels))
        let header = PacketTableHeader(
            numberPackets: remuxed.packets, numberValidFrames: valid, primingFrames: Int32(remuxed.priming),
            remainderFrames: Int32(clamping: remainder))
        let layout = CAFWriter.opusLayout(
            sampleRate: 48_000, channels: remuxed.channels, framesPerPacket: remuxed.framesPerPacket, cookie: cookie,
            packetTable: header, tableBytes: Int(spooled.table.length), audioBytes: spooled.packets.length)
        var offset: UInt64 = 0
        try FileSystem.writeAll(output, layout.before, at: offset)
        offset += UInt64(layout.before.count)
        offset = try spooled.table.copy(to: output, at: offset, isCancelled: isCancelled)
        try FileSystem.writeAll(output, layout.after, at: offset)
        offset += UInt64(layout.after.count)
        _ = try spooled.packets.copy(to: output, at: offset, isCancelled: isCancelled)
        return isCancelled() ? nil : remuxed
    }
}

extension OggOpusRemux {
    /// The proof of a move, without decoding: CAFKit reads the written file back (layout, Opus
    /// rules, `pakt` accounting) and hands out its packets, which must be byte-identical, in
    /// order and in number, to a fresh reading of the Ogg source; priming, remainder and valid
    /// frames must be the source's pre-skip, end trimming and length. `nil` when cancelled.
    package static func prove(
        _ path: String, source: any ByteSource, moved: Remuxed, isCancelled: () -> Bool
    ) throws(ConversionError) -> Proof? {
        let (bytes, file) = try ContainerStage.readBackFile(path)
        var expected = CAFExpectations(channels: UInt32(moved.channels), sampleRate: 48_000)
        expected.formatID = .opus
        expected.validFrames = UInt64(moved.validFrames)
        if let first = CAFValidator.validate(file, expecting: expected).first {
            throw ConversionError.proof(.invalid(finding: "\(first)"))
        }
        guard let header = file.packetTableHeader, header.numberPackets == moved.packets,
            Int(header.primingFrames) == moved.priming, Int(header.remainderFrames) == moved.remainder
        else {
            throw ConversionError.proof(
                .packetsNotMoved(codec: "Opus", reason: "its 'pakt' does not hold the source's \(moved.packets) packets, \(moved.priming) priming and \(moved.remainder) remainder frames"))
        }
        var packets: CAFPacketReader
        var ogg: OggOpusReader
        do { packets = try CAFPacketReader(file: file, source: bytes) } catch {
            throw ConversionError.proof(.lossyUndecodable(codec: "Opus", reason: error.message))
        }
        do { ogg = try OggOpusReader(source: source) } catch { throw ConversionError.proof(.sourceUnreadable(reason: error.message)) }
        var index: Int64 = 0
        while true {
            if index & 1023 == 0, isCancelled() { return nil }
            let original: OggOpusReader.Packet?
            do { original = try ogg.next() } catch { throw ConversionError.proof(.sourceUnreadable(reason: error.message)) }
            let copied: (offset: UInt64, size: Int)?
            do { copied = try packets.next() } catch { throw ConversionError.proof(.lossyUndecodable(codec: "Opus", reason: error.message)) }
            switch (original, copied) {
            case (nil, nil):
                var proof = Proof(
                    comparison: "exact", rule: "opus-packets-moved", sourceDecoder: "cafconv-ogg", outputDecoder: "cafkit",
                    extent: "every-packet")
                proof.primingFrames = moved.priming
                return proof
            case (let original?, let copied?):
                let held: [UInt8]
                do { held = try bytes.readExactly(at: copied.offset, count: copied.size) } catch {
                    throw ConversionError.proof(.unreadable(reason: "\(error)"))
                }
                guard held == original.bytes else {
                    throw ConversionError.proof(.packetsNotMoved(codec: "Opus", reason: "packet \(index) differs from the source's"))
                }
            default:
                throw ConversionError.proof(
                    .packetsNotMoved(codec: "Opus", reason: "it holds \(copied == nil ? "fewer" : "more") packets than the source (\(index) in common)"))
            }
            index += 1
        }
    }
}

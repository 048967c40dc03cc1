import BinaryIO
import CAFKit
import OggOpus

/// The packets of an Opus CAF (CAFKit's reading of its `pakt` sizes) or of an Ogg Opus stream
/// (its pages, CRC-checked), one at a time: what libopus decodes (``OpusFileDecoder``) and what a
/// move copies and its proof compares (``OpusRemux``). Memory stays bounded by one page and one
/// packet.
package struct OpusPackets {
    private enum Reader {
        case caf(CAFPacketReader, any ByteSource)
        case ogg(OggOpusReader)
    }
    /// `nil` only while a reader is out being advanced (so that it is advanced in place, not copied).
    private var reader: Reader?

    /// The packets of the Opus CAF `file` read from `source`.
    package init(caf file: CAFFile, source: any ByteSource) throws(OpusFormatError) {
        do { reader = .caf(try CAFPacketReader(file: file, source: source), source) } catch {
            throw OpusFormatError(error.message)
        }
    }

    /// The packets of the Ogg Opus stream in `source` (its `OpusHead` read).
    package init(ogg source: any ByteSource) throws(OpusFormatError) {
        do { reader = .ogg(try OggOpusReader(source: source)) } catch { throw OpusFormatError(error.message) }
    }

    /// The Ogg reader (its `OpusHead` and, after the last packet, its accounting); `nil` for a CAF.
    package var ogg: OggOpusReader? {
        if case .ogg(let reader)? = reader { return reader }
        return nil
    }

    /// The packets read so far.
    package var packetsRead: Int64 {
        switch reader {
        case .caf(let reader, _)?: return reader.packetsRead
        case .ogg(let reader)?: return reader.packetsRead
        case nil: return 0
        }
    }

    /// The packets the file holds: a CAF's `pakt` count; for Ogg, those read so far.
    package var packetCount: Int64 {
        switch reader {
        case .caf(let reader, _)?: return reader.packetCount
        case .ogg(let reader)?: return reader.packetsRead
        case nil: return 0
        }
    }

    /// The next packet's bytes and, for Ogg, its duration at 48 kHz (a CAF's packets all hold its
    /// `desc` frames per packet), or `nil` after the last.
    package mutating func next() throws(OpusFormatError) -> (bytes: [UInt8], frames: Int?)? {
        guard let current = reader else { return nil }
        reader = nil
        switch consume current {
        case .caf(var packets, let source):
            let next: (offset: UInt64, size: Int)?
            do { next = try packets.next() } catch { throw OpusFormatError(error.message) }
            reader = .caf(packets, source)
            guard let packet = next else { return nil }
            do { return (try source.readExactly(at: packet.offset, count: packet.size), nil) } catch {
                throw OpusFormatError("cannot read packet \(packets.packetsRead - 1): \(error)")
            }
        case .ogg(var packets):
            let next: OggOpusReader.Packet?
            do { next = try packets.next() } catch { throw OpusFormatError(error.message) }
            reader = .ogg(packets)
            return next.map { ($0.bytes, $0.frames) }
        }
    }
}

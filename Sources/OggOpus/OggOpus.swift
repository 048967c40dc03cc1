import BinaryIO

/// What is wrong with an Ogg Opus stream: one sentence naming the byte or page.
public struct OggOpusError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An Ogg Opus file (RFC 7845) read a page at a time from a byte source: the `OpusHead` header,
/// then every audio packet with its duration, and the granule position of the last page (the end
/// trimming). Bounded and hostile-input safe: every size is checked against the file before it is
/// used, every page's CRC is checked, an audio packet is at most ``maximumPacketBytes`` (the
/// `OpusTags` header may be any size, and is read past); chained streams,
/// interleaved (multiplexed) streams and channel mapping families other than 0 are refused.
public struct OggOpusReader {
    /// The largest packet accepted (an Opus packet of 120 ms at 510 kb/s is under 8 KiB).
    public static let maximumPacketBytes = 1 << 16
    /// The bytes of the `OpusTags` packet kept (its magic, vendor string and first comments); the
    /// rest, cover art included, is read past without being held.
    public static let tagsPrefixBytes = 4096

    /// The `OpusHead` fields cafconv uses.
    public struct Head: Equatable, Sendable {
        public var channels: Int
        /// Frames at 48 kHz to drop from the start of the decoded output.
        public var preSkip: Int
        /// The rate the encoder was fed (informational: Opus decodes at 48 kHz).
        public var inputSampleRate: Int
        /// Q7.8 dB gain to apply when decoding.
        public var outputGain: Int

        public init(channels: Int, preSkip: Int, inputSampleRate: Int, outputGain: Int) {
            self.channels = channels
            self.preSkip = preSkip
            self.inputSampleRate = inputSampleRate
            self.outputGain = outputGain
        }
    }

    /// One audio packet: where its bytes are (a packet may span pages, so its bytes are copied
    /// out) and how many 48 kHz frames it decodes to.
    public struct Packet {
        public var bytes: [UInt8]
        public var frames: Int
    }

    private let source: any ByteSource
    private var offset: UInt64 = 0
    private var serial: UInt32?
    private var sequence: UInt32 = 0
    private var pending: [UInt8] = []
    private var pageSegments: [Int] = []
    private var pageBody: [UInt8] = []
    private var segmentIndex = 0
    private var bodyIndex = 0
    private var pageGranule: Int64 = -1
    private var sawEnd = false
    /// The header.
    public private(set) var head: Head
    /// The granule position of the last page read that completed a packet (-1: none yet).
    public private(set) var lastGranule: Int64 = -1
    /// Pages read.
    public private(set) var pages = 0
    /// 48 kHz frames of the packets handed out so far.
    public private(set) var framesRead: Int64 = 0
    /// Audio packets handed out so far.
    public private(set) var packetsRead: Int64 = 0
    /// The 48 kHz frames of the packets up to the end of the first audio page, and that page's
    /// granule position: a stream that starts at 0 has them equal.
    public private(set) var firstPage: (frames: Int64, granule: Int64)?
    /// Whether the packet `nextPacket` returned last completed its page's packets.
    private var endedPage = false

    /// Opens the stream: reads the `OpusHead` packet and reads past the `OpusTags` packet, of any
    /// size, keeping none of it but its first bytes (``nextPacket(prefix:)``).
    public init(source: any ByteSource) throws(OggOpusError) {
        self.source = source
        head = Head(channels: 0, preSkip: 0, inputSampleRate: 0, outputGain: 0)
        guard let first = try nextPacket() else { throw OggOpusError("it holds no Ogg packet") }
        head = try Self.parseHead(first)
        guard let tags = try nextPacket(prefix: Self.tagsPrefixBytes), tags.count >= 8,
            Array(tags.prefix(8)) == Array("OpusTags".utf8)
        else {
            throw OggOpusError("its second packet is not OpusTags (RFC 7845 section 5.2)")
        }
    }

    static func parseHead(_ bytes: [UInt8]) throws(OggOpusError) -> Head {
        guard bytes.count >= 19, Array(bytes.prefix(8)) == Array("OpusHead".utf8) else {
            throw OggOpusError("it is not Ogg Opus: its first packet is not an OpusHead")
        }
        guard bytes[8] >> 4 == 0 else { throw OggOpusError("its OpusHead has version \(bytes[8]), a major version cafconv does not read") }
        let channels = Int(bytes[9])
        let preSkip = Int(bytes[10]) | Int(bytes[11]) << 8
        let rate = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
        let gain = Int(Int16(bitPattern: UInt16(bytes[16]) | UInt16(bytes[17]) << 8))
        let family = bytes[18]
        guard family == 0 else {
            throw OggOpusError(
                "its OpusHead has channel mapping family \(family) (\(channels) channels in several streams); cafconv reads family 0 (mono or stereo) only")
        }
        guard channels == 1 || channels == 2 else {
            throw OggOpusError("its OpusHead declares \(channels) channels with mapping family 0, which allows 1 or 2")
        }
        return Head(channels: channels, preSkip: preSkip, inputSampleRate: rate, outputGain: gain)
    }

    /// The next audio packet, or `nil` at the end of the stream.
    public mutating func next() throws(OggOpusError) -> Packet? {
        guard let bytes = try nextPacket() else { return nil }
        guard let frames = Self.frames(of: bytes) else {
            throw OggOpusError("audio packet \(packetsRead) (page \(pages - 1)) is not a valid Opus packet (RFC 6716 section 3)")
        }
        packetsRead += 1
        framesRead += Int64(frames)
        if endedPage {
            guard pageGranule >= 0 else {
                throw OggOpusError("page \(pages - 1) ends a packet but has no granule position")
            }
            lastGranule = pageGranule
            if firstPage == nil { firstPage = (framesRead, pageGranule) }
        }
        return Packet(bytes: bytes, frames: frames)
    }

    /// The frame accounting of a stream read to its end (RFC 7845 section 4): the pre-skip
    /// (priming), the frames after it up to the last granule position (valid) and the frames the
    /// last granule trims off the end (remainder), all at 48 kHz.
    public struct Accounting: Equatable, Sendable {
        public var priming: Int64
        public var validFrames: Int64
        public var remainder: Int64
    }

    /// The accounting, once `next()` returned `nil`; throws when the stream does not start at
    /// granule position 0 (a stream cut from another) or its last granule position is not between
    /// the pre-skip and the frames its packets hold, less than `maximumTrim` before their end.
    public func accounting(maximumTrim: Int64) throws(OggOpusError) -> Accounting {
        guard packetsRead > 0 else { return Accounting(priming: 0, validFrames: 0, remainder: 0) }
        let preSkip = Int64(head.preSkip)
        // The first audio page's granule counts its packets' frames, unless it is also the last
        // page, whose granule may trim the end.
        guard let first = firstPage, first.frames == first.granule || (first.frames == framesRead && first.granule == lastGranule)
        else {
            let page = firstPage.map { "its first audio page's granule position is \($0.granule), its packets hold \($0.frames) frames" }
            throw OggOpusError(
                "it does not start at granule position 0 (\(page ?? "no audio page has a granule position")): a stream cut from the middle of another is not read")
        }
        let end = lastGranule
        guard end >= preSkip, end <= framesRead, framesRead - end < maximumTrim + preSkip else {
            throw OggOpusError(
                "its last granule position (\(end)) is not between its pre-skip (\(preSkip)) and the \(framesRead) frames its packets hold")
        }
        return Accounting(priming: preSkip, validFrames: end - preSkip, remainder: framesRead - end)
    }

    /// The 48 kHz frames an Opus packet decodes to, from its TOC byte and frame count (RFC 6716
    /// section 3.1); `nil` when the packet is empty or malformed.
    public static func frames(of packet: [UInt8]) -> Int? {
        guard let toc = packet.first else { return nil }
        let config = Int(toc >> 3)
        // Frame sizes in 48 kHz frames: SILK 10/20/40/60 ms, hybrid 10/20 ms, CELT 2.5/5/10/20 ms.
        let size: Int
        switch config {
        case 0...11: size = [480, 960, 1920, 2880][config % 4]
        case 12...15: size = [480, 960][config % 2]
        default: size = [120, 240, 480, 960][config % 4]
        }
        let count: Int
        switch toc & 3 {
        case 0: count = 1
        case 1, 2: count = 2
        default:
            guard packet.count >= 2 else { return nil }
            count = Int(packet[1] & 0x3F)
        }
        let frames = size * count
        // 120 ms at most (RFC 6716 section 3.2.5).
        guard count > 0, frames <= 5760 else { return nil }
        return frames
    }

    /// The next packet's bytes, across pages; `nil` at the end. A packet over
    /// ``maximumPacketBytes`` is refused, unless `prefix` is given: then only the packet's first
    /// `prefix` bytes are kept and the rest is read past, page by page, whatever its size (the
    /// `OpusTags` header, which may hold cover art of megabytes, RFC 7845 section 5.2).
    private mutating func nextPacket(prefix: Int? = nil) throws(OggOpusError) -> [UInt8]? {
        pending.removeAll(keepingCapacity: true)
        while true {
            while segmentIndex < pageSegments.count {
                let size = pageSegments[segmentIndex]
                segmentIndex += 1
                let kept = prefix.map { Swift.max(0, Swift.min(size, $0 - pending.count)) } ?? size
                pending.append(contentsOf: pageBody[bodyIndex..<(bodyIndex + kept)])
                bodyIndex += size
                guard pending.count <= Self.maximumPacketBytes else {
                    throw OggOpusError("a packet on page \(pages - 1) runs over \(Self.maximumPacketBytes) bytes")
                }
                if size < 255 {
                    // A page's granule position is that of its last completed packet.
                    endedPage = !pageSegments[segmentIndex...].contains { $0 < 255 }
                    return pending
                }
            }
            guard try readPage() else {
                guard pending.isEmpty else { throw OggOpusError("its last packet is cut short (the last page continues it)") }
                return nil
            }
        }
    }

    /// Reads the page at `offset`; `false` at the end of the file.
    private mutating func readPage() throws(OggOpusError) -> Bool {
        guard offset < source.length else { return false }
        if sawEnd {
            throw OggOpusError("it holds more after its end-of-stream page at byte \(offset): a chained Ogg stream, which cafconv does not read")
        }
        guard source.length - offset >= 27 else {
            throw OggOpusError("its page at byte \(offset) is cut short (\(source.length - offset) bytes, a page header is 27)")
        }
        let header: [UInt8]
        do { header = try source.readExactly(at: offset, count: 27) } catch { throw OggOpusError("cannot read byte \(offset): \(error)") }
        guard Array(header[0..<4]) == Array("OggS".utf8) else {
            throw OggOpusError("no Ogg page at byte \(offset) (no 'OggS' capture pattern)")
        }
        guard header[4] == 0 else { throw OggOpusError("its page at byte \(offset) has Ogg version \(header[4]), not 0") }
        let type = header[5]
        var granule: UInt64 = 0
        for index in 0..<8 { granule |= UInt64(header[6 + index]) << (8 * UInt64(index)) }
        var serial: UInt32 = 0
        var sequence: UInt32 = 0
        var crc: UInt32 = 0
        for index in 0..<4 {
            serial |= UInt32(header[14 + index]) << (8 * UInt32(index))
            sequence |= UInt32(header[18 + index]) << (8 * UInt32(index))
            crc |= UInt32(header[22 + index]) << (8 * UInt32(index))
        }
        let count = Int(header[26])
        guard source.length - offset - 27 >= UInt64(count) else {
            throw OggOpusError("its page at byte \(offset) has a segment table that runs past the end of the file")
        }
        let table: [UInt8]
        do { table = try source.readExactly(at: offset + 27, count: count) } catch { throw OggOpusError("cannot read byte \(offset + 27): \(error)") }
        let bodyBytes = table.reduce(0) { $0 + Int($1) }
        guard source.length - offset - 27 - UInt64(count) >= UInt64(bodyBytes) else {
            throw OggOpusError("its page at byte \(offset) declares \(bodyBytes) bytes of packets, past the end of the file")
        }
        let body: [UInt8]
        do { body = try source.readExactly(at: offset + 27 + UInt64(count), count: bodyBytes) } catch {
            throw OggOpusError("cannot read byte \(offset + 27 + UInt64(count)): \(error)")
        }
        var check = header
        check[22] = 0
        check[23] = 0
        check[24] = 0
        check[25] = 0
        guard OggCRC.checksum(check + table + body) == crc else {
            throw OggOpusError("its page at byte \(offset) fails its CRC check (the file is damaged)")
        }
        if let known = self.serial {
            guard serial == known else {
                throw OggOpusError(
                    "its page at byte \(offset) belongs to another logical stream (serial \(serial), not \(known)): multiplexed or chained Ogg streams are not read")
            }
            guard type & 0x02 == 0 else {
                throw OggOpusError("a second stream begins at byte \(offset): chained Ogg streams are not read")
            }
            guard sequence == self.sequence &+ 1 else {
                throw OggOpusError("its page at byte \(offset) has sequence number \(sequence) after \(self.sequence): a page is missing")
            }
        } else {
            guard type & 0x02 != 0 else { throw OggOpusError("its first page (byte \(offset)) is not a beginning-of-stream page") }
            self.serial = serial
        }
        let continued = type & 0x01 != 0
        guard continued == !pending.isEmpty else {
            throw OggOpusError(
                continued
                    ? "its page at byte \(offset) continues a packet no page began"
                    : "its page at byte \(offset) begins a new packet while the previous one is unfinished")
        }
        self.sequence = sequence
        if type & 0x04 != 0 { sawEnd = true }
        pageGranule = granule == UInt64.max ? -1 : Int64(clamping: granule)
        pageSegments = table.map(Int.init)
        pageBody = body
        segmentIndex = 0
        bodyIndex = 0
        pages += 1
        offset += 27 + UInt64(count) + UInt64(bodyBytes)
        return true
    }
}

/// The Ogg CRC-32 (polynomial 0x04C11DB7, no reflection, initial value 0, no final XOR).
public enum OggCRC {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? value << 1 ^ 0x04C1_1DB7 : value << 1 }
        return value
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = crc << 8 ^ table[Int(crc >> 24 ^ UInt32(byte))] }
        return crc
    }
}

import BinaryIO

/// The MPEG-4 ES_Descriptor an AAC CAF keeps in its `kuki` chunk (tag 0x03, no box header: the
/// bytes an MP4 `esds` holds after its version and flags). It carries a DecoderConfigDescriptor
/// (tag 0x04) whose DecoderSpecificInfo (tag 0x05) is the AudioSpecificConfig a decoder needs.
public struct MPEG4ESDescriptor: Equatable, Sendable {
    /// `objectTypeIndication` (0x40: MPEG-4 audio).
    public var objectType: UInt8
    /// The stream type (5: audio).
    public var streamType: UInt8
    /// The decoder buffer size in bytes (24 bits).
    public var bufferSize: UInt32
    /// The maximum bit rate.
    public var maxBitRate: UInt32
    /// The average bit rate.
    public var averageBitRate: UInt32
    /// The AudioSpecificConfig.
    public var audioSpecificConfig: [UInt8]

    /// Creates a descriptor for MPEG-4 audio.
    public init(bufferSize: UInt32, maxBitRate: UInt32, averageBitRate: UInt32, audioSpecificConfig: [UInt8]) {
        objectType = 0x40
        streamType = 5
        self.bufferSize = min(bufferSize, 0xFF_FFFF)
        self.maxBitRate = maxBitRate
        self.averageBitRate = averageBitRate
        self.audioSpecificConfig = audioSpecificConfig
    }

    /// The audio object type of the AudioSpecificConfig (2: AAC LC), `nil` when it is empty.
    public var audioObjectType: Int? {
        guard let first = audioSpecificConfig.first else { return nil }
        let type = Int(first >> 3)
        guard type == 31, audioSpecificConfig.count >= 2 else { return type }
        return 32 + Int((first & 0x07) << 3) + Int(audioSpecificConfig[1] >> 5)
    }

    /// The bytes, laid out as Apple's encoder writes them: every descriptor length in four bytes
    /// (`80 80 80 nn`), ES_ID 0, no flags, and an SLConfigDescriptor (tag 0x06) of predefined 2.
    public var bytes: [UInt8] {
        func descriptor(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
            let count = UInt32(body.count)
            return [
                tag, UInt8(0x80 | (count >> 21) & 0x7F), UInt8(0x80 | (count >> 14) & 0x7F),
                UInt8(0x80 | (count >> 7) & 0x7F), UInt8(count & 0x7F),
            ] + body
        }
        var config = ByteWriter()
        config.write(objectType)
        config.write(streamType << 2 | 1)
        config.write(UInt8(bufferSize >> 16 & 0xFF))
        config.write(UInt16(bufferSize & 0xFFFF), .big)
        config.write(maxBitRate, .big)
        config.write(averageBitRate, .big)
        let decoderConfig = descriptor(0x04, config.bytes + descriptor(0x05, audioSpecificConfig))
        return descriptor(0x03, [0, 0, 0] + decoderConfig + descriptor(0x06, [0x02]))
    }

    /// Parses an ES_Descriptor; throws a sentence saying what is wrong.
    public init(parsing bytes: [UInt8]) throws(AACFormatError) {
        var cursor = ByteCursor(bytes)
        do {
            let es = try Self.descriptor(&cursor, expecting: 0x03, what: "ES_Descriptor")
            var body = ByteCursor(es)
            _ = try body.readUInt16(.big)  // ES_ID
            let flags = try body.readUInt8()
            if flags & 0x80 != 0 { try body.skip(2) }  // dependsOn_ES_ID
            if flags & 0x40 != 0 { try body.skip(Int(try body.readUInt8())) }  // URL
            if flags & 0x20 != 0 { try body.skip(2) }  // OCR_ES_Id
            let decoder = try Self.descriptor(&body, expecting: 0x04, what: "DecoderConfigDescriptor")
            var config = ByteCursor(decoder)
            objectType = try config.readUInt8()
            streamType = try config.readUInt8() >> 2
            bufferSize = UInt32(try config.readUInt8()) << 16 | UInt32(try config.readUInt16(.big))
            maxBitRate = try config.readUInt32(.big)
            averageBitRate = try config.readUInt32(.big)
            audioSpecificConfig = try Self.descriptor(&config, expecting: 0x05, what: "DecoderSpecificInfo")
        } catch let error as AACFormatError {
            throw error
        } catch {
            throw AACFormatError("the ES_Descriptor is cut short (\(error))")
        }
        guard streamType == 5 else { throw AACFormatError("the ES_Descriptor's stream type is \(streamType), not audio (5)") }
        guard objectType == 0x40 || (0x66...0x68).contains(objectType) else {
            throw AACFormatError("the ES_Descriptor's object type is 0x\(String(objectType, radix: 16)), not MPEG-4 or MPEG-2 AAC")
        }
        guard audioSpecificConfig.count >= 2 else {
            throw AACFormatError("the AudioSpecificConfig has \(audioSpecificConfig.count) bytes, fewer than 2")
        }
    }

    /// Reads one descriptor of tag `tag` (skipping other descriptors before it) and returns its body.
    private static func descriptor(_ cursor: inout ByteCursor, expecting tag: UInt8, what: String) throws -> [UInt8] {
        while !cursor.isAtEnd {
            let found = try cursor.readUInt8()
            var length = 0
            for index in 0..<4 {
                let byte = try cursor.readUInt8()
                length = length << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
                if index == 3 { throw AACFormatError("the \(what)'s length runs over four bytes") }
            }
            guard length <= cursor.remaining else {
                throw AACFormatError("a descriptor (tag 0x\(String(found, radix: 16))) of \(length) bytes overruns its container")
            }
            let body = try cursor.readBytes(length)
            if found == tag { return body }
            if tag == 0x03 { throw AACFormatError("the magic cookie does not start with an ES_Descriptor (tag 0x03) but 0x\(String(found, radix: 16))") }
        }
        throw AACFormatError("no \(what) (tag 0x\(String(tag, radix: 16)))")
    }
}

/// What is wrong with an AAC CAF's `kuki` or `pakt`: one sentence.
public struct AACFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension PacketTable {
    /// Appends `value` as a `pakt` variable-length integer: 7 bits per byte, most significant
    /// first, the high bit set on every byte but the last.
    public static func appendVariableLength(_ value: UInt64, to bytes: inout [UInt8]) {
        var shift = 63 / 7 * 7
        while shift > 0 && value >> UInt64(shift) == 0 { shift -= 7 }
        while shift > 0 {
            bytes.append(UInt8(0x80 | (value >> UInt64(shift)) & 0x7F))
            shift -= 7
        }
        bytes.append(UInt8(value & 0x7F))
    }
}

/// The packets of a CAF with variable-size packets (AAC), read from its `pakt` entries a window
/// at a time: memory stays bounded whatever the packet count. Every packet is checked against the
/// `data` chunk's real length before it is handed out.
public struct CAFPacketReader {
    private let source: any ByteSource
    private var tableOffset: UInt64
    private let tableEnd: UInt64
    private var window: [UInt8] = []
    private var windowIndex = 0
    private var audioOffset: UInt64
    private let audioEnd: UInt64
    /// Packets the `pakt` header announces.
    public let packetCount: Int64
    /// Packets handed out so far.
    public private(set) var packetsRead: Int64 = 0
    /// The largest packet a reader accepts (an AAC packet of 8 channels is at most 6144 bytes).
    public static let maximumPacketBytes = 1 << 16

    /// A reader over the packets of `file`; throws when it has no packet table or its packets do
    /// not have a byte size in the table.
    public init(file: CAFFile, source: any ByteSource) throws(AACFormatError) {
        guard let pakt = file.packetTableChunk, let header = file.packetTableHeader else {
            throw AACFormatError("it has no 'pakt' chunk, so its packets cannot be found")
        }
        guard file.audioDescription.bytesPerPacket == 0, file.audioDescription.framesPerPacket > 0 else {
            throw AACFormatError("its packets are not of variable size and fixed duration")
        }
        guard header.numberPackets >= 0 else { throw AACFormatError("its 'pakt' announces \(header.numberPackets) packets") }
        self.source = source
        tableOffset = pakt.bodyOffset + UInt64(PacketTableHeader.size)
        tableEnd = min(pakt.bodyOffset + pakt.size, source.length)
        audioOffset = file.audioOffset
        audioEnd = min(file.audioOffset + file.audioBytes, source.length)
        packetCount = header.numberPackets
    }

    /// The next packet's position and size, or `nil` after the last one; throws when the table or
    /// the audio ends early or a size is implausible.
    public mutating func next() throws(AACFormatError) -> (offset: UInt64, size: Int)? {
        guard packetsRead < packetCount else { return nil }
        var value: UInt64 = 0
        for index in 0..<10 {
            if windowIndex == window.count {
                guard tableOffset < tableEnd else {
                    throw AACFormatError("its 'pakt' ends after \(packetsRead) of the \(packetCount) packet sizes it announces")
                }
                let count = Int(min(UInt64(1 << 16), tableEnd - tableOffset))
                do { window = try source.readExactly(at: tableOffset, count: count) } catch {
                    throw AACFormatError("cannot read its 'pakt' chunk: \(error)")
                }
                tableOffset += UInt64(count)
                windowIndex = 0
            }
            let byte = window[windowIndex]
            windowIndex += 1
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { break }
            if index == 9 { throw AACFormatError("packet \(packetsRead)'s size in 'pakt' is not a valid variable-length integer") }
        }
        guard value > 0, value <= UInt64(Self.maximumPacketBytes) else {
            throw AACFormatError("packet \(packetsRead) is \(value) bytes in 'pakt', not 1 to \(Self.maximumPacketBytes)")
        }
        guard audioOffset + value <= audioEnd else {
            throw AACFormatError(
                "packet \(packetsRead) of \(value) bytes runs past the end of the 'data' chunk (the packet sizes add up to more than its \(audioEnd - min(audioEnd, audioOffset)) remaining bytes)")
        }
        let packet = (offset: audioOffset, size: Int(value))
        audioOffset += value
        packetsRead += 1
        return packet
    }
}

extension CAFWriter {
    /// Where the audio of an AAC file starts, as afconvert writes it: at a multiple of 4096.
    public static let aacAudioAlignment: UInt64 = 4096

    /// The chunks of an AAC-LC CAF around its packet sizes, laid out as Apple's afconvert lays them
    /// out: `desc` (`aac `, flags 0, 0 bytes per packet, `framesPerPacket`, 0 bits), `kuki` (the
    /// ES_Descriptor), then `pakt` whose header `packetTable` gives and whose `tableBytes` of
    /// variable-length sizes the caller writes between `before` and `after`; `after` holds a `free`
    /// chunk of zeros that puts the first audio byte at the next multiple of 4096 and the `data`
    /// chunk header (size 4 + `audioBytes`, edit count 1).
    ///
    /// `extra` chunks (an `info` chunk of an M4A's tags) go between `kuki` and `pakt`, where
    /// afconvert writes its `info`.
    public static func aacLayout(
        sampleRate: Double, channels: Int, framesPerPacket: Int, cookie: MPEG4ESDescriptor,
        packetTable: PacketTableHeader, tableBytes: Int, audioBytes: UInt64, extra: [CAFChunk] = []
    ) -> (before: [UInt8], after: [UInt8]) {
        let description = AudioDescription(
            sampleRate: sampleRate, formatID: .aac, formatFlags: 0, bytesPerPacket: 0,
            framesPerPacket: UInt32(framesPerPacket), channelsPerFrame: UInt32(channels), bitsPerChannel: 0)
        return packetLayout(
            description, chunks: [.magicCookie(MagicCookie(bytes: cookie.bytes))] + extra, packetTable: packetTable,
            tableBytes: tableBytes, audioBytes: audioBytes)
    }

    /// The chunks of a CAF of variable-size packets around its packet sizes, as Apple lays them
    /// out: the header, `desc`, `chunks` (`kuki`, `chan`, `info`...), then `pakt` whose header
    /// `packetTable` gives and whose `tableBytes` of variable-length sizes the caller writes
    /// between `before` and `after`; `after` holds a `free` chunk of zeros that puts the first
    /// audio byte at the next multiple of 4096 and the `data` chunk header (size 4 +
    /// `audioBytes`, edit count 1).
    public static func packetLayout(
        _ description: AudioDescription, chunks: [CAFChunk], packetTable: PacketTableHeader, tableBytes: Int,
        audioBytes: UInt64
    ) -> (before: [UInt8], after: [UInt8]) {
        var before = header()
        before += chunkBytes(.description(description))
        for chunk in chunks { before += chunkBytes(chunk) }
        var pakt = ByteWriter()
        pakt.write(FourCC.pakt)
        pakt.write(Int64(PacketTableHeader.size + tableBytes), .big)
        packetTable.write(to: &pakt)
        before += pakt.bytes
        // free header (12) + data header (12) + edit count (4) must fit before the audio.
        let fixed = UInt64(before.count + tableBytes) + 12 + 12 + 4
        let audioStart = (fixed + aacAudioAlignment - 1) / aacAudioAlignment * aacAudioAlignment
        var after = chunkBytes(.free(FreeChunk(bytes: [UInt8](repeating: 0, count: Int(audioStart - fixed)))))
        var data = ByteWriter()
        data.write(FourCC.data)
        data.write(Int64(clamping: audioBytes + 4), .big)
        data.write(UInt32(1), .big)
        after += data.bytes
        return (before, after)
    }
}

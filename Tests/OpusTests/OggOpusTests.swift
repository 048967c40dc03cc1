import BinaryIO
import OggOpus
import Testing

/// The Ogg Opus reader on pages built byte by byte: headers, packets across pages, granule
/// positions, and every refusal a hostile or unsupported file gets.
@Suite("Ogg Opus reader")
struct OggOpusTests {
    /// One Ogg page (RFC 3533) with its CRC.
    static func page(
        _ packets: [[UInt8]], granule: Int64, serial: UInt32 = 7, sequence: UInt32, type: UInt8 = 0, lastContinues: Bool = false
    ) -> [UInt8] {
        var lacing: [UInt8] = []
        var body: [UInt8] = []
        for (index, packet) in packets.enumerated() {
            var left = packet.count
            while left >= 255 {
                lacing.append(255)
                left -= 255
            }
            if !(lastContinues && index == packets.count - 1) { lacing.append(UInt8(left)) }
            body += packet
        }
        var header: [UInt8] = Array("OggS".utf8) + [0, type]
        header += withUnsafeBytes(of: UInt64(bitPattern: granule).littleEndian, Array.init)
        header += withUnsafeBytes(of: serial.littleEndian, Array.init)
        header += withUnsafeBytes(of: sequence.littleEndian, Array.init)
        header += [0, 0, 0, 0, UInt8(lacing.count)]
        let crc = OggCRC.checksum(header + lacing + body)
        header.replaceSubrange(22..<26, with: withUnsafeBytes(of: crc.littleEndian, Array.init))
        return header + lacing + body
    }

    static func head(channels: UInt8 = 1, preSkip: UInt16 = 312, family: UInt8 = 0) -> [UInt8] {
        Array("OpusHead".utf8) + [1, channels, UInt8(preSkip & 0xFF), UInt8(preSkip >> 8), 0x80, 0xBB, 0, 0, 0, 0, family]
    }
    static let tags: [UInt8] = Array("OpusTags".utf8) + [0, 0, 0, 0, 0, 0, 0, 0]
    /// A CELT 20 ms mono packet (config 31, one frame) of `size` bytes.
    static func packet(_ size: Int, fill: UInt8 = 1) -> [UInt8] { [0xF8] + [UInt8](repeating: fill, count: size - 1) }

    static func stream(packets: [[UInt8]], endGranule: Int64, preSkip: UInt16 = 312, eos: Bool = true) -> [UInt8] {
        var bytes = page([head(preSkip: preSkip)], granule: 0, sequence: 0, type: 2)
        bytes += page([tags], granule: 0, sequence: 1)
        let half = packets.count / 2
        bytes += page(Array(packets[..<half]), granule: Int64(half * 960), sequence: 2)
        bytes += page(Array(packets[half...]), granule: endGranule, sequence: 3, type: eos ? 4 : 0)
        return bytes
    }

    static func readAll(_ bytes: [UInt8]) throws(OggOpusError) -> (OggOpusReader, [OggOpusReader.Packet]) {
        var reader = try OggOpusReader(source: MemoryByteSource(bytes))
        var packets: [OggOpusReader.Packet] = []
        while let packet = try reader.next() { packets.append(packet) }
        return (reader, packets)
    }

    @Test("packets come out byte for byte, with 960 frames each, the pre-skip and the end granule")
    func reads() throws {
        let packets = (0..<6).map { Self.packet(10 + $0 * 100, fill: UInt8($0)) } + [Self.packet(600)]
        let (reader, read) = try Self.readAll(Self.stream(packets: packets, endGranule: 6000))
        #expect(read.map(\.bytes) == packets)
        #expect(read.allSatisfy { $0.frames == 960 })
        #expect(reader.head == OggOpusReader.Head(channels: 1, preSkip: 312, inputSampleRate: 48_000, outputGain: 0))
        #expect(reader.lastGranule == 6000)
        #expect(reader.framesRead == 7 * 960)
        #expect(reader.firstPage?.frames == 3 * 960 && reader.firstPage?.granule == 3 * 960)
    }

    @Test("a packet continued on the next page is joined")
    func continued() throws {
        let long = Self.packet(700)
        var bytes = Self.page([Self.head()], granule: 0, sequence: 0, type: 2) + Self.page([Self.tags], granule: 0, sequence: 1)
        bytes += Self.page([Self.packet(20), Array(long[..<510])], granule: 960, sequence: 2, lastContinues: true)
        bytes += Self.page([Array(long[510...])], granule: 1920, sequence: 3, type: 1 | 4)
        let (_, read) = try Self.readAll(bytes)
        #expect(read.map(\.bytes) == [Self.packet(20), long])
    }

    /// The pages of one packet of `packet.count` bytes from sequence number `sequence`: 65025
    /// bytes a page (255 segments of 255), each page after the first a continuation.
    static func spanning(_ packet: [UInt8], sequence: UInt32) -> [UInt8] {
        let chunks = stride(from: 0, to: packet.count, by: 255 * 255).map { Array(packet[$0..<min(packet.count, $0 + 255 * 255)]) }
        var bytes: [UInt8] = []
        for (index, chunk) in chunks.enumerated() {
            bytes += page(
                [chunk], granule: index == chunks.count - 1 ? 0 : -1, sequence: sequence + UInt32(index),
                type: index == 0 ? 0 : 1, lastContinues: index < chunks.count - 1)
        }
        return bytes
    }

    @Test("an OpusTags header of any size (cover art over 64 KiB, across pages) is read past; an audio packet over 64 KiB is refused")
    func largeTags() throws {
        let tags = Self.tags + [UInt8](repeating: 0x41, count: 200_000)
        let packets = (0..<4).map { Self.packet(50 + $0) }
        var bytes = Self.page([Self.head()], granule: 0, sequence: 0, type: 2) + Self.spanning(tags, sequence: 1)
        bytes += Self.page(packets, granule: 3840, sequence: 5, type: 4)
        let (reader, read) = try Self.readAll(bytes)
        #expect(read.map(\.bytes) == packets && reader.lastGranule == 3840 && reader.pages == 6)
        // The same size as an audio packet is over the limit.
        var audio = Self.page([Self.head()], granule: 0, sequence: 0, type: 2) + Self.page([Self.tags], granule: 0, sequence: 1)
        audio += Self.spanning(Self.packet(70_000), sequence: 2)
        do {
            _ = try Self.readAll(audio)
            Issue.record("an audio packet of 70000 bytes was read")
        } catch {
            #expect(error.message.contains("runs over 65536 bytes"), "\(error.message)")
        }
    }

    @Test("TOC durations: SILK, hybrid and CELT frame sizes and code 3 frame counts (RFC 6716 3.1)")
    func durations() {
        #expect(OggOpusReader.frames(of: [0x08]) == 960)  // SILK NB 20 ms
        #expect(OggOpusReader.frames(of: [0x18]) == 2880)  // SILK NB 60 ms
        #expect(OggOpusReader.frames(of: [0x68]) == 960)  // hybrid SWB 20 ms (Apple's file)
        #expect(OggOpusReader.frames(of: [0x80]) == 120)  // CELT NB 2.5 ms
        #expect(OggOpusReader.frames(of: [0xF9]) == 1920)  // CELT FB 20 ms, two frames
        #expect(OggOpusReader.frames(of: [0xFB, 0x03]) == 2880)  // code 3, three frames
        #expect(OggOpusReader.frames(of: [0x1B, 0x03]) == nil)  // three 60 ms frames: over 120 ms
        #expect(OggOpusReader.frames(of: [0xFB]) == nil)
        #expect(OggOpusReader.frames(of: []) == nil)
    }

    @Test(
        "hostile and unsupported streams get a sentence, never a crash",
        arguments: [
            ("crc", "CRC"), ("truncated", "past the end"), ("family", "mapping family 1"), ("chained", "chained"),
            ("serial", "another logical stream"), ("notOpus", "not Ogg Opus"), ("gap", "a page is missing"),
            ("garbage", "no Ogg page"),
        ])
    func refusals(kind: String, words: String) throws {
        let packets = (0..<4).map { _ in Self.packet(50) }
        var bytes = Self.stream(packets: packets, endGranule: 3840, eos: !["serial", "gap", "garbage"].contains(kind))
        switch kind {
        case "crc": bytes[bytes.count - 3] ^= 0x55
        case "truncated": bytes.removeLast(20)
        case "family":
            bytes = Self.page([Self.head(channels: 2, family: 1) + [1, 1, 0, 1]], granule: 0, sequence: 0, type: 2) + Array(bytes[(28 + 19)...])
        case "chained": bytes += Self.stream(packets: packets, endGranule: 3840)
        case "serial": bytes += Self.page([Self.packet(50)], granule: 4800, serial: 9, sequence: 4)
        case "notOpus": bytes = Self.page([Array("OpusHeaX".utf8) + [UInt8](repeating: 0, count: 11)], granule: 0, sequence: 0, type: 2)
        case "gap": bytes += Self.page([Self.packet(50)], granule: 4800, sequence: 9)
        default: bytes += [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28]
        }
        do {
            _ = try Self.readAll(bytes)
            Issue.record("\(kind): read without an error")
        } catch {
            #expect(error.message.contains(words), "\(kind): \(error.message)")
        }
    }

    @Test("every single-byte corruption of a small stream is read or refused, never crashes")
    func corruptions() {
        let bytes = Self.stream(packets: (0..<4).map { _ in Self.packet(40) }, endGranule: 3840)
        var refused = 0
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var copy = bytes
                copy[index] ^= flip
                if (try? Self.readAll(copy)) == nil { refused += 1 }
            }
        }
        // The CRC catches every change to a page's bytes.
        #expect(refused == bytes.count * 3)
    }
}

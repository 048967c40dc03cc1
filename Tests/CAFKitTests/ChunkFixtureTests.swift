import BinaryIO
import Testing

@testable import CAFKit

/// One hand-written body per chunk type: the parsed values and the bytes written back.
@Suite("Chunk fixtures")
struct ChunkFixtureTests {
    func be32(_ value: UInt32) -> [UInt8] { var w = ByteWriter(); w.write(value, .big); return w.bytes }
    func be64(_ value: UInt64) -> [UInt8] { var w = ByteWriter(); w.write(value, .big); return w.bytes }

    func roundTrip(_ type: FourCC, _ body: [UInt8], description: AudioDescription? = nil) throws -> CAFChunk {
        let chunk = try CAFChunk.parse(type: type, body: body, description: description)
        #expect(chunk.type == type)
        #expect(chunk.bodyBytes == body, "'\(type)' must be written back byte for byte")
        return chunk
    }

    @Test func descBody() throws {
        let body = be64(44_100.0.bitPattern) + Array("lpcm".utf8) + be32(2) + be32(4) + be32(1) + be32(2) + be32(16)
        let chunk = try roundTrip(.desc, body)
        #expect(chunk == .description(basePCM))
        #expect(basePCM.byteOrder == .little)
    }

    @Test func dataChunk() throws {
        let chunk = try roundTrip(.data, be32(7) + [1, 2, 3])
        #expect(chunk == .audioData(AudioDataChunk(editCount: 7, audio: .bytes([1, 2, 3]))))
        #expect(throws: CAFError.self) { try CAFChunk.parse(type: .data, body: [0, 0]) }
    }

    @Test func paktWithByteSizes() throws {
        let aac = AudioDescription(
            sampleRate: 44_100, formatID: .aac, formatFlags: 0, bytesPerPacket: 0,
            framesPerPacket: 1024, channelsPerFrame: 2, bitsPerChannel: 0)
        let body = be64(3) + be64(2000) + be32(2112) + be32(960) + [0x06, 0x81, 0x00, 0x82, 0x2C]
        guard case .packetTable(let table) = try roundTrip(.pakt, body, description: aac) else {
            Issue.record("not a packet table"); return
        }
        #expect(
            table.header
                == PacketTableHeader(numberPackets: 3, numberValidFrames: 2000, primingFrames: 2112, remainderFrames: 960))
        #expect(table.entries.map(\.byteSize) == [6, 128, 300])
        #expect(table.entries.allSatisfy { $0.frames == nil })
        #expect(table.totalByteSize == 434)
    }

    @Test func paktWithSizesAndFrames() throws {
        let vbr = AudioDescription(
            sampleRate: 48_000, formatID: FourCC("vorb"), formatFlags: 0, bytesPerPacket: 0,
            framesPerPacket: 0, channelsPerFrame: 1, bitsPerChannel: 0)
        let body = be64(2) + be64(300) + be32(0) + be32(0) + [0x10, 0x81, 0x00, 0x20, 0x2C]
        guard case .packetTable(let table) = try roundTrip(.pakt, body, description: vbr) else {
            Issue.record("not a packet table"); return
        }
        #expect(table.entries == [PacketTable.Entry(byteSize: 16, frames: 128), PacketTable.Entry(byteSize: 32, frames: 44)])
        // A table that declares more packets than it holds is malformed.
        #expect(throws: CAFError.self) { try CAFChunk.parse(type: .pakt, body: be64(3) + body.dropFirst(8), description: vbr) }
    }

    @Test func kukiWithALACCookie() throws {
        var config = ByteWriter()
        ALACSpecificConfig(
            frameLength: 4096, compatibleVersion: 0, bitDepth: 16, pb: 40, mb: 10, kb: 14, numChannels: 2,
            maxRun: 255, maxFrameBytes: 0, avgBitRate: 0, sampleRate: 44_100
        ).write(to: &config)
        let bare = config.bytes
        let wrapped =
            be32(12) + Array("frmaalac".utf8) + be32(36) + Array("alac".utf8) + be32(0) + bare + be32(24) + Array("chan".utf8)
            + [UInt8](repeating: 0, count: 16)
        for body in [bare, be32(36) + Array("alac".utf8) + be32(0) + bare, wrapped] {
            guard case .magicCookie(let cookie) = try roundTrip(.kuki, body) else { Issue.record("not a cookie"); continue }
            let alac = try #require(cookie.alac)
            #expect(alac.frameLength == 4096 && alac.bitDepth == 16 && alac.pb == 40 && alac.mb == 10 && alac.kb == 14)
            #expect(alac.numChannels == 2 && alac.maxRun == 255 && alac.sampleRate == 44_100)
        }
        let alacDesc = AudioDescription(
            sampleRate: 44_100, formatID: .alac, formatFlags: 1, bytesPerPacket: 0,
            framesPerPacket: 4096, channelsPerFrame: 2, bitsPerChannel: 0)
        let contents = CAFContents(chunks: [.description(alacDesc), .magicCookie(MagicCookie(bytes: wrapped))])
        #expect(contents.alacConfiguration?.bitDepth == 16)
        #expect(MagicCookie(bytes: [1, 2, 3]).alac == nil)
    }

    @Test func chan() throws {
        let stereo = try roundTrip(.chan, be32(0x0065_0002) + be32(3) + be32(0))
        #expect(stereo == .channelLayout(ChannelLayout(tag: 0x0065_0002, bitmap: 3)))
        let described =
            be32(0) + be32(0) + be32(1) + be32(1) + be32(2) + be32(Float(1).bitPattern) + be32(0) + be32(Float(-0.5).bitPattern)
        guard case .channelLayout(let layout) = try roundTrip(.chan, described) else { Issue.record("not chan"); return }
        #expect(layout.descriptions == [ChannelDescription(label: 1, flags: 2, coordinates: [1, 0, -0.5])])
        #expect(layout.channelCount == 1 && layout.expectedSize == 32)
        // A declared count the body cannot hold is kept, and no description is invented.
        guard case .channelLayout(let short) = try roundTrip(.chan, be32(0) + be32(0) + be32(1_000_000)) else { return }
        #expect(short.declaredCount == 1_000_000 && short.descriptions.isEmpty)
    }

    @Test func free() throws {
        #expect(try roundTrip(.free, [0, 0, 0]) == .free(FreeChunk(bytes: [0, 0, 0])))
    }

    @Test func info() throws {
        let body = be32(2) + Array("artist\0Soundiro\0comments\0caf\u{e9}\0".utf8)
        guard case .info(let info) = try roundTrip(.info, body) else { Issue.record("not info"); return }
        #expect(info.entries == [InfoEntry(key: "artist", value: "Soundiro"), InfoEntry(key: "comments", value: "café")])
        #expect(info["artist"] == "Soundiro" && info.declaredCount == 2 && info.trailing.isEmpty)
        guard case .info(let odd) = try roundTrip(.info, be32(3) + Array("k\0v\0half".utf8)) else { return }
        #expect(odd.entries.count == 1 && odd.trailing == Array("half".utf8))
        #expect(throws: CAFError.self) { try CAFChunk.parse(type: .info, body: be32(1) + [0xFF, 0, 0x41, 0]) }
    }

    @Test func edct() throws {
        let body = be32(1) + Array("2026-11-21 10:00\0trimmed\0".utf8)
        #expect(try roundTrip(.edct, body) == .editComments(InfoStrings([InfoEntry(key: "2026-11-21 10:00", value: "trimmed")])))
    }

    @Test func mark() throws {
        let marker = Array("rbeg".utf8) + be64(1234.5.bitPattern) + be32(7) + [1, 2, 3, 4] + be32(9) + be32(1)
        guard case .markers(let mark) = try roundTrip(.mark, be32(0) + be32(1) + marker) else { Issue.record("not mark"); return }
        #expect(
            mark.markers == [
                Marker(
                    type: FourCC("rbeg"), framePosition: 1234.5, markerID: 7,
                    smpteTime: SMPTETime(hours: 1, minutes: 2, seconds: 3, frames: 4, subFrameSampleOffset: 9), channel: 1)
            ])
    }

    @Test func regn() throws {
        let marker = Array("rend".utf8) + be64(10.0.bitPattern) + be32(2) + [0, 0, 0, 0] + be32(0) + be32(0)
        let body = be32(0) + be32(1) + be32(5) + be32(1) + be32(1) + marker
        guard case .regions(let regn) = try roundTrip(.regn, body) else { Issue.record("not regn"); return }
        #expect(
            regn.regions == [
                Region(regionID: 5, flags: 1, markers: [Marker(type: FourCC("rend"), framePosition: 10, markerID: 2)])
            ])
        #expect(throws: CAFError.self) {
            try CAFChunk.parse(type: .regn, body: be32(0) + be32(1) + be32(5) + be32(1) + be32(2) + marker)
        }
    }

    @Test func inst() throws {
        let body =
            be32(Float(60.5).bitPattern) + [10, 100, 1, 127] + be32(Float(-3).bitPattern) + be32(1) + be32(2) + be32(3) + be32(4)
        #expect(
            try roundTrip(.inst, body)
                == .instrument(
                    Instrument(
                        baseNote: 60.5, midiLowNote: 10, midiHighNote: 100, midiLowVelocity: 1,
                        midiHighVelocity: 127, decibelGain: -3, startRegionID: 1,
                        sustainRegionID: 2, releaseRegionID: 3, instrumentID: 4)))
        #expect(throws: CAFError.self) { try CAFChunk.parse(type: .inst, body: Array(body.prefix(20))) }
    }

    @Test func strg() throws {
        let body = be32(2) + be32(7) + be64(0) + be32(9) + be64(4) + Array("one\0two\0".utf8)
        guard case .strings(let strg) = try roundTrip(.strg, body) else { Issue.record("not strg"); return }
        #expect(strg.string(for: 7) == "one" && strg.string(for: 9) == "two" && strg.string(for: 1) == nil)
        #expect(strg == StringsChunk(strings: [(7, "one"), (9, "two")]))
    }

    @Test func uuid() throws {
        let id = [UInt8](0..<16)
        #expect(try roundTrip(.uuid, id + [9, 9]) == .userDefined(UserDefinedChunk(uuid: id, payload: [9, 9])))
        #expect(throws: CAFError.self) { try CAFChunk.parse(type: .uuid, body: [1, 2]) }
    }

    @Test func peak() throws {
        let body = be32(1) + be32(Float(0.5).bitPattern) + be64(100) + be32(Float(-1).bitPattern) + be64(7)
        #expect(
            try roundTrip(.peak, body)
                == .peak(
                    PeakChunk(
                        editCount: 1,
                        peaks: [
                            ChannelPeak(value: 0.5, framePosition: 100),
                            ChannelPeak(value: -1, framePosition: 7),
                        ])))
    }

    @Test func ovvw() throws {
        let body = be32(1) + be32(256) + [0xFF, 0x00, 0x01, 0x00]
        #expect(
            try roundTrip(.ovvw, body)
                == .overview(
                    Overview(
                        editCount: 1, framesPerSample: 256,
                        samples: [OverviewSample(minValue: -256, maxValue: 256)])))
    }

    @Test func umidAndMIDI() throws {
        let umid = [UInt8](repeating: 0x2A, count: 64)
        #expect(try roundTrip(.umid, umid) == .materialID(MaterialIdentifier(bytes: umid)))
        let midi = Array("MThd".utf8) + be32(6) + [0, 0, 0, 1, 0, 96]
        #expect(try roundTrip(.midi, midi) == .midi(MIDIChunk(bytes: midi)))
    }

    @Test func unknownChunksStayRawAndInOrder() throws {
        let bytes = caf([desc(), .unknown(FourCC("zzzz"), [1, 2]), data(8), .unknown(FourCC("abcd"), [])])
        let document = try read(bytes)
        #expect(document.contents.chunks.map(\.type) == [.desc, FourCC("zzzz"), .data, FourCC("abcd")])
        #expect(document.contents.chunks[1] == .unknown(FourCC("zzzz"), [1, 2]))
    }
}

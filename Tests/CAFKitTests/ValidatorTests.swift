import BinaryIO
import Testing

@testable import CAFKit

/// Every validator rule, each with a crafted file that breaks it.
@Suite("Validator")
struct ValidatorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let rule: String
        let bytes: [UInt8]
        var expecting = CAFExpectations()
        let chunk: FourCC?
        let offset: UInt64
        var testDescription: String { rule }
    }

    static let aac = AudioDescription(
        sampleRate: 44_100, formatID: .aac, formatFlags: 0, bytesPerPacket: 0,
        framesPerPacket: 1024, channelsPerFrame: 2, bitsPerChannel: 0)
    static func pakt(valid: Int64, sizes: [Int64]) -> CAFChunk {
        .packetTable(
            PacketTable(
                header: PacketTableHeader(
                    numberPackets: Int64(sizes.count), numberValidFrames: valid,
                    primingFrames: 0, remainderFrames: 0),
                entries: sizes.map { PacketTable.Entry(byteSize: $0) }))
    }
    static func pcm(_ change: (inout AudioDescription) -> Void) -> CAFChunk {
        var value = basePCM
        change(&value)
        return .description(value)
    }
    static func marker(at position: Double) -> Marker { Marker(type: FourCC("rbeg"), framePosition: position, markerID: 1) }

    static let cases: [Case] = {
        var info = InfoStrings([InfoEntry(key: "artist", value: "x")])
        info.declaredCount = 3
        var chanTooShort = ChannelLayout(tag: ChannelLayout.useChannelDescriptions)
        chanTooShort.declaredCount = 2
        let ima4 = AudioDescription(
            sampleRate: 44_100, formatID: .ima4, formatFlags: 0, bytesPerPacket: 34,
            framesPerPacket: 64, channelsPerFrame: 1, bitsPerChannel: 16)
        return [
            Case(rule: "desc-first", bytes: caf([.free(FreeChunk(bytes: [])), desc(), data(16)]), chunk: .free, offset: 8),
            Case(
                rule: "desc-size", bytes: caf([.description(basePCM, trailing: [0, 0, 0, 0]), data(16)]), chunk: .desc, offset: 8),
            Case(rule: "one-desc", bytes: caf([desc(), desc(), data(16)]), chunk: .desc, offset: 52),
            Case(rule: "one-data", bytes: caf([desc(), data(16), data(16)]), chunk: .data, offset: 84),
            Case(
                rule: "size-minus-one", bytes: caf([desc(), data(16)]) + rawChunk(.free, size: -1, body: [0, 0]), chunk: .free,
                offset: 84),
            Case(
                rule: "chunk-within-file",
                bytes: caf([desc()]) + rawChunk(.data, size: 100, body: [UInt8](repeating: 0, count: 20)),
                chunk: .data, offset: 52),
            Case(rule: "file-ends-with-chunk", bytes: caf([desc(), data(16)], trailing: [1, 2, 3]), chunk: nil, offset: 84),
            Case(rule: "sample-rate", bytes: caf([pcm { $0.sampleRate = 0 }, data(16)]), chunk: .desc, offset: 8),
            Case(rule: "channels", bytes: caf([pcm { $0.channelsPerFrame = 0 }, data(16)]), chunk: .desc, offset: 8),
            Case(rule: "lpcm-bits", bytes: caf([pcm { $0.bitsPerChannel = 12 }, data(16)]), chunk: .desc, offset: 8),
            Case(
                rule: "lpcm-frames-per-packet", bytes: caf([pcm { $0.framesPerPacket = 2 }, data(16)]), chunk: .desc, offset: 8),
            Case(rule: "lpcm-bytes-per-packet", bytes: caf([pcm { $0.bytesPerPacket = 3 }, data(15)]), chunk: .desc, offset: 8),
            Case(rule: "whole-frames", bytes: caf([desc(), data(15)]), chunk: .data, offset: 52),
            Case(rule: "compressed-bits", bytes: caf([.description(ima4), data(34)]), chunk: .desc, offset: 8),
            Case(rule: "pakt-required", bytes: caf([.description(aac), data(16)]), chunk: .desc, offset: 8),
            Case(
                rule: "pakt-frames", bytes: caf([.description(aac), pakt(valid: 1000, sizes: [8, 8]), data(16)]), chunk: .pakt,
                offset: 52),
            Case(
                rule: "pakt-bytes", bytes: caf([.description(aac), pakt(valid: 2048, sizes: [8, 9]), data(16)]), chunk: .pakt,
                offset: 52),
            Case(rule: "chan-size", bytes: caf([desc(), .channelLayout(chanTooShort), data(16)]), chunk: .chan, offset: 52),
            Case(
                rule: "chan-channels", bytes: caf([desc(), .channelLayout(ChannelLayout(tag: 100 << 16 | 1)), data(16)]),
                chunk: .chan, offset: 52),
            Case(
                rule: "peak-size",
                bytes: caf([desc(), .peak(PeakChunk(editCount: 0, peaks: [ChannelPeak(value: 1, framePosition: 0)])), data(16)]),
                chunk: .peak, offset: 52),
            Case(rule: "info-count", bytes: caf([desc(), .info(info), data(16)]), chunk: .info, offset: 52),
            Case(
                rule: "mark-position", bytes: caf([desc(), .markers(MarkerChunk(markers: [marker(at: 99)])), data(16)]),
                chunk: .mark, offset: 52),
            Case(
                rule: "regn-position",
                bytes: caf([desc(), .regions(RegionChunk(regions: [Region(regionID: 1, markers: [marker(at: -1)])])), data(16)]),
                chunk: .regn, offset: 52),
            Case(rule: "chunk-body", bytes: caf([desc(), .unknown(.inst, [1, 2, 3]), data(16)]), chunk: .inst, offset: 52),
            Case(
                rule: "format", bytes: caf([desc(), data(16)]), expecting: CAFExpectations(formatID: .alac), chunk: .desc,
                offset: 8),
            Case(
                rule: "byte-order", bytes: caf([desc(), data(16)]), expecting: CAFExpectations(byteOrder: .big), chunk: .desc,
                offset: 8),
            Case(
                rule: "bits", bytes: caf([desc(), data(16)]), expecting: CAFExpectations(bitsPerChannel: 24), chunk: .desc,
                offset: 8),
            Case(
                rule: "float", bytes: caf([desc(), data(16)]), expecting: CAFExpectations(isFloat: true), chunk: .desc, offset: 8),
            Case(
                rule: "channels", bytes: caf([desc(), data(16)]), expecting: CAFExpectations(channels: 1), chunk: .desc, offset: 8
            ),
            Case(
                rule: "sample-rate", bytes: caf([desc(), data(16)]), expecting: CAFExpectations(sampleRate: 48_000), chunk: .desc,
                offset: 8),
            Case(
                rule: "frames", bytes: caf([desc(), data(16)]), expecting: CAFExpectations(validFrames: 5), chunk: .data,
                offset: 52),
            Case(
                rule: "frames", bytes: caf([.description(aac), pakt(valid: 2048, sizes: [8, 8]), data(16)]),
                expecting: CAFExpectations(validFrames: 2047), chunk: .data, offset: 90),
        ]
    }()

    @Test("a crafted file breaks the rule and the diagnostic says where", arguments: cases)
    func rule(_ test: Case) throws {
        let document = try read(test.bytes)
        let found = CAFValidator.validate(document, expecting: test.expecting)
        let diagnostic = try #require(found.first { $0.code == test.rule }, "\(found)")
        #expect(diagnostic.chunk == test.chunk)
        #expect(diagnostic.offset == test.offset)
        #expect(!diagnostic.expected.isEmpty && !diagnostic.found.isEmpty && diagnostic.expected != diagnostic.found)
        #expect(diagnostic.description.hasPrefix(test.rule + ": expected "))
    }

    @Test("a mono layout in a stereo file is '1 channel', not '1 channels'")
    func oneChannelLayout() throws {
        let document = try read(caf([desc(), .channelLayout(ChannelLayout(tag: 100 << 16 | 1)), data(16)]))
        let diagnostic = try #require(CAFValidator.validate(document).first { $0.code == "chan-channels" })
        #expect(diagnostic.found.hasPrefix("1 channel (tag "), "\(diagnostic.found)")
    }

    @Test("valid files have no diagnostics, expectations met included")
    func validFiles() throws {
        let pcm = try read(
            caf([
                desc(), .channelLayout(ChannelLayout(tag: 101 << 16 | 2, bitmap: 3)),
                .peak(
                    PeakChunk(
                        editCount: 0, peaks: [ChannelPeak(value: 1, framePosition: 0), ChannelPeak(value: 0.5, framePosition: 3)])
                ),
                .info(InfoStrings([InfoEntry(key: "artist", value: "me")])),
                .markers(MarkerChunk(markers: [Self.marker(at: 4)])),
                .regions(RegionChunk(regions: [Region(regionID: 1, markers: [Self.marker(at: 0)])])), data(16),
            ]))
        let everything = CAFExpectations(
            formatID: .lpcm, byteOrder: .little, bitsPerChannel: 16, isFloat: false,
            channels: 2, sampleRate: 44_100, validFrames: 4)
        #expect(CAFValidator.validate(pcm, expecting: everything) == [])
        #expect(CAFValidator.validate(pcm.file, expecting: everything) == [])
        let aac = try read(caf([.description(Self.aac), Self.pakt(valid: 2000, sizes: [8, 8]).withPriming(48), data(16)]))
        #expect(CAFValidator.validate(aac, expecting: CAFExpectations(validFrames: 2000)) == [])
        let unknownSize = try read(
            caf([desc(), .audioData(AudioDataChunk(audio: .bytes([UInt8](repeating: 1, count: 8)), sizeIsUnknown: true))]))
        #expect(CAFValidator.validate(unknownSize) == [])
        #expect(unknownSize.file.validFrames == 2)
    }

    @Test("constant-size packets with 0 packets in the table are counted from the audio")
    func ima4PacketCount() throws {
        let ima4 = AudioDescription(
            sampleRate: 44_100, formatID: .ima4, formatFlags: 0, bytesPerPacket: 34,
            framesPerPacket: 64, channelsPerFrame: 1, bitsPerChannel: 0)
        let header = PacketTableHeader(numberPackets: 0, numberValidFrames: 3 * 64 - 10, primingFrames: 0, remainderFrames: 10)
        let good = try read(caf([.description(ima4), .packetTable(PacketTable(header: header)), data(3 * 34)]))
        #expect(CAFValidator.validate(good) == [])
        #expect(good.file.validFrames == 182)
        let bad = try read(caf([.description(ima4), .packetTable(PacketTable(header: header)), data(4 * 34)]))
        #expect(CAFValidator.validate(bad).map(\.code) == ["pakt-frames"])
    }
}

extension CAFChunk {
    func withPriming(_ frames: Int32) -> CAFChunk {
        guard case .packetTable(var table) = self else { return self }
        table.header.primingFrames = frames
        return .packetTable(table)
    }
}

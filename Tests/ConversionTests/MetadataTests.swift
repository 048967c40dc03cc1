import BinaryIO
import CAFKit
@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

// MARK: - Fixtures written byte by byte

/// A RIFF chunk: ID, little-endian size, body, pad byte.
private func riff(_ id: String, _ body: [UInt8]) -> [UInt8] {
    Array(id.utf8) + le32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
}
private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
private func be32(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
private func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

/// A mono 16-bit 8000 Hz WAV of `frames` frames with the chunks `extra` before `data`.
private func wave(frames: Int = 4000, _ extra: [[UInt8]]) -> [UInt8] {
    let fmt = riff("fmt ", le16(1) + le16(1) + le32(8000) + le32(16000) + le16(2) + le16(16))
    var samples: [UInt8] = []
    for index in 0..<frames { samples += le16(UInt16(truncatingIfNeeded: index &* 7)) }
    let body = Array("WAVE".utf8) + fmt + extra.flatMap { $0 } + riff("data", samples)
    return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
}

/// `smpl` with unity note 60, a pitch fraction of one half, and loops (type, start, end, play count).
private func smpl(_ loops: [(cue: UInt32, type: UInt32, start: UInt32, end: UInt32, count: UInt32)], declared: UInt32? = nil)
    -> [UInt8]
{
    var body = [0, 0, 125_000, 60, 0x8000_0000, 0, 0, declared ?? UInt32(loops.count), 0].flatMap(le32)
    for loop in loops { body += [loop.cue, loop.type, loop.start, loop.end, 0, loop.count].flatMap(le32) }
    return riff("smpl", body)
}

private func cue(_ points: [(id: UInt32, position: UInt32)], declared: UInt32? = nil) -> [UInt8] {
    var body = le32(declared ?? UInt32(points.count))
    for point in points {
        body += le32(point.id) + le32(point.position) + Array("data".utf8) + le32(0) + le32(0) + le32(point.position)
    }
    return riff("cue ", body)
}

/// The WAV of the issue: two loops of different kinds, five named cue points, INFO text in UTF-8
/// and in Latin-1.
private func richWave(frames: Int = 4000) -> [UInt8] {
    let labels = (1...5).map { riff("labl", le32(UInt32($0)) + Array("Marker \($0) ✓".utf8) + [0]) }
    let info =
        riff("INAM", Array("Café ☕ title".utf8) + [0])  // UTF-8
        + riff("IART", [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0])  // "Müller" in Latin-1
        + riff("ICMT", Array("Loops twice".utf8) + [0]) + riff("ICRD", Array("2026-11-24".utf8) + [0])
        + riff("ISFT", Array("fixture".utf8) + [0]) + riff("IENG", Array("Ann".utf8) + [0])
    return wave(
        frames: frames,
        [
            smpl([(1, 0, 500, 1500, 0), (2, 1, 2000, 3000, 0)]),
            cue([(1, 100), (2, 200), (3, 300), (4, 400), (5, 3999)]),
            riff("LIST", Array("adtl".utf8) + labels.flatMap { $0 }),
            riff("LIST", Array("INFO".utf8) + info),
        ])
}

// MARK: - An independent CAF reader (no CAFKit)

/// Reads CAF chunks with its own big-endian decoding, to check what the writer wrote.
struct PlainCAF {
    struct Mark: Equatable { var type: String; var position: Double; var id: Int32 }
    struct Regn: Equatable { var id: UInt32; var flags: UInt32; var markers: [Mark] }
    struct Inst: Equatable {
        var baseNote: Float; var low: UInt8; var high: UInt8; var lowVelocity: UInt8; var highVelocity: UInt8
        var gain: Float; var start: UInt32; var sustain: UInt32; var release: UInt32
    }

    var order: [String] = []
    var bodies: [String: [UInt8]] = [:]
    var dataOffset = 0

    init(_ bytes: [UInt8]) throws {
        try #require(bytes.count >= 8 && String(decoding: bytes[0..<4], as: UTF8.self) == "caff")
        var at = 8
        while at + 12 <= bytes.count {
            let type = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            var size: Int64 = 0
            for byte in bytes[at + 4..<at + 12] { size = size << 8 | Int64(byte) }
            order.append(type)
            if type == "data" {
                dataOffset = at
                break
            }
            try #require(size >= 0 && at + 12 + Int(size) <= bytes.count, "chunk '\(type)' runs past the file")
            bodies[type] = Array(bytes[at + 12..<at + 12 + Int(size)])
            at += 12 + Int(size)
        }
    }

    private static func u32(_ b: [UInt8], _ at: Int) -> UInt32 { b[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) } }
    private static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { b[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
    private static func mark(_ b: [UInt8], _ at: Int) -> Mark {
        let raw = u32(b, at)
        let type = raw == 0 ? "0" : String(decoding: b[at..<at + 4], as: UTF8.self)
        return Mark(type: type, position: Double(bitPattern: u64(b, at + 4)), id: Int32(bitPattern: u32(b, at + 12)))
    }

    var markers: [Mark] {
        guard let b = bodies["mark"] else { return [] }
        let count = Int(Self.u32(b, 4))
        return (0..<count).map { Self.mark(b, 8 + 28 * $0) }
    }

    var regions: [Regn] {
        guard let b = bodies["regn"] else { return [] }
        var result: [Regn] = []
        var at = 8
        for _ in 0..<Self.u32(b, 4) {
            let count = Int(Self.u32(b, at + 8))
            result.append(
                Regn(
                    id: Self.u32(b, at), flags: Self.u32(b, at + 4), markers: (0..<count).map { Self.mark(b, at + 12 + 28 * $0) })
            )
            at += 12 + 28 * count
        }
        return result
    }

    var instrument: Inst? {
        guard let b = bodies["inst"], b.count == 28 else { return nil }
        return Inst(
            baseNote: Float(bitPattern: Self.u32(b, 0)), low: b[4], high: b[5], lowVelocity: b[6], highVelocity: b[7],
            gain: Float(bitPattern: Self.u32(b, 8)), start: Self.u32(b, 12), sustain: Self.u32(b, 16), release: Self.u32(b, 20))
    }

    /// ID -> string of `strg`.
    var strings: [UInt32: String] {
        guard let b = bodies["strg"] else { return [:] }
        let count = Int(Self.u32(b, 0))
        let table = Array(b[(4 + 12 * count)...])
        var result: [UInt32: String] = [:]
        for index in 0..<count {
            let start = Int(Self.u64(b, 4 + 12 * index + 4))
            let end = table[start...].firstIndex(of: 0) ?? table.count
            result[Self.u32(b, 4 + 12 * index)] = String(decoding: table[start..<end], as: UTF8.self)
        }
        return result
    }

    /// The `info` pairs in order.
    var info: [[String]] {
        guard let b = bodies["info"] else { return [] }
        let parts = b[4...].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let count = Int(Self.u32(b, 0))
        return (0..<count).map { [parts[2 * $0], parts[2 * $0 + 1]] }
    }
}

private let metadataTypes: Set<String> = ["info", "inst", "regn", "mark", "strg"]

@Suite("Loops, markers and text: WAV/AIFF/CAF to CAF")
struct MetadataTests {
    @Test("a WAV's smpl loops, named cue points and INFO text (UTF-8 and Latin-1) come out exactly")
    func waveMetadataReachesTheCAF() throws {
        let converted = try convert(richWave())
        let caf = try PlainCAF(converted.bytes)
        #expect(caf.order == ["desc", "info", "inst", "regn", "mark", "strg", "free", "data"])
        // The audio has not moved: the metadata fits in the free space libsndfile leaves.
        let plain = try convert(richWave(), options: ConversionOptions(jobs: 1, stripMetadata: true))
        #expect(converted.file.audioOffset == plain.file.audioOffset)
        #expect(audio(converted) == audio(plain))
        expectCleanLayout(converted.file)

        let generic = (1...5).map { PlainCAF.Mark(type: "0", position: [100, 200, 300, 400, 3999][$0 - 1], id: Int32($0)) }
        let loops = [
            PlainCAF.Mark(type: "slbg", position: 500, id: 7), PlainCAF.Mark(type: "slen", position: 1500, id: 8),
            PlainCAF.Mark(type: "rlbg", position: 2000, id: 10), PlainCAF.Mark(type: "rlen", position: 3000, id: 11),
        ]
        #expect(caf.markers == generic + loops)
        #expect(
            caf.regions == [
                PlainCAF.Regn(id: 6, flags: 3, markers: Array(loops[0...1])),  // forward: enable + forward
                PlainCAF.Regn(id: 9, flags: 7, markers: Array(loops[2...3])),  // alternating: both ways
            ])
        #expect(
            caf.instrument
                == PlainCAF.Inst(
                    baseNote: 60.5, low: 0, high: 127, lowVelocity: 1, highVelocity: 127, gain: 0, start: 0, sustain: 6,
                    release: 9))
        var names: [UInt32: String] = [:]
        for id in 1...5 { names[UInt32(id)] = "Marker \(id) ✓" }
        names[6] = "Marker 1 ✓"  // the loops' cue points name the regions
        names[9] = "Marker 2 ✓"
        #expect(caf.strings == names)
        #expect(
            caf.info == [
                ["title", "Café ☕ title"], ["artist", "Müller"], ["comments", "Loops twice"], ["recorded date", "2026-11-24"],
                ["encoding application", "fixture"], ["IENG", "Ann"],
            ])
    }

    @Test("--strip-metadata writes none of the metadata chunks, and changes the fingerprint")
    func stripMetadata() throws {
        let stripped = try convert(richWave(), options: ConversionOptions(jobs: 1, stripMetadata: true))
        let caf = try PlainCAF(stripped.bytes)
        #expect(metadataTypes.isDisjoint(with: caf.order), "\(caf.order)")
        #expect(ConversionOptions(stripMetadata: true).fingerprint != ConversionOptions().fingerprint)
        #expect(ConversionOptions(stripMetadata: true).fingerprint.contains("meta=strip"))
    }

    @Test("metadata longer than the free space moves the audio by whole pages, the samples intact")
    func growsByPages() throws {
        let long = String(repeating: "long comment ", count: 700)  // 9100 bytes
        let fixture = wave([riff("LIST", Array("INFO".utf8) + riff("ICMT", Array(long.utf8) + [0]))])
        let converted = try convert(fixture)
        let plain = try convert(fixture, options: ConversionOptions(jobs: 1, stripMetadata: true))
        let caf = try PlainCAF(converted.bytes)
        #expect(caf.info == [["comments", long]])
        let moved = converted.file.audioOffset - plain.file.audioOffset
        #expect(moved > 0 && moved % CAFWriter.metadataPageSize == 0, "moved by \(moved)")
        #expect(audio(converted) == audio(plain))
        expectCleanLayout(converted.file)
    }

    @Test("placement: the free chunk absorbs the metadata, a gap of 1 to 11 bytes grows a page")
    func placement() {
        let leading =
            CAFWriter.header()
            + CAFWriter.chunkBytes(
                .description(
                    AudioDescription(
                        sampleRate: 8000, formatID: .lpcm, formatFlags: 2, bytesPerPacket: 2, framesPerPacket: 1,
                        channelsPerFrame: 1, bitsPerChannel: 16)))
        let info = CAFChunk.info(InfoStrings([CAFKit.InfoEntry(key: "title", value: "x")]))
        let size = UInt64(leading.count + CAFWriter.chunkBytes(info).count)
        #expect(CAFWriter.placeBeforeData(leading: leading, metadata: [info], dataChunkOffset: 4080).count == 4080)
        #expect(CAFWriter.placeBeforeData(leading: leading, metadata: [info], dataChunkOffset: size).count == Int(size))
        #expect(
            CAFWriter.placeBeforeData(leading: leading, metadata: [info], dataChunkOffset: size + 5).count == Int(size) + 5 + 4096
        )
        #expect(CAFWriter.placeBeforeData(leading: leading, metadata: [info], dataChunkOffset: size + 12).count == Int(size) + 12)
        #expect(CAFWriter.placeBeforeData(leading: leading, metadata: [info], dataChunkOffset: 40).count == 40 + 4096)
    }

    @Test("an AIFF's MARK and INST sustain/release loops and text chunks map to CAF chunks exactly")
    func aiffMetadata() throws {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + be32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
        }
        func pascal(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return [UInt8(bytes.count)] + bytes + ((bytes.count + 1) % 2 == 1 ? [0] : [])
        }
        let comm = be16(1) + be32(100) + be16(16) + [0x40, 0x0B, 0xFA, 0, 0, 0, 0, 0, 0, 0]  // 8000 Hz
        let mark =
            be16(3) + be16(1) + be32(10) + pascal("begin") + be16(2) + be32(40) + pascal("middle") + be16(3) + be32(90)
            + pascal("end")
        let inst: [UInt8] =
            [64, 0xF6, 10, 100, 20, 120] + be16(0xFFFA) + be16(1) + be16(1) + be16(2) + be16(2) + be16(2) + be16(3)
        let body =
            Array("AIFF".utf8) + chunk("COMM", comm) + chunk("MARK", mark) + chunk("INST", inst)
            + chunk("NAME", Array("Name".utf8)) + chunk("AUTH", Array("Author".utf8))
            + chunk("(c) ", Array("2026 Us".utf8)) + chunk("ANNO", Array("Note".utf8))
            + chunk("SSND", be32(0) + be32(0) + [UInt8](repeating: 0, count: 200))
        let aiff = Array("FORM".utf8) + be32(UInt32(body.count)) + body
        let (metadata, warnings) = MetadataMapping.read(MemoryByteSource(aiff))
        #expect(warnings.isEmpty)
        let leading =
            CAFWriter.header()
            + CAFWriter.chunkBytes(
                .description(
                    AudioDescription(
                        sampleRate: 8000, formatID: .lpcm, formatFlags: 0, bytesPerPacket: 2, framesPerPacket: 1,
                        channelsPerFrame: 1, bitsPerChannel: 16)))
        let head = CAFWriter.placeBeforeData(leading: leading, metadata: metadata.chunks, dataChunkOffset: 4080)
        let file = head + Array("data".utf8) + [0, 0, 0, 0, 0, 0, 0, 4] + [0, 0, 0, 0]
        let caf = try PlainCAF(file)
        #expect(caf.order == ["desc", "info", "inst", "regn", "mark", "strg", "free", "data"])
        #expect(caf.dataOffset == 4080)
        let generic = [
            PlainCAF.Mark(type: "0", position: 10, id: 1), PlainCAF.Mark(type: "0", position: 40, id: 2),
            PlainCAF.Mark(type: "0", position: 90, id: 3),
        ]
        let loops = [
            PlainCAF.Mark(type: "slbg", position: 10, id: 5), PlainCAF.Mark(type: "slen", position: 40, id: 6),
            PlainCAF.Mark(type: "rlbg", position: 40, id: 8), PlainCAF.Mark(type: "rlen", position: 90, id: 9),
        ]
        #expect(caf.markers == generic + loops)
        #expect(
            caf.regions == [
                PlainCAF.Regn(id: 4, flags: 3, markers: Array(loops[0...1])),
                PlainCAF.Regn(id: 7, flags: 7, markers: Array(loops[2...3])),
            ])
        #expect(
            caf.instrument
                == PlainCAF.Inst(
                    baseNote: 63.9, low: 10, high: 100, lowVelocity: 20, highVelocity: 120, gain: -6, start: 0, sustain: 4,
                    release: 7))
        #expect(caf.strings == [1: "begin", 2: "middle", 3: "end", 4: "begin", 7: "middle"])
        #expect(caf.info == [["title", "Name"], ["artist", "Author"], ["copyright", "2026 Us"], ["comments", "Note"]])
    }

    @Test("rate change: positions scaled to the nearest frame, those past the end dropped with a warning")
    func scaling() {
        let metadata = CAFMetadata(
            instrument: Instrument(
                baseNote: 60, midiLowNote: 0, midiHighNote: 127, midiLowVelocity: 1, midiHighVelocity: 127,
                decibelGain: 0, startRegionID: 0, sustainRegionID: 10, releaseRegionID: 11, instrumentID: 0),
            regions: RegionChunk(regions: [
                Region(
                    regionID: 10, flags: 3,
                    markers: [
                        Marker(type: .markerSustainLoopStart, framePosition: 3, markerID: 1),
                        Marker(type: .markerSustainLoopEnd, framePosition: 999, markerID: 2),
                    ]),
                Region(
                    regionID: 11, flags: 3,
                    markers: [
                        Marker(type: .markerReleaseLoopStart, framePosition: 500, markerID: 3),
                        Marker(type: .markerReleaseLoopEnd, framePosition: 1001, markerID: 4),
                    ]),
            ]),
            markers: MarkerChunk(
                markers: [0, 1, 3, 1000, 1001, 50_000].enumerated().map {
                    Marker(type: .markerGeneric, framePosition: $0.element, markerID: Int32($0.offset + 20))
                }))
        // 48000 -> 44100 Hz, 1001 source frames -> 920 output frames (rounded).
        let (down, warnings) = metadata.rescaled(sourceRate: 48000, outputRate: 44100, outputFrames: 920)
        // 1 -> 0.92 -> 1; 3 -> 2.76 -> 3; 1000 -> 918.75 -> 919; 1001 -> 919.67 -> 920
        #expect(down.markers?.markers.map(\.framePosition) == [0, 1, 3, 919, 920])
        #expect(down.markers?.declaredCount == 5)
        #expect(down.regions?.regions.map(\.regionID) == [10, 11])
        #expect(down.regions?.regions[0].markers.map(\.framePosition) == [3, 918])  // 999 * 0.91875 = 917.8
        #expect(down.regions?.regions[1].markers.map(\.framePosition) == [459, 920])  // 500 * 0.91875 = 459.4
        #expect(warnings.count == 1 && warnings[0].contains("marker 25"))
        // 8000 -> 16000 Hz, 1000 -> 2000 frames: the marker past the end (50000) and the release
        // loop whose end is past it are dropped; the instrument no longer names that region.
        let (up, dropped) = metadata.rescaled(sourceRate: 8000, outputRate: 16000, outputFrames: 2000)
        #expect(up.markers?.markers.map(\.framePosition) == [0, 2, 6, 2000])
        #expect(up.regions?.regions.map(\.regionID) == [10])
        #expect(up.instrument?.releaseRegionID == 0 && up.instrument?.sustainRegionID == 10)
        #expect(dropped.count == 3, "\(dropped)")
        // Same rate: positions kept exactly, even fractional ones.
        var fractional = metadata
        fractional.markers?.markers[1].framePosition = 1.25
        let (same, _) = fractional.rescaled(sourceRate: 8000, outputRate: 8000, outputFrames: 1000)
        #expect(same.markers?.markers.map(\.framePosition) == [0, 1.25, 3, 1000])
    }

    @Test("positions past the end of the audio are dropped with a warning, never written out of range")
    func pastTheEnd() throws {
        let fixture = wave(
            frames: 1000,
            [
                smpl([(1, 0, 10, 900, 0), (2, 0, 500, 70_000, 0)]),
                cue([(1, 5), (2, 0xFFFF_FFF0)]),
            ])
        let converted = try convert(fixture)
        let caf = try PlainCAF(converted.bytes)
        #expect(caf.markers.allSatisfy { $0.position <= 1000 })
        #expect(caf.regions.map(\.flags) == [3])
        #expect(caf.instrument?.release == 0)
        #expect(converted.result.warnings.contains { $0.message.contains("past the end") })
        expectCleanLayout(converted.file)
    }

    @Test("hostile metadata chunks: huge counts, truncated and overlapping bodies give warnings, never a crash")
    func hostile() throws {
        let cases: [[[UInt8]]] = [
            [smpl([(1, 0, 10, 20, 0)], declared: 0xFFFF_FFFF)],
            [cue([(1, 5)], declared: 0x7FFF_FFFF)],
            // A LIST whose entry claims more bytes than the list holds.
            [riff("LIST", Array("INFO".utf8) + Array("INAM".utf8) + le32(0xFFFF_FF00) + Array("abc".utf8))],
            // labl with a cue ID that names no cue, and an ltxt region far past the end.
            [
                cue([(1, 5)]),
                riff(
                    "LIST",
                    Array("adtl".utf8) + riff("labl", le32(99) + Array("x".utf8))
                        + riff(
                            "ltxt", le32(1) + le32(0xFFFF_FFFF) + Array("rgn ".utf8) + [0, 0, 0, 0, 0, 0, 0, 0])),
            ],
            // Text that is neither: bytes 0x80-0xFF are read as Latin-1.
            [riff("LIST", Array("INFO".utf8) + riff("INAM", [0xC3, 0x28, 0xFF, 0]))],
        ]
        for extra in cases {
            let folder = TempDirectory()
            let input = folder.write("in.wav", wave(frames: 100, extra))
            let report = Engine.convert(inputs: [input], output: folder.file("out.caf"), options: ConversionOptions(jobs: 1))
            let result = try #require(report.files.first)
            // Bad metadata never stops the audio: the file converts with what can be read.
            try #require(result.status == .converted, "\(result.reason ?? "")")
            let bytes = try #require(readFile(folder.file("out.caf")))
            let caf = try PlainCAF(bytes)
            #expect(caf.markers.allSatisfy { $0.position <= 100 })
            #expect(caf.regions.allSatisfy { $0.markers.allSatisfy { $0.position <= 100 } })
            expectCleanLayout(try CAFFile(reading: MemoryByteSource(bytes)))
        }
        // A smpl chunk whose size swallows the data chunk: the file has no audio to convert, and
        // says so; the sampler data is read no further than the file.
        let folder = TempDirectory()
        let input = folder.write("in.wav", wave(frames: 100, [Array("smpl".utf8) + le32(5000) + [0, 0, 0, 0]]))
        let report = Engine.convert(inputs: [input], output: folder.file("out.caf"), options: ConversionOptions(jobs: 1))
        #expect(report.files.first?.status == .failed && report.files.first?.reason?.contains("'data'") == true)
        let (overlapping, _) = MetadataMapping.read(MemoryByteSource(readFile(input) ?? []))
        #expect(overlapping.isEmpty)
        // The Latin-1 fallback of the last case, exactly.
        let (metadata, _) = MetadataMapping.read(
            MemoryByteSource(wave(frames: 10, [riff("LIST", Array("INFO".utf8) + riff("INAM", [0xC3, 0x28, 0xFF, 0]))])))
        #expect(metadata.info?.entries == [CAFKit.InfoEntry(key: "title", value: "Ã(ÿ")])
    }

    @Test("CAF to CAF: every chunk that describes the audio is kept; peak and overview are dropped")
    func cafToCAF() throws {
        let chunks: [CAFChunk] = [
            .description(
                AudioDescription(
                    sampleRate: 8000, formatID: .lpcm, formatFlags: 2, bytesPerPacket: 2, framesPerPacket: 1,
                    channelsPerFrame: 1, bitsPerChannel: 16)),
            .info(InfoStrings([CAFKit.InfoEntry(key: "title", value: "T")])),
            .markers(MarkerChunk(markers: [Marker(type: .markerGeneric, framePosition: 4, markerID: 1)])),
            .strings(StringsChunk(strings: [(1, "one")])),
            .peak(PeakChunk(editCount: 0, peaks: [])),
            .overview(Overview(editCount: 0, framesPerSample: 1, samples: [])),
            .editComments(EditComments([CAFKit.InfoEntry(key: "edit", value: "cut")])),
            .audioData(AudioDataChunk(editCount: 0, audio: .bytes([UInt8](repeating: 0, count: 20)))),
        ]
        let bytes = try CAFWriter.bytes(of: CAFContents(chunks: chunks))
        let (metadata, _) = MetadataMapping.read(MemoryByteSource(bytes))
        #expect(metadata.chunks.map(\.type) == [.info, .mark, .strg, .edct])
        let (scaled, _) = metadata.rescaled(sourceRate: 8000, outputRate: 16000, outputFrames: 20)
        #expect(scaled.markers?.markers.first?.framePosition == 8)
    }

    @Test(
        "the real WAVs with smpl, cue or LIST keep them",
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func realCorpus() throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let expected: [(String, Set<String>, [String])] = [
            ("go-audio_wav__flloop.wav", ["info", "inst", "regn", "mark"], ["encoding application"]),
            ("ryanfrancesconi_spfk-testing__tabla.wav", ["info", "inst", "regn", "mark"], ["title", "artist", "album"]),
            ("go-audio_wav__bwf.wav", ["info"], ["album", "originator"]),
            ("Borewit_music-metadata__ffmpeg-missing-chunksize.wav", ["info"], ["encoding application"]),
        ]
        for (name, types, keys) in expected {
            guard let source = readFile(corpus + "/" + name) else {
                Issue.record("\(name) is missing from the corpus")
                continue
            }
            let converted = try convert(source)
            let caf = try PlainCAF(converted.bytes)
            #expect(types.isSubset(of: Set(caf.order)), "\(name): \(caf.order)")
            let present = Set(caf.info.map { $0[0] })
            #expect(Set(keys).isSubset(of: present), "\(name): \(present)")
            expectCleanLayout(converted.file)
        }
    }

    @Test("verify --against: the loops, markers and text must have survived")
    func verifyAgainst() throws {
        let folder = TempDirectory()
        let converted = try convert(richWave(), in: folder)
        let source = folder.file("in.wav")
        let good = try #require(Verifier.verify(paths: [converted.path], options: VerifyOptions(against: source)).files.first)
        #expect(good.failures.isEmpty, "\(good.failures)")
        // A marker moved by one frame, and a changed title: both are found.
        var bytes = converted.bytes
        let caf = try PlainCAF(bytes)
        let markAt = try #require(caf.order.firstIndex(of: "mark"))
        var offset = 8
        for type in caf.order[..<markAt] { offset += 12 + (caf.bodies[type]?.count ?? 0) }
        // The first marker's position (a big-endian Double after the 8-byte header and 4-byte type).
        let position = offset + 12 + 8 + 4
        let moved = (101.0).bitPattern
        for index in 0..<8 { bytes[position + index] = UInt8(truncatingIfNeeded: moved >> (56 - 8 * UInt64(index))) }
        let titleAt = try #require(
            bytes.indices.first { bytes[$0...].starts(with: Array("Café ☕ title".utf8)) })
        bytes[titleAt] = UInt8(ascii: "K")
        writeFile(converted.path, bytes)
        let bad = try #require(Verifier.verify(paths: [converted.path], options: VerifyOptions(against: source)).files.first)
        let found = bad.failures.filter { $0.code == "against-metadata" }.map(\.description)
        #expect(found.count == 2, "\(found)")
        #expect(found.contains { $0.contains("'mark'") || $0.contains("markers") })
        #expect(found.contains { $0.contains("title") })
        // An output written with --strip-metadata passes, with a warning.
        let stripped = try convert(richWave(), options: ConversionOptions(jobs: 1, stripMetadata: true), in: folder)
        let plain = try #require(Verifier.verify(paths: [stripped.path], options: VerifyOptions(against: source)).files.first)
        #expect(plain.failures.isEmpty && plain.warnings.contains { $0.contains("--strip-metadata") })
    }

    @Test("the IMA4 header writer places the same metadata chunks, audio at a multiple of 4096")
    func ima4Header() throws {
        let (metadata, _) = MetadataMapping.read(MemoryByteSource(richWave()))
        let header = CAFWriter.ima4Header(sampleRate: 8000, channels: 1, frames: 4000, metadata: metadata.chunks)
        let caf = try PlainCAF(header)
        #expect(caf.order == ["desc", "info", "inst", "regn", "mark", "strg", "pakt", "free", "data"])
        #expect((caf.dataOffset + 16) % 4096 == 0)
        #expect(caf.markers.count == 9 && caf.regions.count == 2 && caf.info.count == 6)
    }

    @Test(
        "every output format keeps the metadata (libsndfile's ALAC header has kuki and pakt before it)",
        arguments: [
            "alac", "ulaw", "alaw", "LEF32", "BEI24", "I8",
        ])
    func everyFormat(_ format: String) throws {
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1)
        let converted = try convert(richWave(), options: options)
        let caf = try PlainCAF(converted.bytes)
        #expect(metadataTypes.isSubset(of: Set(caf.order)), "\(caf.order)")
        #expect(caf.markers.count == 9 && caf.regions.count == 2 && caf.instrument?.sustain == 6)
        #expect(caf.strings.count == 7 && caf.info.count == 6)
        expectCleanLayout(converted.file)
    }

    @Test("an IMA4 source's loops, markers and text reach its linear PCM and IMA4 outputs", arguments: ["LEI16", "ima4"])
    func ima4Sources(_ format: String) throws {
        let ima4 = try convert(richWave(), options: ConversionOptions(dataFormat: try DataFormat(parsing: "ima4"), jobs: 1))
        let source = try PlainCAF(ima4.bytes)
        #expect(metadataTypes.isSubset(of: Set(source.order)), "\(source.order)")
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1)
        let converted = try convert(ima4.bytes, name: "in.caf", options: options)
        #expect(converted.result.formatIn == "ima4")
        let caf = try PlainCAF(converted.bytes)
        #expect(metadataTypes.isSubset(of: Set(caf.order)), "\(caf.order)")
        #expect(caf.markers == source.markers && caf.regions == source.regions && caf.instrument == source.instrument)
        #expect(caf.strings == source.strings && caf.info == source.info)
        expectCleanLayout(converted.file)
        let stripped = try convert(
            ima4.bytes, name: "in.caf",
            options: ConversionOptions(dataFormat: try DataFormat(parsing: format), jobs: 1, stripMetadata: true))
        #expect(metadataTypes.isDisjoint(with: try PlainCAF(stripped.bytes).order))
    }

    @Test(
        "-d aac writes no loops, markers or text and says so; a source without them, or --strip-metadata, gives no warning",
        .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
    func aacSaysItDropsMetadata() throws {
        let aac = try DataFormat(parsing: "aac")
        let said = { (result: FileResult) in result.warnings.contains(.metadata(.notWrittenToAAC)) }
        let converted = try convert(richWave(), options: ConversionOptions(dataFormat: aac, jobs: 1))
        #expect(said(converted.result), "\(converted.result.warnings)")
        #expect(metadataTypes.isDisjoint(with: try PlainCAF(converted.bytes).order))
        let stripped = try convert(richWave(), options: ConversionOptions(dataFormat: aac, jobs: 1, stripMetadata: true))
        #expect(!said(stripped.result), "\(stripped.result.warnings)")
        let plain = try convert(wave(frames: 4000, []), options: ConversionOptions(dataFormat: aac, jobs: 1))
        #expect(!said(plain.result), "\(plain.result.warnings)")
    }

    @Test(
        "an AAC source's loops, markers and text are not carried, and the result says so",
        .enabled(if: libavcodecPresent, Comment(rawValue: libavcodecAbsent)))
    func aacSourceSaysItDropsMetadata() throws {
        let said = { (result: FileResult) in result.warnings.contains(.metadata(.notCarriedFromAAC)) }
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), jobs: 1)
        let aac = try convert(wave(frames: 4000, []), options: options)
        // An info chunk after the audio, as a tagging tool appends it.
        let tagged = aac.bytes + CAFWriter.chunkBytes(.info(InfoStrings([CAFKit.InfoEntry(key: "title", value: "Take 1")])))
        let converted = try convert(tagged, name: "in.caf")
        #expect(said(converted.result), "\(converted.result.warnings)")
        #expect(metadataTypes.isDisjoint(with: try PlainCAF(converted.bytes).order))
        let untagged = try convert(aac.bytes, name: "in.caf")
        #expect(!said(untagged.result), "\(untagged.result.warnings)")
        let stripped = try convert(tagged, name: "in.caf", options: ConversionOptions(jobs: 1, stripMetadata: true))
        #expect(!said(stripped.result), "\(stripped.result.warnings)")
    }

    @Test("a loop that ends before it starts is not carried, with a warning (WAV smpl, AIFF INST)")
    func backwardsLoops() throws {
        // WAV: loop 1 runs backwards (900 -> 100), loop 2 is fine and stays the release loop.
        let wav = wave(frames: 1000, [smpl([(0, 0, 900, 100, 0), (0, 0, 200, 300, 0)])])
        let (fromWave, waveWarnings) = MetadataMapping.read(MemoryByteSource(wav))
        #expect(
            waveWarnings.contains {
                if case .smplLoopBackwards(loop: 1, _, _) = $0 { return true }
                return false
            }, "\(waveWarnings)")
        #expect(fromWave.regions?.regions.count == 1)
        #expect(fromWave.instrument?.sustainRegionID == 0 && fromWave.instrument?.releaseRegionID != 0)
        for region in fromWave.regions?.regions ?? [] {
            #expect((region.markers.first?.framePosition ?? 0) <= (region.markers.last?.framePosition ?? 0))
        }
        // AIFF: the sustain loop's end marker (frame 10) is before its begin marker (frame 90).
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + be32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
        }
        let comm = be16(1) + be32(100) + be16(16) + [0x40, 0x0B, 0xFA, 0, 0, 0, 0, 0, 0, 0]  // 8000 Hz
        let mark = be16(2) + be16(1) + be32(90) + [1, 0x61] + be16(2) + be32(10) + [1, 0x62]
        let inst: [UInt8] = [60, 0, 0, 127, 1, 127] + be16(0) + be16(1) + be16(1) + be16(2) + be16(0) + be16(0) + be16(0)
        let body =
            Array("AIFF".utf8) + chunk("COMM", comm) + chunk("MARK", mark) + chunk("INST", inst)
            + chunk("SSND", be32(0) + be32(0) + [UInt8](repeating: 0, count: 200))
        let aiff = Array("FORM".utf8) + be32(UInt32(body.count)) + body
        let (fromAIFF, aiffWarnings) = MetadataMapping.read(MemoryByteSource(aiff))
        #expect(
            aiffWarnings.contains {
                if case .instLoopBackwards(loop: "sustain", _, _) = $0 { return true }
                return false
            }, "\(aiffWarnings)")
        #expect(fromAIFF.regions?.regions.isEmpty ?? true)
        #expect(fromAIFF.instrument?.sustainRegionID == 0)
        #expect(fromAIFF.markers?.markers.count == 2)  // the MARK markers themselves stay
    }

    @Test("placing metadata in a written file replaces the writer's own info and moves the audio intact")
    func placementInPlace() throws {
        let folder = TempDirectory()
        let samples = (0..<6400).map { Int16(truncatingIfNeeded: $0 &* 31) }
        let writerInfo = InfoStrings([CAFKit.InfoEntry(key: "encoding application", value: "writer")])
        let original = try CAFWriter.ima4Bytes(sampleRate: 8000, channels: 1, samples: samples, info: writerInfo)
        let path = folder.write("t.caf", original)
        let long = String(repeating: "x", count: 5000)
        let metadata: [CAFChunk] = [.info(InfoStrings([CAFKit.InfoEntry(key: "title", value: long)]))]
        let document = try CAFDocument(reading: MemoryByteSource(original))
        try ContainerStage.placeMetadata(metadata, in: path, document: document, blockSize: 4096)
        let placed = try #require(readFile(path))
        let caf = try PlainCAF(placed)
        #expect(caf.order.filter { $0 == "info" }.count == 1)
        #expect(caf.info == [["title", long]])
        let before = try PlainCAF(original)
        #expect(caf.dataOffset - before.dataOffset == 4096)  // about 5 KB more: one page
        #expect(placed[(caf.dataOffset)...] == original[(before.dataOffset)...])
    }

    @Test("bounded memory: a cue chunk of 100,000 points is read up to the reader's 1 MiB cap, with a warning")
    func boundedCue() throws {
        let points = (0..<100_000).map { (id: UInt32($0 + 1), position: UInt32($0 % 100)) }
        let converted = try convert(wave(frames: 100, [cue(points)]))
        let caf = try PlainCAF(converted.bytes)
        #expect(caf.markers.count == ((1 << 20) - 4) / 24)  // the count field takes 4 of the first MiB
        #expect(converted.result.warnings.contains { $0.message.contains("only the first") })
        #expect(converted.file.audioOffset % CAFWriter.metadataPageSize == 0)  // moved by whole pages from 4096
        expectCleanLayout(converted.file)
    }

    @Test("WAV ltxt regions, names from note or ltxt when there is no labl, bext description and originator")
    func ltxtNotesAndBext() throws {
        func padded(_ text: String, _ width: Int) -> [UInt8] {
            Array(text.utf8) + [UInt8](repeating: 0, count: width - text.utf8.count)
        }
        let bext = riff(
            "bext",
            padded("Field recording", 256) + padded("Recorder X", 32) + padded("", 32) + padded("2026-11-24", 10)
                + padded("01:02:03", 8) + [UInt8](repeating: 0, count: 8 + 2 + 64 + 10 + 180))
        let adtl = riff(
            "LIST",
            Array("adtl".utf8) + riff("note", le32(1) + Array("from note".utf8) + [0])
                + riff(
                    "ltxt", le32(2) + le32(50) + Array("rgn ".utf8) + [UInt8](repeating: 0, count: 8) + Array("chorus".utf8) + [0]
                ))
        let fixture = wave(frames: 1000, [cue([(1, 5), (2, 100)]), adtl, bext])
        let (metadata, warnings) = MetadataMapping.read(MemoryByteSource(fixture))
        #expect(warnings.isEmpty)
        let markers = try #require(metadata.markers?.markers)
        #expect(markers.map(\.type) == [.markerGeneric, .markerGeneric, .markerRegionStart, .markerRegionEnd])
        #expect(markers.map(\.framePosition) == [5, 100, 100, 150])
        #expect(metadata.regions?.regions.map(\.flags) == [0])
        #expect(metadata.regions?.regions.first?.markers.map(\.framePosition) == [100, 150])
        #expect(metadata.strings?.string(for: 1) == "from note" && metadata.strings?.string(for: 2) == "chorus")
        #expect(metadata.strings?.string(for: 3) == "chorus")  // the region
        #expect(
            metadata.info?.entries == [
                CAFKit.InfoEntry(key: "comments", value: "Field recording"),
                CAFKit.InfoEntry(key: "originator", value: "Recorder X"),
            ])
    }
}

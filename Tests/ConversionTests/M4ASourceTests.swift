import AACCodec
import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import Foundation
import Opus
import OutputFiles
import TestSupport
import Testing
import Verification

@testable import Transcoding

/// `.m4a`/`.mp4` AAC and ADTS `.aac` sources (ffmpeg makes them: its AAC encoder primes 1024
/// frames and its MP4 muxer records them in an edit list). Moved into CAF AAC, the packets read
/// back by CAFKit are byte-identical to those ffmpeg copies out of the source (`-c copy -f data`,
/// a reader that is not cafconv's), and the `pakt` accounting is the source's; ffmpeg reading the
/// CAF counts the same coded frames and decodes the same samples as from the source.
@Suite("M4A and ADTS AAC sources")
struct M4ASourceTests {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let ffprobe = ["/usr/bin/ffprobe", "/usr/local/bin/ffprobe"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let ready = ffmpeg != nil && ffprobe != nil && LibAVCodec.isAvailable

    /// `arguments` run through ffmpeg (quiet, overwriting); the test fails with its words.
    static func ffmpeg(_ arguments: [String]) throws {
        let made = try runMerged(try #require(ffmpeg), ["-hide_banner", "-loglevel", "error", "-y"] + arguments)
        try #require(made.status == 0, "\(made.text)")
    }

    /// A file `name` of exactly `frames` frames of a generated signal, encoded by ffmpeg with `codec`.
    static func source(
        _ name: String, frames: Int, channels: Int = 2, rate: Int = 44_100, codec: [String] = ["-c:a", "aac", "-b:a", "128k"],
        in folder: TempDirectory
    ) throws -> String {
        let wav = folder.write("\(name).wav", WAVFixture.signal(.int16, channels: channels, frames: frames, sampleRate: rate).bytes)
        let path = folder.file(name)
        try ffmpeg(["-i", wav, "-af", "volume=0.25"] + codec + [path])
        return path
    }

    /// The frames the MP4 itself declares (its edit list's duration), as ffprobe reads them: ffmpeg
    /// 5.1's muxer may declare a few frames fewer than it was given, and that is the source's length.
    static func stated(_ path: String) throws -> Int {
        let probe = try runMerged(
            try #require(ffprobe), ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration_ts", "-of", "csv=p=0", path])
        return try #require(Int(probe.text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// ffprobe's packet sizes of `path` (every packet, the edit list's discarded ones included).
    static func sizes(_ path: String) throws -> [Int] {
        let probe = try runMerged(
            try #require(ffprobe), ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=size", "-of", "csv=p=0", path])
        return probe.lines.compactMap { line in line.split(separator: ",").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
    }

    static func options(_ format: String?, bitRate: Int? = nil) throws -> ConversionOptions {
        var options = ConversionOptions(dataFormat: try format.map { try DataFormat(parsing: $0) }, jobs: 1)
        options.bitRate = bitRate
        return options
    }

    static func run(_ input: String, _ options: ConversionOptions, in folder: TempDirectory, name: String = "out.caf") throws
        -> (FileResult, String)
    {
        let output = folder.file(name)
        let report = Engine.convert(inputs: [input], output: output, options: options)
        return (try #require(report.files.first), output)
    }

    /// The CAF's packets as CAFKit reads them back.
    static func packets(_ caf: String) throws -> (CAFFile, [[UInt8]]) {
        let source = try FileByteSource(path: caf)
        let file = try CAFFile(reading: source)
        var reader = try CAFPacketReader(file: file, source: source)
        var packets: [[UInt8]] = []
        while let packet = try reader.next() { packets.append(try source.readExactly(at: packet.offset, count: packet.size)) }
        return (file, packets)
    }

    /// ffmpeg's decoding of `path` as interleaved floats.
    static func decoded(_ path: String, in folder: TempDirectory) throws -> [Float] {
        let raw = folder.file("decoded-\(UUID().uuidString).f32")
        try ffmpeg(["-i", path, "-f", "f32le", raw])
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test(
        "-d aac moves an M4A's packets: byte-identical to ffmpeg's copy, priming 1024 from the edit list, exact valid frames",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"),
        arguments: [(44_100, 2, 44_100 + 777), (48_000, 1, 48_000), (22_050, 1, 1234)])
    func moveExact(rate: Int, channels: Int, frames: Int) throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: frames, channels: channels, rate: rate, in: folder)
        let (result, caf) = try Self.run(m4a, try Self.options("aac"), in: folder)
        // The edit list's end, in the movie's 1/1000 s, may round past the samples (1234 frames
        // at 22050 Hz are 55.96 ms, 56 ms are 1235 frames): the sample table's end stops it.
        let stated = min(try Self.stated(m4a), frames)
        #expect(abs(stated - frames) < 64)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        #expect(result.samples == .aacMoved && result.proof?.rule == "aac-packets-moved" && result.frames == Int64(stated))
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let (file, packets) = try Self.packets(caf)
        // ffmpeg copies the packets out of the MP4 (raw access units, in order).
        let raw = folder.file("packets.bin")
        try Self.ffmpeg(["-i", m4a, "-map", "0:a", "-c", "copy", "-f", "data", raw])
        #expect(packets.flatMap { $0 } == [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw))))
        #expect(packets.map(\.count) == (try Self.sizes(m4a)))
        // The accounting: ffmpeg's encoder primes 1024 frames; the valid frames are the source's.
        let header = try #require(file.packetTableHeader)
        #expect(header.primingFrames == 1024 && header.numberValidFrames == Int64(stated))
        #expect(Int64(header.primingFrames) + Int64(header.remainderFrames) + header.numberValidFrames == Int64(packets.count) * 1024)
        #expect(file.audioDescription.formatID == .aac && file.audioDescription.framesPerPacket == 1024)
        #expect(file.audioDescription.sampleRate == Double(rate) && Int(file.audioDescription.channelsPerFrame) == channels)
        #expect(CAFValidator.validate(file).isEmpty)
        // The kuki: Apple's ES_Descriptor around the source's AudioSpecificConfig.
        let kuki = try #require(file.chunks.first { $0.type == .kuki })
        let cookie = try MPEG4ESDescriptor(
            parsing: try FileByteSource(path: caf).readExactly(at: kuki.bodyOffset, count: Int(kuki.size)))
        #expect(cookie.audioSpecificConfig == (try AVDemuxer(path: m4a)).config && cookie.audioObjectType == 2)
        // ffprobe counts the CAF's coded frames (it applies no priming), ffmpeg decodes the same
        // samples from the CAF (priming dropped) as from the M4A (edit list applied).
        let count = try runMerged(
            try #require(Self.ffprobe), ["-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", caf])
        #expect(Int(count.text.trimmingCharacters(in: .whitespacesAndNewlines)) == packets.count)
        let fromCAF = try Self.decoded(caf, in: folder)
        let fromM4A = try Self.decoded(m4a, in: folder)
        #expect(fromCAF.count == packets.count * 1024 * channels)
        let valid = stated * channels
        #expect(fromM4A.count >= valid)
        #expect(Array(fromCAF[1024 * channels..<1024 * channels + valid]) == Array(fromM4A[0..<valid]))
    }

    @Test(
        "an MP4 with two audio tracks moves one and says the other was left out; one track says nothing",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func otherAudioTracks() throws {
        let folder = TempDirectory()
        let one = try Self.source("one.m4a", frames: 12_000, channels: 1, in: folder)
        let other = folder.write("other.wav", WAVFixture.signal(.int16, channels: 2, frames: 9_000, sampleRate: 44_100).bytes)
        let two = folder.file("two.m4a")
        try Self.ffmpeg(["-i", one, "-i", other, "-map", "0:a", "-map", "1:a", "-c:a:0", "copy", "-c:a:1", "aac", two])
        let (single, _) = try Self.run(one, try Self.options("aac"), in: folder, name: "single.caf")
        #expect(single.status == .converted && !single.warnings.contains { "\($0)".contains("audio tracks") }, "\(single.warnings)")
        let (result, caf) = try Self.run(two, try Self.options("aac"), in: folder)
        #expect(result.status == .converted && result.samples == .aacMoved, "\(result.reason ?? "")")
        #expect(result.warnings.contains(.source(.otherAudioTracks(count: 2))), "\(result.warnings)")
        #expect(try Self.packets(caf).1.count > 0)
    }

    @Test(
        "without -d an M4A stays AAC, its packets moved (afconvert keeps a source's format); -b forces a re-encode",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func keptWithoutDataFormat() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 30_000, in: folder)
        let (kept, _) = try Self.run(m4a, try Self.options(nil), in: folder)
        #expect(kept.status == .converted && kept.samples == .aacMoved && kept.formatOut == "aac", "\(kept.reason ?? "")")
        let (encoded, caf) = try Self.run(m4a, try Self.options("aac", bitRate: 96_000), in: folder, name: "again.caf")
        let stated = try Self.stated(m4a)
        #expect(encoded.samples == .aacEncoded && encoded.frames == Int64(stated), "\(encoded.reason ?? "")")
        #expect(try Self.packets(caf).0.packetTableHeader?.numberValidFrames == Int64(stated))
    }

    @Test(
        "an M4A decoded to LEI16, ALAC, IMA4, float, resampled and mixed: exact length from the edit list",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"),
        arguments: [("LEI16", nil, nil), ("alac", nil, nil), ("ima4", nil, nil), ("LEF32", nil, nil), ("LEI16", 22_050, nil), ("LEI24", nil, 1)]
            as [(String, Int?, Int?)])
    func decodedToOthers(format: String, rate: Int?, channels: Int?) throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 44_100 + 321, in: folder)
        var options = try Self.options(format)
        options.sampleRate = rate
        options.channels = channels
        let (result, caf) = try Self.run(m4a, options, in: folder)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        let stated = try Self.stated(m4a)
        let expected: Int64 = rate == nil ? Int64(stated) : Int64((Double(stated) * 22_050 / 44_100).rounded())
        #expect(result.frames == expected && result.proof != nil, "\(result.frames ?? -1) for \(expected)")
        #expect(result.formatIn == "aac")
        let file = try CAFFile(reading: try FileByteSource(path: caf))
        if let channels { #expect(Int(file.audioDescription.channelsPerFrame) == channels) }
    }

    @Test("an M4A decoded to floats holds ffmpeg's decoding of it exactly, cut at the edit list's end", .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func decodedMatchesFFmpeg() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 20_000, channels: 1, in: folder)
        let (result, caf) = try Self.run(m4a, try Self.options("LEF32"), in: folder)
        #expect(result.status == .converted && result.samples == .aacDecoded, "\(result.reason ?? "")")
        let ours = try Self.decoded(caf, in: folder)
        let theirs = try Self.decoded(m4a, in: folder)
        let stated = try Self.stated(m4a)
        #expect(ours.count == stated)
        #expect(ours == Array(theirs.prefix(stated)))
    }

    @Test("ADTS: packets moved without their headers, priming 0 with a warning, every coded frame kept", .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func adts() throws {
        let folder = TempDirectory()
        let aac = try Self.source("in.aac", frames: 10_000, channels: 2, in: folder)
        let (result, caf) = try Self.run(aac, try Self.options("aac"), in: folder)
        #expect(result.status == .converted && result.samples == .aacMoved, "\(result.reason ?? "")")
        let (file, packets) = try Self.packets(caf)
        let header = try #require(file.packetTableHeader)
        #expect(header.primingFrames == 0 && header.remainderFrames == 0 && header.numberValidFrames == Int64(packets.count) * 1024)
        #expect(result.warnings.contains(.source(.aacPrimingUnknown(container: "ADTS", frames: Int64(packets.count) * 1024))))
        // The ADTS frames, less their 7-byte headers (no CRC), are the CAF's packets.
        #expect(packets.map { $0.count + 7 } == (try Self.sizes(aac)))
        // ffmpeg decodes the same samples from both (it applies no priming to ADTS either).
        #expect(try Self.decoded(caf, in: folder) == (try Self.decoded(aac, in: folder)))
        let (pcm, _) = try Self.run(aac, try Self.options("LEI16"), in: folder, name: "pcm.caf")
        #expect(pcm.status == .converted && pcm.frames == Int64(packets.count) * 1024, "\(pcm.reason ?? "")")
    }

    @Test(
        "ADTS streams joined end to end with another rate, channel count or profile are refused, moved or decoded, naming the frame",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"),
        arguments: [
            (44_100, 1, "aac_low", "from AAC LC, 48000 Hz, 2 channels to AAC LC, 44100 Hz, 1 channel"),
            (48_000, 1, "aac_low", "from AAC LC, 48000 Hz, 2 channels to AAC LC, 48000 Hz, 1 channel"),
            (22_050, 2, "aac_low", "from AAC LC, 48000 Hz, 2 channels to AAC LC, 22050 Hz, 2 channels"),
            (48_000, 2, "aac_main", "from AAC LC, 48000 Hz, 2 channels to AAC Main, 48000 Hz, 2 channels"),
        ])
    func adtsConfigurationChange(rate: Int, channels: Int, profile: String, change: String) throws {
        let folder = TempDirectory()
        let first = try Self.source("a.aac", frames: 9600, channels: 2, rate: 48_000, codec: ["-c:a", "aac", "-f", "adts"], in: folder)
        let second = try Self.source(
            "b.aac", frames: 9600, channels: channels, rate: rate, codec: ["-c:a", "aac", "-profile:a", profile, "-f", "adts"],
            in: folder)
        let head = try #require(readFile(first))
        let joined = folder.write("joined.aac", head + (try #require(readFile(second))))
        let frames = try Self.sizes(first).count
        for format in ["aac", "LEI16"] {
            let (result, _) = try Self.run(joined, try Self.options(format), in: folder, name: "\(format).caf")
            #expect(result.status == .failed, "\(format)")
            #expect(
                result.reason?.contains("changes at ADTS frame \(frames) (at byte \(head.count)), \(change)") == true,
                "\(format): \(result.reason ?? "")")
        }
        // One stream of one configuration still moves.
        let (plain, _) = try Self.run(first, try Self.options("aac"), in: folder, name: "plain.caf")
        #expect(plain.status == .converted, "\(plain.reason ?? "")")
    }

    @Test(
        "a cut-short ADTS frame or fragmented MP4 is refused, moved, decoded or described, naming the frame or the packets",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func cutShort() throws {
        let folder = TempDirectory()
        let adts = try Self.source("a.aac", frames: 20_000, rate: 48_000, codec: ["-c:a", "aac", "-f", "adts"], in: folder)
        let frames = try Self.sizes(adts)
        let last = try #require(frames.last)
        let adtsBytes = try #require(readFile(adts))
        let cutADTS = folder.write("cut.aac", Array(adtsBytes.dropLast(100)))
        let adtsReason =
            "it is cut short: its ADTS frame \(frames.count - 1) (at byte \(frames.dropLast().reduce(0, +))) "
            + "holds \(last - 100) of the \(last) bytes its header says"
        let frag = try Self.source(
            "f.mp4", frames: 48_000, rate: 48_000, codec: ["-c:a", "aac", "-movflags", "frag_keyframe+empty_moov"], in: folder)
        let packets = try Self.sizes(frag)
        let fragBytes = try #require(readFile(frag))
        // Cut inside the fragment's mdat, packets missing; and inside the last packet only.
        let cutFrag = folder.write("cut.mp4", Array(fragBytes.prefix(fragBytes.count * 2 / 3)))
        let fragReason = "it is cut short: its fragments list \(packets.count) packets, the file holds "
        // ffmpeg ends a fragmented file with an `mfra` index: cut at the middle of the last packet.
        let probe = try runMerged(
            try #require(Self.ffprobe),
            ["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pos", "-of", "csv=p=0", frag])
        let lastAt = try #require(probe.lines.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last)
        let half = try #require(packets.last) / 2
        let lastCut = folder.write("last.mp4", Array(fragBytes.prefix(lastAt + half)))
        let lastReason = "it is cut short: the file ends \(half) bytes into its packet \(packets.count - 1) (at byte \(lastAt))"
        for (path, reason) in [(cutADTS, adtsReason), (cutFrag, fragReason), (lastCut, lastReason)] {
            for format in ["aac", "LEI16"] {
                let (result, _) = try Self.run(path, try Self.options(format), in: folder, name: "\(format).caf")
                #expect(result.status == .failed && result.reason?.contains(reason) == true, "\(format): \(result.reason ?? "")")
            }
            // `info` reads the file through the same scan.
            do {
                _ = try M4ASource.scan(path)
                Issue.record("\(path) scanned")
            } catch { #expect("\(error.message)".contains(reason), "\(error.message)") }
        }
        for whole in [adts, frag] {
            let (result, _) = try Self.run(whole, try Self.options("aac"), in: folder, name: "whole.caf")
            #expect(result.status == .converted, "\(result.reason ?? "")")
        }
    }

    /// An ID3v2.4 tag holding a `TIT2` title and `padding` zero bytes, its size field `size`
    /// (syncsafe) unless `declared` says otherwise.
    static func id3v2(title: String, padding: Int = 64, declared: [UInt8]? = nil) -> [UInt8] {
        let text = [UInt8(3)] + Array(title.utf8)
        let frame = Array("TIT2".utf8) + [0, 0, 0, UInt8(text.count), 0, 0] + text
        let size = frame.count + padding
        let syncsafe = [UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)]
        return Array("ID3".utf8) + [4, 0, 0] + (declared ?? syncsafe) + frame + [UInt8](repeating: 0, count: padding)
    }

    @Test(
        "ADTS behind an ID3v2 tag is told by content and moved as plain ADTS is: the same packets and frames",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func adtsBehindID3() throws {
        let folder = TempDirectory()
        let aac = try Self.source("in.aac", frames: 10_000, channels: 2, in: folder)
        let adts = [UInt8](try Data(contentsOf: URL(fileURLWithPath: aac)))
        let tagged = folder.write("tagged.aac", Self.id3v2(title: "Bell") + adts)
        let (plain, plainCAF) = try Self.run(aac, try Self.options("aac"), in: folder, name: "plain.caf")
        let (result, caf) = try Self.run(tagged, try Self.options("aac"), in: folder)
        #expect(result.status == .converted && result.samples == .aacMoved, "\(result.reason ?? "")")
        let (moved, original) = (try Self.packets(caf).1, try Self.packets(plainCAF).1)
        #expect(result.frames == plain.frames && moved == original && !moved.isEmpty)
        let (pcm, _) = try Self.run(tagged, try Self.options("LEI16"), in: folder, name: "pcm.caf")
        #expect(pcm.status == .converted && pcm.frames == plain.frames, "\(pcm.reason ?? "")")
        // A tag whose size runs past the end of the file is not skipped: the file is not ADTS.
        let hostile = folder.write("hostile.aac", Self.id3v2(title: "Bell", declared: [0x7F, 0x7F, 0x7F, 0x7F]) + adts)
        let (refused, _) = try Self.run(hostile, try Self.options("aac"), in: folder, name: "hostile.caf")
        #expect(refused.status == .failed && refused.reason != nil)
    }

    @Test("an ID3v2 tag's length: syncsafe size, footer, checked against the file's length; hostile sizes refused")
    func id3v2Length() {
        let tag = Self.id3v2(title: "Bell", padding: 100)
        let length = UInt64(tag.count)
        #expect(M4ASource.id3v2Length(Array(tag.prefix(10)), fileLength: length + 2) == length)
        // The footer flag adds 10 bytes.
        var footer = Array(tag.prefix(10))
        footer[5] = 0x10
        #expect(M4ASource.id3v2Length(footer, fileLength: length + 100) == length + 10)
        // A size past the end of the file, a size byte with its top bit set, not a tag.
        #expect(M4ASource.id3v2Length(Array(tag.prefix(10)), fileLength: length) == nil)
        #expect(M4ASource.id3v2Length(Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F], fileLength: 4096) == nil)
        #expect(M4ASource.id3v2Length(Array("ID3".utf8) + [4, 0, 0, 0, 0, 0x80, 0], fileLength: 1 << 20) == nil)
        #expect(M4ASource.id3v2Length(Array("ID4".utf8) + [4, 0, 0, 0, 0, 0, 1], fileLength: 1 << 20) == nil)
    }

    @Test("an MP4 without an edit list: priming 0 with a warning, the last packet's duration trims the end", .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func noEditList() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 10_000, codec: ["-c:a", "aac", "-use_editlist", "0"], in: folder)
        let (result, caf) = try Self.run(m4a, try Self.options("aac"), in: folder)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        let header = try #require(try Self.packets(caf).0.packetTableHeader)
        let stated = try Self.stated(m4a)
        #expect(stated > 10_000 && header.primingFrames == 0 && header.numberValidFrames == Int64(stated))
        #expect(result.warnings.contains(.source(.aacPrimingUnknown(container: "MP4", frames: Int64(stated)))))
    }

    @Test("the move's proof fails when one byte of one packet differs", .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func proofCatchesChange() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 9600, channels: 1, in: folder)
        let stream = try #require(try M4ASource.scan(m4a))
        let caf = folder.file("moved.caf")
        let descriptor = open(caf, O_CREAT | O_RDWR | O_TRUNC, 0o644)
        let source = M4ASource.Source(path: m4a, stream: stream)
        let moved = try #require(
            try M4ARemux.remux(source, to: descriptor, folder: try FileSystem.Folder.open(folder.path)) { false })
        close(descriptor)
        #expect(try M4ARemux.prove(caf, source: source, moved: moved) { false }?.extent == "every-packet")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: caf)))
        bytes[bytes.count - 3] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: caf))
        #expect(throws: ConversionError.proof(.packetsNotMoved(codec: "AAC", reason: "packet \(moved.packets - 1) differs from the source's"))) {
            try M4ARemux.prove(caf, source: source, moved: moved) { false }
        }
    }

    @Test(
        "hostile and odd MP4s: truncated, no audio, MP3 in MP4 refused with sentences; ALAC in M4A decoded exactly",
        .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func hostile() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 20_000, codec: ["-c:a", "aac", "-movflags", "+faststart"], in: folder)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: m4a)))
        // Cut in the middle of its packets (the moov is first): libavformat gives fewer packets
        // than its sample table lists.
        let cut = folder.write("cut.m4a", Array(bytes.prefix(bytes.count / 2)))
        let (truncated, _) = try Self.run(cut, try Self.options("aac"), in: folder, name: "cut.caf")
        #expect(truncated.status == .failed, "\(truncated.samples.map { "\($0)" } ?? "")")
        // A sample table announcing 2^31 entries in a few bytes.
        var huge = bytes
        let stsz = try #require(Self.find(Array("stsz".utf8), in: huge))
        huge.replaceSubrange(stsz + 12..<stsz + 16, with: [0x7F, 0xFF, 0xFF, 0xFF])
        let hugePath = folder.write("huge.m4a", huge)
        let (hugeResult, _) = try Self.run(hugePath, try Self.options("aac"), in: folder, name: "huge.caf")
        #expect(hugeResult.status == .failed && hugeResult.reason?.contains("MP4") == true, "\(hugeResult.reason ?? "")")
        // No audio stream at all.
        let video = folder.file("video.mp4")
        try Self.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=16x16:d=0.2", "-c:v", "mpeg4", video])
        let (silent, _) = try Self.run(video, try Self.options("aac"), in: folder, name: "video.caf")
        #expect(silent.status == .failed && silent.reason == "cannot read its MP4 AAC: libavformat finds no audio stream in it")
        // MP3 in MP4: named and refused.
        let mp3 = try Self.source("mp3.mp4", frames: 20_000, codec: ["-c:a", "libmp3lame"], in: folder)
        let (lossy, _) = try Self.run(mp3, try Self.options("aac"), in: folder, name: "mp3.caf")
        #expect(lossy.status == .failed && lossy.code == .unsupported)
        #expect(lossy.reason == SourceFailure.mp4NotAAC(container: "MP4", codec: "mp3").message)
        // ALAC in M4A: the lossless road (libavcodec), exact.
        let alac = try Self.source("alac.m4a", frames: 20_000, codec: ["-c:a", "alac"], in: folder)
        let (lossless, _) = try Self.run(alac, try Self.options("LEI16"), in: folder, name: "alac.caf")
        #expect(lossless.status == .converted && lossless.frames == 20_000, "\(lossless.reason ?? "")")
    }

    @Test("an M4A's title, artist and date go into the moved CAF's info chunk; --strip-metadata leaves it out", .enabled(if: ready, "ffmpeg, ffprobe or libavcodec is absent"))
    func tagsCarried() throws {
        let folder = TempDirectory()
        let m4a = try Self.source(
            "in.m4a", frames: 5000,
            codec: ["-c:a", "aac", "-metadata", "title=Bell", "-metadata", "artist=Ann", "-metadata", "date=2024"], in: folder)
        let (result, caf) = try Self.run(m4a, try Self.options("aac"), in: folder)
        #expect(result.status == .converted, "\(result.reason ?? "")")
        let document = try CAFDocument(reading: try FileByteSource(path: caf))
        let info = try #require(document.contents.infoStrings)
        #expect(info.entries.contains(InfoEntry(key: "title", value: "Bell")) && info.entries.contains(InfoEntry(key: "artist", value: "Ann")))
        #expect(info.entries.contains(InfoEntry(key: "year", value: "2024")))
        #expect(document.file.chunks.map(\.type) == [.desc, .kuki, .info, .pakt, .free, .data])
        var stripped = try Self.options("aac")
        stripped.stripMetadata = true
        let (_, bare) = try Self.run(m4a, stripped, in: folder, name: "bare.caf")
        #expect(try CAFDocument(reading: try FileByteSource(path: bare)).contents.infoStrings == nil)
    }

    /// `verify --against SOURCE` on `caf`: the failures and the proof.
    static func verify(_ caf: String, against source: String) throws -> ([VerifyFailure], Proof?) {
        Verifier.compare(try CAFFile(reading: try FileByteSource(path: caf)), byteSource: try FileByteSource(path: caf), path: caf, with: source)
    }

    @Test(
        "verify --against an M4A or ADTS source: moved AAC, encoded Opus and LEI16 outputs pass; a shifted priming fails",
        .enabled(if: ready && (try? LibOpus.load()) != nil, "ffmpeg, ffprobe, libavcodec or libopus is absent"))
    func verifyAgainst() throws {
        let folder = TempDirectory()
        let m4a = try Self.source("in.m4a", frames: 20_000, channels: 2, in: folder)
        let aac = try Self.source("in.aac", frames: 20_000, channels: 2, in: folder)
        for (source, format, rule) in [(m4a, "aac", "aac"), (m4a, "opus", "opus"), (aac, "aac", "aac"), (m4a, "LEI16", "float-to-16-bit")] {
            let name = "\(format)-\(source.hasSuffix("aac") ? "adts" : "m4a").caf"
            let (result, caf) = try Self.run(source, try Self.options(format), in: folder, name: name)
            try #require(result.status == .converted, "\(result.reason ?? "")")
            let (failures, proof) = try Self.verify(caf, against: source)
            #expect(failures.isEmpty && proof?.rule?.contains(rule) == true, "\(name): \(failures) \(String(describing: proof))")
        }
        // The moved AAC CAF with its priming declared 0: its audio is late against the source.
        var bytes = try #require(readFile(folder.file("aac-m4a.caf")))
        let pakt = try #require(try CAFFile(reading: MemoryByteSource(bytes)).chunks.first { $0.type == .pakt })
        let at = Int(pakt.bodyOffset) + 16
        bytes.replaceSubrange(at..<at + 8, with: [UInt8](repeating: 0, count: 8))
        let shifted = folder.write("shifted.caf", bytes)
        #expect(!(try Self.verify(shifted, against: m4a)).0.isEmpty)
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle }
    }
}

import BinaryIO
import CAFKit
import Conversion
@testable import ConversionModel
import Foundation
@testable import IncrementalState
import Inspection
import Opus
@testable import OutputFiles
@testable import Rules
import SndFile
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// One kind of source file, written at test time by libsndfile (through the SndFile target).
struct SourceKind: Sendable, CustomStringConvertible {
    /// The file name in the fixture folder (every stem differs, so no two map to one output).
    var name: String
    var major: MajorFormat
    var encoding: Encoding
    var endianness: Endianness = .default
    /// What `convert` writes without `-d`.
    var formatOut: String
    /// Who decodes the source for the proof: `cafconv` or `libsndfile`.
    var decoder: String
    /// Bits compared with the samples written (lossless); `nil` for lossy sources.
    var exactBits: Int?
    var channels = 2

    var description: String { name }

    /// Every kind of source issue 16 names.
    static let all: [SourceKind] = [
        SourceKind(name: "riff16.wav", major: .wav, encoding: .pcm16, formatOut: "LEI16", decoder: "cafconv", exactBits: 16),
        SourceKind(
            name: "rifx24.wav", major: .wav, encoding: .pcm24, endianness: .big, formatOut: "LEI24", decoder: "cafconv",
            exactBits: 24),
        SourceKind(name: "rf64-24.wav", major: .rf64, encoding: .pcm24, formatOut: "LEI24", decoder: "cafconv", exactBits: 24),
        SourceKind(name: "wave64.w64", major: .w64, encoding: .pcm16, formatOut: "LEI16", decoder: "libsndfile", exactBits: 16),
        SourceKind(name: "aiff16.aiff", major: .aiff, encoding: .pcm16, formatOut: "LEI16", decoder: "cafconv", exactBits: 16),
        SourceKind(name: "aiff24.aif", major: .aiff, encoding: .pcm24, formatOut: "LEI24", decoder: "cafconv", exactBits: 24),
        SourceKind(name: "aiff32.aif", major: .aiff, encoding: .pcm32, formatOut: "LEI32", decoder: "cafconv", exactBits: 32),
        SourceKind(name: "aiff8.aif", major: .aiff, encoding: .pcmS8, formatOut: "I8", decoder: "cafconv", exactBits: 8),
        // Unsigned 8-bit: AIFF-C 'raw ' (offset binary), as libsndfile writes it.
        SourceKind(name: "aifc-raw8.aifc", major: .aiff, encoding: .pcmU8, formatOut: "I8", decoder: "cafconv", exactBits: 8),
        SourceKind(
            name: "aifc-sowt.aifc", major: .aiff, encoding: .pcm16, endianness: .little, formatOut: "LEI16",
            decoder: "cafconv", exactBits: 16),
        SourceKind(
            name: "aifc-fl32.aifc", major: .aiff, encoding: .float32, formatOut: "LEF32", decoder: "cafconv", exactBits: nil),
        SourceKind(
            name: "aifc-fl64.aifc", major: .aiff, encoding: .float64, formatOut: "LEF64", decoder: "cafconv", exactBits: nil),
        SourceKind(name: "aifc-ulaw.aifc", major: .aiff, encoding: .ulaw, formatOut: "ulaw", decoder: "cafconv", exactBits: nil),
        SourceKind(name: "aifc-alaw.aifc", major: .aiff, encoding: .alaw, formatOut: "alaw", decoder: "cafconv", exactBits: nil),
        SourceKind(name: "flac16.flac", major: .flac, encoding: .pcm16, formatOut: "LEI16", decoder: "libsndfile", exactBits: 16),
        SourceKind(name: "flac24.flac", major: .flac, encoding: .pcm24, formatOut: "LEI24", decoder: "libsndfile", exactBits: 24),
        SourceKind(name: "vorbis.ogg", major: .ogg, encoding: .vorbis, formatOut: "LEI16", decoder: "libsndfile", exactBits: nil),
        // Ogg Opus: libopus through cafconv's Ogg reader (issue 31), 48 kHz, pre-skip and end trimmed.
        SourceKind(name: "opus.opus", major: .ogg, encoding: .opus, formatOut: "LEI16", decoder: String(LibOpus.version.map { $0 == " " ? "-" : $0 }), exactBits: nil),
        SourceKind(name: "mpeg.mp3", major: .mpeg, encoding: .mp3, formatOut: "LEI16", decoder: "libmpg123", exactBits: nil),
        SourceKind(name: "sun16.au", major: .au, encoding: .pcm16, formatOut: "LEI16", decoder: "libsndfile", exactBits: 16),
        SourceKind(name: "sun-ulaw.au", major: .au, encoding: .ulaw, formatOut: "ulaw", decoder: "libsndfile", exactBits: nil),
        SourceKind(
            name: "caf-be16.caf", major: .caf, encoding: .pcm16, endianness: .big, formatOut: "LEI16", decoder: "cafconv",
            exactBits: 16),
        SourceKind(
            name: "caf-le24.caf", major: .caf, encoding: .pcm24, endianness: .little, formatOut: "LEI24", decoder: "cafconv",
            exactBits: 24),
        SourceKind(
            name: "caf-bef32.caf", major: .caf, encoding: .float32, endianness: .big, formatOut: "LEF32", decoder: "cafconv",
            exactBits: nil),
        SourceKind(name: "caf-ulaw.caf", major: .caf, encoding: .ulaw, formatOut: "ulaw", decoder: "cafconv", exactBits: nil),
        SourceKind(name: "caf-alaw.caf", major: .caf, encoding: .alaw, formatOut: "alaw", decoder: "cafconv", exactBits: nil),
        SourceKind(
            name: "caf-alac16.caf", major: .caf, encoding: .alac16, formatOut: "alac16", decoder: "libsndfile", exactBits: 16),
        SourceKind(
            name: "caf-alac24.caf", major: .caf, encoding: .alac24, formatOut: "alac24", decoder: "libsndfile", exactBits: 24),
    ]
}

/// Writes source fixtures with libsndfile.
enum SourceFixtures {
    static let frames = 4000
    static let sampleRate = 48_000

    /// The samples every fixture holds, left-justified in 32 bits (full scale at both ends of the
    /// first frames, then two sines).
    static func samples(channels: Int) -> [Int32] {
        var values: [Int32] = []
        for frame in 0..<frames {
            for channel in 0..<channels {
                switch frame {
                case 0: values.append(Int32.max)
                case 1: values.append(Int32.min)
                default:
                    let phase = Double(frame) * (channel == 0 ? 0.031 : 0.057)
                    values.append(Int32(sin(phase) * 0.7 * Double(Int32.max)))
                }
            }
        }
        return values
    }

    /// Writes `kind` at `path` with libsndfile.
    static func write(_ kind: SourceKind, to path: String) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let info = SoundInfo(
            sampleRate: sampleRate, channels: kind.channels, major: kind.major, encoding: kind.encoding,
            endianness: kind.endianness)
        // The writer owns (and closes) the descriptor it is given: a duplicate of the handle's.
        let writer = try SoundFile.create(descriptor: dup(handle.fileDescriptor), path: path, info: info)
        try writer.setNormalisation(false)
        try writer.write(samples(channels: kind.channels), frames: frames)
        try writer.close()
    }

    /// Every kind written into `folder/in`.
    static func tree(_ folder: TempDirectory, kinds: [SourceKind] = SourceKind.all) throws {
        folder.write("in/.keep", [])
        for kind in kinds { try write(kind, to: folder.file("in/" + kind.name)) }
    }

    /// All samples of `path` as libsndfile decodes them as doubles (normalisation off).
    static func decodeDoubles(_ path: String, normalised: Bool = false) throws -> [Double] {
        let reader = try SoundFile.open(readingFrom: path)
        try reader.setNormalisation(normalised)
        let channels = reader.info.channels
        var all: [Double] = []
        var buffer = [Double](repeating: 0, count: 4096 * channels)
        while true {
            let got = try reader.read(into: &buffer, frames: 4096)
            if got == 0 { break }
            all += buffer[0..<(got * channels)]
        }
        return all
    }

    /// All frames of `path` as libsndfile decodes them (left-justified ints, normalisation off).
    static func decode(_ path: String) throws -> (frames: Int, channels: Int, samples: [Int32]) {
        let reader = try SoundFile.open(readingFrom: path)
        try reader.setNormalisation(false)
        let channels = reader.info.channels
        var all: [Int32] = []
        var buffer = [Int32](repeating: 0, count: 4096 * channels)
        while true {
            let got = try reader.read(into: &buffer, frames: 4096)
            if got == 0 { break }
            all += buffer[0..<(got * channels)]
        }
        return (all.count / max(channels, 1), channels, all)
    }
}

/// The index of the first sample where `a` and `b` differ above `shift` bits (or where one ends).
func firstDifference(_ a: [Int32], _ b: [Int32], shift: Int32) -> Int? {
    if a.count != b.count { return min(a.count, b.count) }
    for index in a.indices where a[index] >> shift != b[index] >> shift { return index }
    return nil
}

@Suite("every source a sound folder holds: AIFF, FLAC, Ogg, MP3, AU, W64, RF64, CAF")
struct SourceTypesTests {
    let options = ConversionOptions(jobs: 2)

    @Test("a folder of every source type converts, each output proven, by the decoder the issue names")
    func everySourceType() throws {
        let folder = TempDirectory()
        try SourceFixtures.tree(folder)
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(
            report.totals.failed == 0, "\(report.files.filter { $0.status == .failed }.map { "\($0.input): \($0.reason ?? "")" })"
        )
        #expect(report.totals.converted == SourceKind.all.count)
        for kind in SourceKind.all {
            let output = folder.file("out/" + FileSystem.stem(kind.name) + ".caf")
            let file = try #require(report.files.first { $0.output == output }, "\(kind)")
            #expect(file.status == .converted, "\(kind): \(file.reason ?? "")")
            #expect(file.formatOut == kind.formatOut, "\(kind)")
            #expect(file.proof?.sourceDecoder == kind.decoder, "\(kind): \(file.proof?.description ?? "no proof")")
            #expect(file.proof?.extent != nil, "\(kind)")
            // An independent look at the output: CAFKit reads it; libsndfile decodes its samples.
            let caf = try CAFFile(reading: try FileByteSource(path: output))
            #expect(caf.audioDescription.byteOrder == nil || caf.audioDescription.byteOrder == .little, "\(kind)")
            let decoded = try SourceFixtures.decode(output)
            let source = try SourceFixtures.decode(folder.file("in/" + kind.name))
            // Lossy sources: exactly the frames libsndfile decodes (MP3 delay and padding trimmed; libmpg123, which wrote the MP3 output, trims them the same way).
            #expect(decoded.frames == source.frames, "\(kind)")
            #expect(Int64(decoded.frames) == file.frames, "\(kind)")
            if let bits = kind.exactBits {
                // Lossless: the samples written, at the source's precision.
                #expect(decoded.frames == SourceFixtures.frames, "\(kind)")
                let written = SourceFixtures.samples(channels: kind.channels)
                let drop = Int32(32 - bits)
                let first = firstDifference(written, decoded.samples, shift: drop)
                #expect(first == nil, "\(kind): sample \(first ?? -1) differs")
            } else if kind.encoding.isFloat {
                // Floats: the same values, bit for bit.
                let (a, b) = (
                    try SourceFixtures.decodeDoubles(folder.file("in/" + kind.name)), try SourceFixtures.decodeDoubles(output)
                )
                #expect(a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(kind)")
            } else if kind.encoding.isLossy {
                // Lossy: libsndfile's decoding of the source as floats (normalised, in [-1, 1]),
                // each becoming round(x * 32768), ties to even, clipped: the float-to-16-bit rule.
                let floats = try SourceFixtures.decodeDoubles(folder.file("in/" + kind.name), normalised: true)
                let expected = floats.map { x -> Int32 in
                    Int32(max(-32768, min(32767, (x * 32768).rounded(.toNearestOrEven)))) << 16
                }
                #expect(floats.contains { $0 != 0 }, "\(kind): silent decoding")
                let first = firstDifference(expected, decoded.samples, shift: 16)
                #expect(first == nil, "\(kind): sample \(first ?? -1) differs from the rule applied to the decoder's floats")
                #expect(file.proof?.rule == "float-to-16-bit", "\(kind): \(file.proof?.description ?? "")")
            } else {
                // G.711: the output holds libsndfile's decoding of the source at 16 bits.
                let first = firstDifference(source.samples, decoded.samples, shift: 16)
                #expect(first == nil, "\(kind): sample \(first ?? -1) differs from libsndfile's decoding of the source")
            }
        }

        // verify --against takes every one of these sources as the reference, and agrees.
        let verified = Verifier.verify(paths: [folder.file("out")], options: VerifyOptions(against: folder.file("in")))
        for result in verified.files {
            #expect(result.status == .passed, "\(result.path): \(result.failures)")
            #expect(result.against != nil, "\(result.path)")
        }
        #expect(verified.files.count == SourceKind.all.count)

        // A re-run is a no-op.
        let again = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(again.totals.converted == 0 && again.totals.upToDate == SourceKind.all.count && again.totals.failed == 0)
    }

    @Test("AIFF and CAF linear PCM are proven with cafconv's own reader, every frame or the ends of a moved payload")
    func ownReaderProof() throws {
        let folder = TempDirectory()
        let kinds = SourceKind.all.filter { [.aiff, .caf].contains($0.major) && $0.decoder == "cafconv" }
        try SourceFixtures.tree(folder, kinds: kinds)
        // The pump (no direct payload): every frame compared with cafconv's decoding.
        var pumped = options
        pumped.directPayload = false
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: pumped)
        for file in report.files {
            #expect(file.status == .converted, "\(file.input): \(file.reason ?? "")")
            #expect(file.proof?.sourceDecoder == "cafconv" && file.proof?.extent == "every-frame", "\(file.input)")
        }
        // The direct road moves AIFF and CAF linear PCM payloads as bytes, and writes the same bytes.
        let direct = Engine.convert(inputs: [folder.file("in")], output: folder.file("direct"), options: options)
        for file in direct.files where file.formatOut != "ulaw" && file.formatOut != "alaw" {
            #expect(
                [.copied, .byteSwapped, .signFlipped].contains(file.samples), "\(file.input): \(String(describing: file.samples))"
            )
            let relative = FileSystem.baseName(try #require(file.output))
            #expect(readFile(folder.file("direct/" + relative)) == readFile(folder.file("out/" + relative)), "\(relative)")
        }
    }

    @Test("an AIFF-C 'raw ' source is unsigned 8-bit: converted to signed I8 with the same waveform, and info says unsigned")
    func rawAIFF() throws {
        let folder = TempDirectory()
        let kind = try #require(SourceKind.all.first { $0.name == "aifc-raw8.aifc" })
        try SourceFixtures.tree(folder, kinds: [kind])
        let path = folder.file("in/aifc-raw8.aifc")
        let info = Inspector.inspect(path: path)
        #expect(info.formatDescription == "8-bit unsigned integer", "\(info.formatDescription)")
        let report = Engine.convert(inputs: [path], output: folder.file("out.caf"), options: options)
        #expect(report.files.first?.formatIn == "UI8" && report.files.first?.samples == .signFlipped, "\(report.files)")
    }

    @Test("--endian source keeps a big-endian AIFF or CAF big-endian; the default is little")
    func endianSource() throws {
        let folder = TempDirectory()
        let kinds = SourceKind.all.filter { ["aiff16.aiff", "caf-be16.caf", "aifc-sowt.aifc"].contains($0.name) }
        try SourceFixtures.tree(folder, kinds: kinds)
        var keep = options
        keep.endian = .source
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: keep)
        let formats = Dictionary(uniqueKeysWithValues: report.files.map { (FileSystem.baseName($0.input), $0.formatOut ?? "") })
        #expect(formats == ["aiff16.aiff": "BEI16", "caf-be16.caf": "BEI16", "aifc-sowt.aifc": "LEI16"])
    }

    @Test("AAC CAF sources are refused, saying why; IMA4 (AIFF-C and CAF) sources are decoded by cafconv")
    func refusedCodecs() throws {
        let folder = TempDirectory()
        let samples = (0..<1280).map { Int16(truncatingIfNeeded: $0 * 37) }
        folder.write("in/ima.caf", try CAFWriter.ima4Bytes(sampleRate: 44_100, channels: 1, samples: samples))
        let aac = AudioDescription(
            sampleRate: 44_100, formatID: .aac, formatFlags: 2, bytesPerPacket: 0, framesPerPacket: 1024,
            channelsPerFrame: 2, bitsPerChannel: 0)
        folder.write(
            "in/aac.caf",
            try CAFWriter.bytes(
                of: CAFContents(chunks: [
                    .description(aac), .audioData(AudioDataChunk(editCount: 0, audio: .bytes([1, 2, 3, 4]))),
                ])))
        // AIFF-C 'ima4': COMM (18 bytes + compression type and an empty name), SSND of one packet.
        var aiff = ByteWriter()
        var comm = ByteWriter()
        comm.write(UInt16(1), .big)
        comm.write(UInt32(1), .big)
        comm.write(UInt16(16), .big)
        comm.write(bytes: [0x40, 0x0E, 0xAC, 0x44, 0, 0, 0, 0, 0, 0])  // 44100 as an 80-bit float
        comm.write(bytes: Array("ima4".utf8) + [0, 0])
        let commSize = UInt32(comm.bytes.count)
        let formSize: UInt32 = 4 + 8 + commSize + 8 + 8 + 34
        aiff.write(bytes: Array("FORM".utf8))
        aiff.write(formSize, .big)
        aiff.write(bytes: Array("AIFC".utf8) + Array("COMM".utf8))
        aiff.write(commSize, .big)
        aiff.write(bytes: comm.bytes + Array("SSND".utf8))
        aiff.write(UInt32(8 + 34), .big)
        aiff.write(bytes: [UInt8](repeating: 0, count: 8 + 34))
        folder.write("in/ima4.aifc", aiff.bytes)
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        let reasons = Dictionary(uniqueKeysWithValues: report.files.map { (FileSystem.baseName($0.input), $0.reason ?? "") })
        // AAC (issue 19) and IMA4 (issue 18) sources have their own decoders now: never refused as
        // "not yet" (this AAC fixture holds 4 bytes that are no AAC packet, so it fails as broken).
        let aacResult = try #require(report.files.first { FileSystem.baseName($0.input) == "aac.caf" })
        #expect(!(aacResult.reason ?? "").contains("not converted yet"), "\(reasons)")
        #expect(aacResult.status == .converted || !exists(folder.file("out/aac.caf")))
        for name in ["ima.caf", "ima4.aifc"] {
            let file = try #require(report.files.first { FileSystem.baseName($0.input) == name })
            #expect(!(file.reason ?? "").contains("not converted yet"), "\(name): \(file.reason ?? "")")
            if file.status == .converted { #expect(file.proof?.sourceDecoder == "cafkit-ima4", "\(name)") }
        }
    }

    @Test("outputs beside their inputs, converted twice: one output per source, CAF sources never modified")
    func besideInputsTwice() throws {
        let folder = TempDirectory()
        // Every kind but the CAF sources, whose output beside them would be themselves.
        let kinds = SourceKind.all.filter { $0.major != .caf }
        try SourceFixtures.tree(folder, kinds: kinds)
        let first = Engine.convert(inputs: [folder.file("in")], output: nil, options: options)
        #expect(first.totals.converted == kinds.count && first.totals.failed == 0)
        let second = Engine.convert(inputs: [folder.file("in")], output: nil, options: options)
        #expect(
            second.totals.converted == 0 && second.totals.upToDate == kinds.count && second.totals.failed == 0,
            "\(second.files.filter { $0.status != .upToDate && $0.status != .ignored }.map { "\($0.input): \($0.status) \($0.reason ?? "")" })"
        )
        #expect(second.totals.ignored == kinds.count, "each output is ignored as an input")
        let cafs = try FileManager.default.contentsOfDirectory(atPath: folder.file("in")).filter { $0.hasSuffix(".caf") }
        #expect(cafs.count == kinds.count)

        // A CAF source beside itself: refused, never touched.
        let caf = try #require(SourceKind.all.first { $0.name == "caf-be16.caf" })
        try SourceFixtures.write(caf, to: folder.file("in/caf-be16.caf"))
        let before = readFile(folder.file("in/caf-be16.caf"))
        let third = Engine.convert(inputs: [folder.file("in")], output: nil, options: options)
        let refused = try #require(third.files.first { $0.input == folder.file("in/caf-be16.caf") })
        #expect(refused.status == .failed && refused.error == .output(.outputIsSource))
        #expect(readFile(folder.file("in/caf-be16.caf")) == before)
        #expect(third.totals.upToDate == kinds.count)
    }

    @Test("-o the input folder: outputs land beside their sources and are never taken as inputs")
    func outputIsInputFolder() throws {
        let folder = TempDirectory()
        let kinds = SourceKind.all.filter { ["riff16.wav", "aiff16.aiff", "flac16.flac"].contains($0.name) }
        try SourceFixtures.tree(folder, kinds: kinds)
        for run in 0..<2 {
            let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("in"), options: options)
            #expect(report.totals.failed == 0, "run \(run): \(report.files.map { $0.reason ?? "" })")
            #expect(report.totals.converted + report.totals.upToDate == kinds.count, "run \(run)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("in")).filter { !$0.hasPrefix(".") }
        #expect(names.count == kinds.count * 2)
    }

    @Test("two sources that map to one output (a.wav and a.aif; a.caf source beside a.wav) are a clash: nothing written")
    func clash() throws {
        let folder = TempDirectory()
        let wav = try #require(SourceKind.all.first { $0.name == "riff16.wav" })
        let aiff = try #require(SourceKind.all.first { $0.name == "aiff16.aiff" })
        let caf = try #require(SourceKind.all.first { $0.name == "caf-be16.caf" })
        folder.write("in/.keep", [])
        try SourceFixtures.write(wav, to: folder.file("in/a.wav"))
        try SourceFixtures.write(aiff, to: folder.file("in/a.aif"))
        try SourceFixtures.write(wav, to: folder.file("in/b.wav"))
        try SourceFixtures.write(caf, to: folder.file("in/b.caf"))
        let cafBefore = readFile(folder.file("in/b.caf"))
        let report = Engine.convert(inputs: [folder.file("in")], output: folder.file("out"), options: options)
        #expect(report.totals.failed == 4 && report.totals.converted == 0)
        #expect(
            report.files.allSatisfy {
                if case .output(.sameOutput) = $0.error { true } else { false }
            }, "\(report.files.map(\.reason))")
        #expect(!exists(folder.file("out/a.caf")) && !exists(folder.file("out/b.caf")))
        // Beside the inputs: b.caf would become itself and b.wav's output is the CAF source.
        let beside = Engine.convert(inputs: [folder.file("in")], output: nil, options: options)
        #expect(beside.totals.failed == 4 && beside.totals.converted == 0)
        #expect(readFile(folder.file("in/b.caf")) == cafBefore)
    }

    @Test("--include and --exclude narrow folder inputs; what is left out is reported as ignored")
    func includeExclude() throws {
        let folder = TempDirectory()
        let wav = try #require(SourceKind.all.first { $0.name == "riff16.wav" })
        for name in ["ui/click.wav", "ui/old/click2.wav", "music/loop.wav", "music/take-1.wav", "Music/TAKE-2.WAV"] {
            try FileManager.default.createDirectory(
                atPath: FileSystem.directoryName(folder.file("in/" + name)), withIntermediateDirectories: true)
            try SourceFixtures.write(wav, to: folder.file("in/" + name))
        }
        folder.write("in/notes.txt", Array("not audio".utf8))
        func converted(_ include: [String], _ exclude: [String]) throws -> [String] {
            let out = TempDirectory()
            let selection = Planner.Selection(
                include: try include.map { try Glob($0) }, exclude: try exclude.map { try Glob($0) })
            let report = Engine.convert(
                inputs: [folder.file("in")], output: out.path, options: options, selection: selection)
            #expect(
                report.totals.converted + report.totals.ignored == 6,
                "every file is converted or ignored: \(report.files.map { "\($0.input): \($0.reason ?? "")" })")
            return report.files.filter { $0.status == .converted }.map { String($0.input.dropFirst(folder.file("in/").count)) }
                .sorted()
        }
        #expect(try converted(["*.wav"], []) == ["music/loop.wav", "music/take-1.wav", "ui/click.wav", "ui/old/click2.wav"])
        #expect(try converted([], ["**/old/**"]) == ["Music/TAKE-2.WAV", "music/loop.wav", "music/take-1.wav", "ui/click.wav"])
        #expect(try converted(["music/*"], []) == ["music/loop.wav", "music/take-1.wav"])
        #expect(try converted(["take-*", "click?.wav"], ["music/**"]) == ["ui/old/click2.wav"])
        #expect(try converted(["[Mm]usic/**"], ["*-[!1].*"]) == ["music/loop.wav", "music/take-1.wav"])
        let out = TempDirectory()
        let report = Engine.convert(
            inputs: [folder.file("in")], output: out.path, options: options,
            selection: Planner.Selection(exclude: [try Glob("ui/**")]))
        let reasons: [String] = report.files.filter { $0.status == .ignored }.map { $0.reason ?? "" }
        let expected: [String] = ["not an audio file name", "excluded by --exclude ui/**", "excluded by --exclude ui/**"]
        #expect(reasons == expected)
        // Everything left out: the folder converted nothing, which fails, saying why.
        let none = Engine.convert(
            inputs: [folder.file("in")], output: TempDirectory().path, options: options,
            selection: Planner.Selection(include: [try Glob("*.flac")]))
        let failure = try #require(none.files.first { $0.status == .failed })
        #expect(failure.reason?.hasSuffix("searched recursively); 5 left out by --include/--exclude") == true, "\(failure)")
    }

    @Test("glob semantics: * and ? within a name, ** across folders, classes, escapes, bad patterns")
    func globs() throws {
        func m(_ pattern: String, _ path: String) throws -> Bool { try Glob(pattern).matchesFile(path) }
        #expect(try m("*.wav", "a/b/c.wav"))
        #expect(try !m("*.wav", "a/b/c.wave"))
        #expect(try m("a/*.wav", "a/c.wav"))
        #expect(try !m("a/*.wav", "a/b/c.wav"))
        #expect(try m("a/**/c.wav", "a/c.wav"))
        #expect(try m("a/**/c.wav", "a/x/y/c.wav"))
        #expect(try m("**", "a/x/y/c.wav"))
        #expect(try m("a/**", "a/x/c.wav"))
        #expect(try !m("a/**", "b/a/c.wav"))
        #expect(try m("./a/?.wav", "a/c.wav"))
        #expect(try !m("a?c.wav", "a/c.wav"))
        #expect(try m("[a-c]x.wav", "bx.wav"))
        #expect(try !m("[!a-c]x.wav", "bx.wav"))
        #expect(try m("[]]x", "]x"))
        #expect(try m("\\*.wav", "*.wav"))
        #expect(try !m("\\*.wav", "a.wav"))
        #expect(try !m("*.WAV", "a.wav"), "case-sensitive")
        #expect(try m(String(repeating: "*a", count: 30) + "b", String(repeating: "a", count: 60) + "b"))
        #expect(try !m(String(repeating: "*a", count: 30) + "b", String(repeating: "a", count: 200)))
        #expect(throws: RuleError.self) { try Glob("[abc") }
        #expect(throws: RuleError.self) { try Glob("") }
    }

    @Test("what is not audio is refused naming what it starts with; a broken header names its container")
    func notAudio() throws {
        let folder = TempDirectory()
        let text = folder.write("in/a.mp3", Array("hello, not audio at all".utf8))
        let short = folder.write("in/b.flac", [0x66, 0x4C])
        let report = Engine.convert(inputs: [text, short], output: folder.file("out"), options: options)
        #expect(
            report.files[0].reason?.hasPrefix("not audio cafconv can read (starts with 'hell')") == true, "\(report.files[0])")
        #expect(report.files[1].reason?.hasPrefix("not audio cafconv can read (only 2 bytes)") == true, "\(report.files[1])")
        #expect(report.files.allSatisfy { $0.code == .notAudio })
    }

    @Test(
        "the real AIFF and CAF files: converted with the oracle's frames and verified, or refused saying why",
        .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func realAIFFAndCAF() throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let oracle = try RepositoryPaths.oracle()
        let names = oracle.filter { ["aiff", "caf"].contains($0.value["container"] as? String) }.keys.sorted()
        #expect(names.count >= 20)
        var converted = 0
        for name in names {
            let folder = TempDirectory()
            let report = Engine.convert(inputs: [corpus + "/" + name], output: folder.file("out.caf"), options: options)
            let file = try #require(report.files.first)
            let format = oracle[name]?["format"] as? String ?? ""
            if format == "ima4" {
                // cafconv's own IMA4 decoder (issue 18): the pakt's valid frames, to LEI16.
                #expect(file.status == .converted, "\(name): \(file.reason ?? "")")
                #expect(file.frames == (oracle[name]?["frames"] as? Int).map(Int64.init), "\(name)")
                #expect(file.proof?.sourceDecoder == "cafkit-ima4", "\(name)")
                continue
            }
            if ["aac", "aacl"].contains(format) {
                // libavcodec's decoder through cafconv's demuxing (issue 19): the pakt's valid frames.
                #expect(file.status == .converted, "\(name): \(file.reason ?? "")")
                #expect(file.frames == (oracle[name]?["frames"] as? Int).map(Int64.init), "\(name)")
                continue
            }
            if format == "opus" {
                // libopus through CAFKit's packets (issue 31): the pakt's valid frames; ffmpeg's
                // layout (priming 0) is read with the warning that its frame count is not to be trusted.
                #expect(file.status == .converted, "\(name): \(file.reason ?? "")")
                let caf = try CAFFile(reading: try FileByteSource(path: corpus + "/" + name))
                #expect(file.frames == caf.packetTableHeader?.numberValidFrames, "\(name)")
                #expect(file.proof?.sourceDecoder.hasPrefix("libopus") == true, "\(name)")
                if caf.packetTableHeader?.primingFrames == 0 {
                    #expect(file.warnings.contains { if case .source(.opusFrameCountUntrusted) = $0 { true } else { false } }, "\(name)")
                }
                continue
            }
            #expect(file.status == .converted, "\(name): \(file.reason ?? "")")
            #expect(file.frames == (oracle[name]?["frames"] as? Int).map(Int64.init), "\(name)")
            #expect(file.proof?.sourceDecoder == "cafconv", "\(name)")
            let verified = Verifier.verify(
                paths: [folder.file("out.caf")], options: VerifyOptions(against: corpus + "/" + name))
            #expect(verified.files.first?.status == .passed, "\(name): \(verified.files.first?.failures ?? [])")
            if name == "Borewit_music-metadata__Porder.aif" {
                #expect(file.warnings.contains { $0.message.contains("6 frames more than the 9 'COMM' declares") }, "\(file.warnings)")
            }
            converted += 1
        }
        #expect(converted >= 14)
    }
}

import BinaryIO
import Foundation
import TestSupport
import Testing

/// What `file(1)` with `share/magic/caf` and `cafconv info --brief` must agree on.
struct AudioFacts: Equatable, CustomStringConvertible {
    /// cafconv's words for the format: "16-bit signed integer", "IMA 4:1 ADPCM", "µ-law"...
    var format: String
    /// "little-endian", "big-endian", or nil.
    var byteOrder: String?
    /// "mono", "stereo", "6 channels".
    var channels: String?
    /// "44100 Hz".
    var rate: String?

    var description: String { [format, byteOrder ?? "-", channels ?? "-", rate ?? "-"].joined(separator: " | ") }

    /// The parts after the format, picked by their shape.
    init(format: String, rest: [Substring]) {
        self.format = format
        for part in rest {
            let part = String(part)
            if part == "little-endian" || part == "big-endian" {
                byteOrder = byteOrder ?? part
            } else if part == "mono" || part == "stereo" || part.hasSuffix(" channels") {
                channels = channels ?? part
            } else if part.hasSuffix(" Hz") {
                rate = rate ?? part
            }
        }
    }

    /// The names the magic gives formats other than linear PCM, in cafconv's words.
    static let magicNames: [String: String] = [
        "IMA4 ADPCM": "IMA 4:1 ADPCM", "AAC": "AAC", "AAC-LD": "AAC-LD", "Apple Lossless": "Apple Lossless",
        "ITU G.711 mu-law": "µ-law", "ITU G.711 A-law": "A-law", "Opus": "Opus",
    ]

    /// Parses `file -b` output; nil when it does not describe a CAF's contents.
    init?(file line: String) {
        let prefix = "CoreAudio Format audio file version 1, "
        guard line.hasPrefix(prefix) else { return nil }
        let parts = line.dropFirst(prefix.count).split(separator: ", ", omittingEmptySubsequences: false)
        guard let first = parts.first else { return nil }
        var format = String(first)
        if format.hasSuffix(" PCM") {
            format.removeLast(4)
        } else {
            format = Self.magicNames[format] ?? "unknown to this test: \(format)"
        }
        self.init(format: format, rest: parts.dropFirst().map { $0 })
    }

    /// Parses the part of a `cafconv info --brief` line after "path: "; nil when it is not CAF.
    init?(brief line: String) {
        let prefix = "CAF audio, "
        guard line.hasPrefix(prefix) else { return nil }
        let parts = line.dropFirst(prefix.count).split(separator: ", ")
        guard let first = parts.first else { return nil }
        self.init(format: String(first), rest: parts.dropFirst().map { $0 })
    }
}

@Suite(
    "file(1) describes CAF with share/magic/caf as cafconv info does",
    .enabled(if: which("file") != nil, "file(1) is not installed: skipping the magic fragment tests"))
struct MagicTests {
    static let magic = RepositoryPaths.root + "/share/magic/caf"

    /// `file -b -m share/magic/caf` of each path, in order (the fragment alone).
    func file(_ paths: [String], _ options: [String] = []) throws -> [String] {
        let result = try run(try #require(which("file")), ["-b", "-m", Self.magic] + options + paths)
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        try #require(lines.count == paths.count, "file printed \(lines.count) lines for \(paths.count) files")
        return lines
    }

    /// `cafconv info --brief` of each path, without the "path: " prefix, in order.
    func brief(_ paths: [String]) throws -> [String] {
        let result = try run(RepositoryPaths.executable, ["info", "--brief"] + paths)
        let lines = result.text.split(separator: "\n").map(String.init)
        try #require(lines.count == paths.count, "cafconv info printed \(lines.count) lines for \(paths.count) files")
        return zip(paths, lines).map { path, line in
            line.hasPrefix(path + ": ") ? String(line.dropFirst(path.count + 2)) : line
        }
    }

    /// Checks every path: a CAF's `file` line must carry cafconv's format, byte order, channels
    /// and rate; anything cafconv does not call CAF must not be described as one. Returns the facts.
    @discardableResult
    func expectAgreement(_ paths: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: AudioFacts] {
        var facts: [String: AudioFacts] = [:]
        for (path, (described, info)) in zip(paths, zip(try file(paths), try brief(paths))) {
            guard let expected = AudioFacts(brief: info) else {
                #expect(
                    !described.contains("CoreAudio"), "\(path): \(described), but cafconv says \(info)",
                    sourceLocation: sourceLocation)
                continue
            }
            let found = AudioFacts(file: described)
            #expect(found == expected, "\(path): file says \(described); cafconv says \(info)", sourceLocation: sourceLocation)
            facts[path] = found
        }
        return facts
    }

    @Test(
        "every CAF of the real corpus", .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
    func realCorpus() throws {
        let folder = try #require(RepositoryPaths.realCorpus)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.lowercased().hasSuffix(".caf") }
            .sorted()
        #expect(names.count >= 19)
        let facts = try expectAgreement(names.map { folder + "/" + $0 })
        // The corpus holds linear PCM of both byte orders, IMA4, AAC, AAC-LD and Opus: all spelled out.
        #expect(
            Set(facts.values.map(\.format)).isSuperset(of: ["16-bit signed integer", "IMA 4:1 ADPCM", "AAC", "AAC-LD", "Opus"]))
        #expect(Set(facts.values.compactMap(\.byteOrder)) == ["little-endian", "big-endian"])
    }

    static let formats = [
        "I8", "LEI16", "BEI16", "LEI24", "BEI24", "LEI32", "BEI32", "LEF32", "BEF32", "LEF64", "BEF64", "ulaw", "alaw", "alac",
    ]
    static let rates = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176400, 192000]

    @Test("every format cafconv writes, both byte orders, 1, 2 and 6 channels, 8000-192000 Hz")
    func generated() throws {
        let folder = TempDirectory()
        var sources: [(name: String, channels: Int, rate: Int)] = []
        for channels in [1, 2, 6] {
            for rate in Self.rates {
                let name = "c\(channels)-r\(rate)"
                // A quiet ramp: every encoder, ALAC included, takes it.
                let samples = (0..<64 * channels).map { Int32($0 % 201 - 100) }
                folder.write(
                    "src/\(name).wav",
                    WAVFixture(encoding: .int16, channels: channels, sampleRate: rate, integers: samples).bytes)
                sources.append((name, channels, rate))
            }
        }
        var paths: [String] = []
        var expected: [String: AudioFacts] = [:]
        for format in Self.formats {
            let result = try run(
                RepositoryPaths.executable, ["convert", "-q", "-d", format, folder.file("src"), "-o", folder.file(format)])
            try #require(result.status == 0, "convert -d \(format): \(result.stderr)")
            for source in sources {
                let path = folder.file("\(format)/\(source.name).caf")
                paths.append(path)
                let order = format.hasPrefix("LE") ? "little-endian" : format.hasPrefix("BE") ? "big-endian" : nil
                let words: String
                switch format {
                case "ulaw": words = "µ-law"
                case "alaw": words = "A-law"
                case "alac": words = "Apple Lossless"
                default:
                    let bits = format.drop { !$0.isNumber }
                    words = "\(bits)-bit " + (format.contains("F") ? "floating point" : "signed integer")
                }
                let channels = source.channels == 1 ? "mono" : source.channels == 2 ? "stereo" : "\(source.channels) channels"
                expected[path] = AudioFacts(
                    format: words, rest: [order, channels, "\(source.rate) Hz"].compactMap { $0 }.map { Substring($0) })
            }
        }
        let facts = try expectAgreement(paths)
        // And against what was asked for, not only against cafconv's reading.
        for path in paths { #expect(facts[path] == expected[path], "\(path)") }
        #expect(try file([paths[0]], ["--mime-type"]) == ["audio/x-caf"])
    }

    /// A CAF header, then chunks (type, body) with 64-bit big-endian sizes.
    static func caf(version: UInt16 = 1, _ chunks: [(String, [UInt8])]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(bytes: Array("caff".utf8))
        writer.write(version, .big)
        writer.write(UInt16(0), .big)
        for (type, body) in chunks {
            writer.write(bytes: Array(type.utf8))
            writer.write(Int64(body.count), .big)
            writer.write(bytes: body)
        }
        return writer.bytes
    }

    /// A `desc` body: 16-bit little-endian stereo 44100 Hz linear PCM unless told otherwise.
    static func desc(format: String = "lpcm", flags: UInt32 = 2, channels: UInt32 = 2, rate: Double = 44100) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(rate, .big)
        writer.write(bytes: Array(format.utf8))
        for value in [flags, 2 * channels, 1, channels, 16] { writer.write(value, .big) }
        return writer.bytes
    }

    @Test("a CAF whose first chunk is not a 32-byte desc, or of another version, is only named")
    func notMisdescribed() throws {
        let folder = TempDirectory()
        let data: (String, [UInt8]) = ("data", [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8))
        let named = "CoreAudio Format audio file version 1"
        let cases: [(String, [UInt8], String)] = [
            (
                "reference", Self.caf([("desc", Self.desc()), data]),
                named + ", 16-bit signed integer PCM, little-endian, stereo, 44100 Hz"
            ),
            ("free-first", Self.caf([("free", [0, 0, 0, 0]), ("desc", Self.desc()), data]), named),
            ("data-first", Self.caf([data, ("desc", Self.desc())]), named),
            // A 32-byte chunk that looks like a description but is not one.
            ("lookalike-first", Self.caf([("uuid", Self.desc()), ("desc", Self.desc()), data]), named),
            ("long-desc", Self.caf([("desc", Self.desc() + [0, 0, 0, 0, 0, 0, 0, 0]), data]), named),
            ("cut-in-format", Array(Self.caf([("desc", Self.desc())]).prefix(30)), named),
            ("cut-in-bits", Array(Self.caf([("desc", Self.desc())]).prefix(50)), named),
            ("version-2", Self.caf(version: 2, [("desc", Self.desc()), data]), "CoreAudio Format audio file version 2"),
            (
                "unknown-format", Self.caf([("desc", Self.desc(format: "zzzz", flags: 0, channels: 1)), data]),
                named + ", 'zzzz', mono, 44100 Hz"
            ),
            // Rates of a million or more are printed whole, as cafconv info prints them, not as 2.8224e+06.
            (
                "rate-2822400", Self.caf([("desc", Self.desc(rate: 2_822_400)), data]),
                named + ", 16-bit signed integer PCM, little-endian, stereo, 2822400 Hz"
            ),
            (
                "rate-22050.5", Self.caf([("desc", Self.desc(rate: 22050.5)), data]),
                named + ", 16-bit signed integer PCM, little-endian, stereo, 22050.5 Hz"
            ),
            (
                "rate-1e300", Self.caf([("desc", Self.desc(rate: 1e300)), data]),
                named + ", 16-bit signed integer PCM, little-endian, stereo, 1e+300 Hz"
            ),
        ]
        for (name, bytes, description) in cases {
            #expect(try file([folder.write(name + ".caf", bytes)]) == [description], "\(name)")
        }
    }
}

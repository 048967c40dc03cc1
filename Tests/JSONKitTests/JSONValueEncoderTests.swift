import Conversion
import ConversionModel
import Foundation
import IncrementalState
import Inspection
import JSONKit
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

/// The encoder against Foundation's `JSONEncoder`, which the CLI used before: the same bytes for
/// the reports the CLI prints and for awkward values.
@Suite("JSONValueEncoder")
struct JSONValueEncoderTests {
    /// What the CLI used to print.
    static func foundation(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    struct Everything: Codable, Equatable {
        struct Inner: Codable, Equatable {
            var name: String
            var values: [Double]
        }
        enum Kind: String, Codable { case one, two }

        var bool = true
        var int = -3
        var int8: Int8 = -8
        var int16: Int16 = 16
        var int32: Int32 = -32
        var int64 = Int64.min
        var uint = UInt.max
        var uint8: UInt8 = 8
        var uint16: UInt16 = 16
        var uint32: UInt32 = 32
        var uint64 = UInt64.max
        var float: Float = 0.1
        var double = 1e-7
        var string = "tab\there \"quoted\" C:\\path/slash é"
        var optionalPresent: String? = "here"
        var optionalAbsent: String? = nil
        var kind = Kind.two
        var inners = [Inner(name: "a", values: [1, 2.5, -0.0]), Inner(name: "", values: [])]
        var dictionary = ["z": 1, "a": 2, "M": 3]
        var nested: [[Int]] = [[], [1], [2, 3]]
        var empty: [String] = []
    }

    @Test("every primitive, optionals, enums, nesting and dictionaries: the bytes of JSONEncoder")
    func everything() throws {
        let value = Everything()
        let text = try JSONValueEncoder().text(value)
        #expect(text == (try Self.foundation(value)))
        let back = try JSONDecoder().decode(Everything.self, from: Data(text.utf8))
        #expect(back == value)
    }

    /// Writes `null` for nil the way `AudioFileInfo.encode(to:)` does with `encode` rather than
    /// `encodeIfPresent`, and uses nested and super containers.
    struct Manual: Encodable {
        enum Keys: String, CodingKey { case explicitNull, absent, nested, list, parent }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(String?.none, forKey: .explicitNull)
            try container.encodeIfPresent(Int?.none, forKey: .absent)
            try container.encodeNil(forKey: .absent)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try nested.encode(1.5, forKey: .list)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encodeNil()
            try list.encode("x")
            var inner = list.nestedContainer(keyedBy: Keys.self)
            try inner.encode(true, forKey: .absent)
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encode(2)
            try "parent".encode(to: container.superEncoder(forKey: .parent))
        }
    }

    @Test("explicit nulls, nested keyed and unkeyed containers, super encoders")
    func containers() throws {
        #expect(try JSONValueEncoder().text(Manual()) == (try Self.foundation(Manual())))
        let tree = try JSONValueEncoder().encode(Manual())
        guard case .object(let members) = tree else {
            Issue.record("not an object: \(tree)")
            return
        }
        #expect(members["explicitNull"] == .null)
        #expect(members["absent"] == .null)
    }

    @Test("random strings: the same escaping as JSONEncoder")
    func randomStrings() throws {
        var generator = SplitMix64(seed: 7)
        let pool: [Unicode.Scalar] = (0..<0x80).compactMap(Unicode.Scalar.init) + ["é", "µ", "😀", "\u{2028}", "\u{FEFF}"]
        for _ in 0..<500 {
            let length = Int(generator.next() % 24)
            var text = ""
            for _ in 0..<length { text.unicodeScalars.append(pool[Int(generator.next() % UInt64(pool.count))]) }
            #expect(try JSONValueEncoder().text([text]) == (try Self.foundation([text])), "\(Array(text.unicodeScalars))")
        }
    }

    @Test("random doubles: the same text as JSONEncoder")
    func randomDoubles() throws {
        var generator = SplitMix64(seed: 11)
        var values: [Double] = [0, 1, -1, 1e15, 1e16, 123456789012345680, 0.001, 1e-5]
        for _ in 0..<2000 {
            let value = Double(bitPattern: generator.next())
            if value.isFinite { values.append(value) }
            values.append(Double(Int64(bitPattern: generator.next()) % 10_000_000) / 1000)
        }
        #expect(try JSONValueEncoder().text(values) == (try Self.foundation(values)))
    }

    @Test("non-finite doubles become null (JSONEncoder throws instead)")
    func nonFinite() throws {
        #expect(try JSONValueEncoder().text(["a": Double.nan]) == "{\n  \"a\" : null\n}")
    }

    @Test("the CLI's reports: info over Samples/, verify and a conversion report")
    func reports() throws {
        let samples = RepositoryPaths.root + "/Samples"
        var paths = [samples + "/ui/click-mono-16bit-22050.wav", samples + "/retro/coin-mono-8bit-22050.wav", "/nonexistent"]
        if let real = RepositoryPaths.realCorpus {
            let names = try FileManager.default.contentsOfDirectory(atPath: real).sorted()
            paths += names.filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".md") }.map { real + "/" + $0 }
        }
        let infos = paths.map { Inspector.inspect(path: $0) }
        #expect(try JSONValueEncoder().text(infos) == (try Self.foundation(infos)))

        let verify = Verifier.verify(paths: paths, options: VerifyOptions(sampleRate: 44100))
        #expect(try JSONValueEncoder().text(verify) == (try Self.foundation(verify)))

        var converted = FileResult(
            input: "in/a.wav", output: "out/a.caf", status: .converted, warnings: [.text("odd\nsize")], formatIn: "LEI16",
            formatOut: "BEF32", channels: 2, sampleRate: 44100, frames: 1000, bytes: 8192, milliseconds: 1.25)
        converted.samples = .byteSwapped
        var report = ConversionReport(
            files: [converted, .failed("in/b.wav", error: .source(.empty))], milliseconds: 3.5)
        report.interrupted = true
        #expect(try JSONValueEncoder().text(report) == (try Self.foundation(report)))
    }
}

import BinaryIO
import Foundation
import TestSupport
import Testing

@testable import CAFKit

/// The real-world files of `../shared/corpus/real`, checked against its independent `ORACLE.json`.
@Suite("Real-world corpus")
struct CorpusTests {
    struct Entry: Sendable, CustomTestStringConvertible {
        let name: String
        let oracle: [String: JSONValue]
        var testDescription: String { name }
        subscript(key: String) -> JSONValue? { oracle[key] }
    }

    static let folder = RepositoryPaths.realCorpus ?? "../shared/corpus/real"
    static let present = RepositoryPaths.realCorpus != nil

    /// Every ORACLE entry whose file name ends in `.caf` or whose container is `caf`.
    static let entries: [Entry] = {
        guard let json = try? RepositoryPaths.oracle() else { return [] }
        return json.keys.sorted().compactMap { name in
            guard let value = json[name], name.hasSuffix(".caf") || value["container"] as? String == "caf" else { return nil }
            return Entry(name: name, oracle: value.mapValues(JSONValue.init))
        }
    }()

    static var cafEntries: [Entry] { entries.filter { $0.string("container") == "caf" } }

    @Test("the corpus holds CAF and AIFF files", .enabled(if: present, "../shared/corpus/real is absent"))
    func corpusPresent() {
        #expect(Self.cafEntries.count >= 15)
        #expect(Self.entries.contains { $0.string("container") == "aiff" })
    }

    @Test("header fields, frames and chunk layout agree with ORACLE.json", .enabled(if: present), arguments: cafEntries)
    func agreesWithOracle(entry: Entry) throws {
        let source = try FileByteSource(path: Self.folder + "/" + entry.name)
        let file = try CAFFile(reading: source)
        let desc = file.audioDescription
        #expect(desc.formatID.trimmed == entry.string("format"))
        #expect(desc.sampleRate == entry.double("sample_rate"))
        #expect(Int(desc.channelsPerFrame) == entry.int("channels"))
        if desc.isLinearPCM {
            #expect(Int(desc.bitsPerChannel) == entry.int("bits_per_channel"))
            #expect(desc.isFloat == entry.bool("float"))
            #expect(desc.byteOrder?.rawValue == entry.string("endianness"))
        } else {
            #expect(desc.byteOrder == nil)
        }
        #expect(file.validFrames.map(Int.init) == entry.int("frames"))
        let layout = entry["chunk_layout"]?.array ?? []
        let expected = layout.map { item -> String in
            let parts = item.array ?? []
            return "\(parts.first?.string ?? "?") \(parts.dropFirst().first?.int ?? -1) \(parts.dropFirst(2).first?.int ?? -1)"
        }
        #expect(file.chunks.map { "\($0.type) \($0.offset) \($0.declaredSize)" } == expected)
        #expect(!expected.isEmpty)

        let notes = (entry["notes"]?.array ?? []).compactMap(\.string)
        if notes.contains(where: { $0.hasPrefix("MALFORMED") && $0.contains("edit-count") }) {
            #expect(file.warnings.contains { $0.message.contains("leave out the 4-byte edit count") })
        } else {
            #expect(file.warnings.isEmpty, "\(file.warnings)")
        }

        // Typed chunks agree with the oracle's header fields.
        let document = try CAFDocument(reading: source)
        let header = entry["header"]?.object ?? [:]
        #expect(document.contents.audioData?.editCount == header["edit_count"]?.int.map(UInt32.init))
        if let pakt = header["pakt"]?.object {
            let table = try #require(document.contents.packetTable)
            #expect(table.header.numberPackets == pakt["packets"]?.int.map(Int64.init))
            #expect(table.header.numberValidFrames == pakt["valid_frames"]?.int.map(Int64.init))
            #expect(Int(table.header.primingFrames) == pakt["priming"]?.int)
            #expect(Int(table.header.remainderFrames) == pakt["remainder"]?.int)
            if desc.bytesPerPacket == 0 {
                #expect(table.entries.count == Int(table.header.numberPackets))
                #expect(table.totalByteSize == file.audioBytes)
            }
        } else {
            #expect(document.contents.packetTable == nil)
        }
        if let info = header["info"]?.object {
            let strings = try #require(document.contents.infoStrings)
            #expect(Int(strings.declaredCount) == info["entries"]?.int)
            #expect(strings.entries.flatMap { [$0.key, $0.value] } == (info["kv"]?.array ?? []).compactMap(\.string))
        }
        if let chan = header["chan"]?.object {
            let layout = try #require(document.contents.channelLayout)
            #expect(Int(layout.tag) == chan["layout_tag"]?.int && Int(layout.bitmap) == chan["bitmap"]?.int)
            #expect(Int(layout.declaredCount) == chan["num_descriptions"]?.int)
        }
        #expect(!document.contents.chunks.contains { if case .unknown = $0 { return true } else { return false } })
    }

    @Test("parse then write gives back every valid real CAF file byte for byte", .enabled(if: present), arguments: cafEntries)
    func byteIdenticalRewrite(entry: Entry) throws {
        let path = Self.folder + "/" + entry.name
        let original = try #require(FileManager.default.contents(atPath: path)).map { $0 }
        let source = try FileByteSource(path: path)
        let streamed = try CAFDocument(reading: source)
        #expect(try CAFWriter.bytes(of: streamed.contents, copyingFrom: source) == original)
        let loaded = try CAFDocument(reading: MemoryByteSource(original), loadingAudio: true)
        #expect(try CAFWriter.bytes(of: loaded.contents) == original)
    }

    @Test("the validator finds only the known malformation in real files", .enabled(if: present), arguments: cafEntries)
    func validatorOnRealFiles(entry: Entry) throws {
        let document = try CAFDocument(reading: try FileByteSource(path: Self.folder + "/" + entry.name))
        let rules = CAFValidator.validate(document).map(\.code)
        let notes = (entry["notes"]?.array ?? []).compactMap(\.string)
        if notes.contains(where: { $0.hasPrefix("MALFORMED") }) {
            #expect(rules == ["file-ends-with-chunk"])
        } else if entry["format"]?.string == "opus", notes.contains(where: { $0.hasPrefix("Written by FFmpeg") }) {
            // ffmpeg's Opus CAF: priming 0, valid frames = packets x 960 (docs/opus.md).
            #expect(rules == ["opus-priming"])
        } else {
            #expect(rules == [], "\(CAFValidator.validate(document))")
        }
    }

    @Test("a file named .caf that is really AIFF is rejected as not CAF", .enabled(if: present))
    func aiffNamedCAF() throws {
        let source = try FileByteSource(path: Self.folder + "/xingskycn_DataType__recording.caf")
        #expect(Self.entries.first { $0.name == "xingskycn_DataType__recording.caf" }?.string("container") == "aiff")
        do {
            _ = try CAFFile(reading: source)
            Issue.record("an AIFF file was read as CAF")
        } catch {
            #expect(error.kind == .notCAF(found: FourCC("FORM")))
        }
    }
}

/// A Sendable copy of a JSONSerialization value.
enum JSONValue: Sendable {
    case string(String), number(Double), array([JSONValue]), object([String: JSONValue]), null

    init(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case let number as NSNumber: self = .number(number.doubleValue)  // true and false come as 1 and 0
        case let items as [Any]: self = .array(items.map(JSONValue.init))
        case let fields as [String: Any]: self = .object(fields.mapValues(JSONValue.init))
        default: self = .null
        }
    }

    var string: String? { if case .string(let text) = self { return text } else { return nil } }
    var double: Double? { if case .number(let value) = self { return value } else { return nil } }
    var int: Int? { double.flatMap { Int(exactly: $0) } }
    var bool: Bool? { double.map { $0 != 0 } }
    var array: [JSONValue]? { if case .array(let items) = self { return items } else { return nil } }
    var object: [String: JSONValue]? { if case .object(let fields) = self { return fields } else { return nil } }
}

extension CorpusTests.Entry {
    func string(_ key: String) -> String? { oracle[key]?.string }
    func double(_ key: String) -> Double? { oracle[key]?.double }
    func int(_ key: String) -> Int? { oracle[key]?.int }
    func bool(_ key: String) -> Bool? { oracle[key]?.bool }
}

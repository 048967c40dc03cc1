import BinaryIO
import Foundation
import TestSupport
import Testing
import WAVEKit

/// `../shared/corpus/real/` beside the repository root.
private let corpusPath = RepositoryPaths.realCorpus ?? "../shared/corpus/real"
private let corpusExists = RepositoryPaths.realCorpus != nil

/// What every reader must say about a file, whichever container it is.
private struct Seen {
    var container: String
    var format: String
    var sampleRate: Double
    var channels: Int
    var bits: Int?
    var float: Bool
    var endianness: String?
    var frames: UInt64?
    var chunks: [RIFFChunk]
    var warnings: [WAVEWarning]
    var validBits: Int?
}

private func inspect(_ path: String, container: String) throws -> Seen {
    let source = try FileByteSource(path: path)
    if container == "wav" {
        let file = try WAVEFile(reading: source)
        return Seen(
            container: file.container.isWAVE ? "wav" : "?", format: file.formatID,
            sampleRate: Double(file.format.sampleRate), channels: Int(file.format.channels),
            bits: file.bitsPerChannel, float: file.isFloat, endianness: file.sampleByteOrder?.rawValue,
            frames: file.frames, chunks: file.chunks, warnings: file.warnings,
            validBits: file.format.validBitsPerSample.map(Int.init))
    }
    let file = try AIFFFile(reading: source)
    return Seen(
        container: file.container == .aiff || file.container == .aifc ? "aiff" : "?", format: file.formatID,
        sampleRate: file.sampleRate, channels: file.channels, bits: file.bitsPerChannel, float: file.isFloat,
        endianness: file.byteOrder?.rawValue, frames: file.frames, chunks: file.chunks, warnings: file.warnings)
}

@Suite struct CorpusTests {
    @Test(.enabled(if: corpusExists, "the real-world corpus ../shared/corpus/real/ is absent; skipped"))
    func everyWAVAndAIFFMatchesTheOracle() throws {
        let oracle = try RepositoryPaths.oracle()
        try #require(!oracle.isEmpty)
        var checked = 0
        for name in oracle.keys.sorted() {
            let entry = try #require(oracle[name])
            let container = entry["container"] as? String ?? ""
            guard container == "wav" || container == "aiff" else { continue }
            checked += 1
            let seen: Seen
            do {
                seen = try inspect(corpusPath + "/" + name, container: container)
            } catch {
                Issue.record("\(name): \(error)")
                continue
            }
            #expect(seen.container == container, "\(name)")
            #expect(seen.format == entry["format"] as? String, "\(name)")
            #expect(seen.sampleRate == (entry["sample_rate"] as? NSNumber)?.doubleValue, "\(name)")
            #expect(seen.channels == (entry["channels"] as? NSNumber)?.intValue, "\(name)")
            #expect(seen.bits == (entry["bits_per_channel"] as? NSNumber)?.intValue, "\(name)")
            #expect(seen.float == (entry["float"] as? Bool), "\(name)")
            #expect(seen.endianness == entry["endianness"] as? String, "\(name)")
            #expect(seen.frames == (entry["frames"] as? NSNumber)?.uint64Value, "\(name)")
            if let valid = entry["valid_bits_per_sample"] as? NSNumber {
                #expect(seen.validBits == valid.intValue, "\(name)")
            }
            #expect(seen.chunks.map(\.type.description) == entry["chunks"] as? [String], "\(name)")
            let layout = (entry["chunk_layout"] as? [[Any]] ?? []).map { row in
                "\(row.first as? String ?? "?") \((row.dropFirst().first as? NSNumber)?.uint64Value ?? 0) \((row.last as? NSNumber)?.uint64Value ?? 0)"
            }
            #expect(seen.chunks.map { "\($0.type) \($0.offset) \($0.declaredSize)" } == layout, "\(name)")

            let notes = entry["notes"] as? [String] ?? []
            let messages = seen.warnings.map(\.message)
            func warned(_ words: String...) -> Bool { messages.contains { m in words.allSatisfy { m.contains($0) } } }
            for note in notes where note.contains("MALFORMED") {
                if note.contains("cbSize") {
                    #expect(warned("cbSize"), "\(name): \(messages)")
                } else if note.contains("data chunk declares") {
                    #expect(warned("'data' chunk declares", "clamped"), "\(name): \(messages)")
                } else if note.contains("pad byte") {
                    #expect(warned("no pad byte"), "\(name): \(messages)")
                } else {
                    #expect(!messages.isEmpty, "\(name): \(note)")
                }
            }
            for note in notes where note.contains("chunk-walk issues") && note.contains("RIFF size") {
                #expect(warned("RIFF size"), "\(name): \(messages)")
            }
            if !notes.contains(where: { $0.contains("MALFORMED") || $0.contains("chunk-walk issues") }) {
                #expect(messages.isEmpty, "\(name): \(messages)")
            }
        }
        #expect(checked >= 20, "expected the corpus's WAV and AIFF files, found \(checked)")
    }
}

import Conversion
import ConversionModel
import IncrementalState
import Inspection
import OutputFiles
import Rules
import TestSupport
import Testing
import Transcoding
import Verification

/// `cafconv info` agrees with ORACLE.json on all 40 real files.
@Suite("Inspector on the real corpus", .enabled(if: RepositoryPaths.realCorpus != nil, "../shared/corpus/real is absent"))
struct InspectionTests {
    /// Files whose oracle notes describe a rule the CAF validator must report as the file's error.
    static let invalid: Set<String> = [
        "ooper-shlab_AVAEGamingExample-Swift__bounce.caf", "ooper-shlab_AVAEGamingExample-Swift__launchSound.caf",
        // ffmpeg's Opus CAF: its pakt drops the pre-skip (opus-priming, docs/opus.md).
        "kunstmusik_decodeAudioDataTest__test.caf",
    ]

    @Test("container, format, rate, channels, frames, bits and chunks of all 40 files")
    func allFiles() throws {
        let corpus = try #require(RepositoryPaths.realCorpus)
        let oracle = try RepositoryPaths.oracle()
        #expect(oracle.count == 40)
        for (name, expected) in oracle.sorted(by: { $0.key < $1.key }) {
            let info = Inspector.inspect(path: corpus + "/" + name)
            let label = Comment(rawValue: name)
            #expect(info.container == expected["container"] as? String, label)
            #expect(info.format == expected["format"] as? String, label)
            #expect(info.sampleRate == expected["sample_rate"] as? Double, label)
            #expect(info.channels == expected["channels"] as? Int, label)
            #expect(info.frames.map(Int.init) == expected["frames"] as? Int, label)
            #expect(info.chunks.map(\.type) == (expected["chunks"] as? [String])?.map(trimmed), label)
            if let layout = expected["chunk_layout"] as? [[Any]] {
                let offsets = layout.compactMap { $0.count > 1 ? $0[1] as? Int : nil }
                #expect(info.chunks.map { Int($0.offset) } == offsets, label)
            }
            if (expected["format"] as? String) == "lpcm", let bits = expected["bits_per_channel"] as? Int {
                #expect(info.bitsPerChannel == bits, label)
                #expect(info.isFloat == expected["float"] as? Bool, label)
                #expect(info.byteOrder == expected["endianness"] as? String, label)
            }
            let malformed = ((expected["notes"] as? [String]) ?? []).contains { $0.hasPrefix("MALFORMED") }
            if malformed { #expect(!info.warnings.isEmpty, "\(name): the oracle calls it malformed") }
            #expect((info.error != nil) == Self.invalid.contains(name), "\(name): \(info.error ?? "valid")")
        }
    }

    func trimmed(_ text: String) -> String {
        var text = text
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    @Test("empty, text and missing files are errors, not crashes")
    func unreadable() {
        let folder = TempDirectory()
        let empty = folder.write("empty.caf", [])
        let text = folder.write("text.caf", Array("hello there, not audio".utf8))
        #expect(Inspector.inspect(path: empty).error == "empty file (0 bytes)")
        #expect(Inspector.inspect(path: text).error == "not a CAF, WAV or AIFF file")
        #expect(Inspector.inspect(path: folder.file("missing.caf")).error != nil)
        let truncated = folder.write("short.caf", Array("caff".utf8) + [0, 1, 0, 0, 0x64, 0x65])
        #expect(Inspector.inspect(path: truncated).error != nil)
    }
}

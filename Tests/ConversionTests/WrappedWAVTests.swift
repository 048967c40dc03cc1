import BinaryIO
@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

#if canImport(Glibc)
    import Glibc
#endif

/// A WAV over 4 GiB whose 32-bit 'data' size wrapped (as sox writes it), made as a sparse file:
/// 4 GiB of holes, no disk blocks. Only the source stage runs (converting would write 4 GiB).
@Suite struct WrappedWAVTests {
    @Test("the source stage reads a wrapped 'data' chunk to the end of the file with cafconv's reader")
    func wrappedSizeReadToTheEnd() throws {
        let folder = TempDirectory()
        let audio: UInt64 = (1 << 32) + 4000
        var header = Array("RIFF".utf8) + le32(UInt32(truncatingIfNeeded: audio + 36)) + Array("WAVE".utf8)
        header += Array("fmt ".utf8) + le32(16) + [1, 0, 2, 0] + le32(44100) + le32(44100 * 4) + [4, 0, 16, 0]
        header += Array("data".utf8) + le32(UInt32(truncatingIfNeeded: audio))
        let path = folder.write("big.wav", header)
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        let grown = ftruncate(descriptor, off_t(header.count) + off_t(audio))
        close(descriptor)
        try #require(grown == 0, "the file system does not take a sparse 4 GiB file")

        var warnings: [ConversionWarning] = []
        let stage = try SourceStage.open(path, warnings: &warnings)
        #expect(stage.headerFrames == Int64(audio / 4))
        #expect(stage.samples?.frames == Int64(audio / 4))
        #expect(stage.probe == nil, "libsndfile's reading is not the pump's")
        #expect(warnings.contains { $0.message.contains("wrapped") && $0.message.contains("read to the end") }, "\(warnings)")
        #expect(
            warnings.contains { if case .source(.wrappedDataSize(_, let frames)) = $0 { frames == Int64(audio / 4) } else { false } },
            "\(warnings)")
    }

    private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
}

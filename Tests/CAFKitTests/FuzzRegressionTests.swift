import BinaryIO
import Testing

@testable import CAFKit

/// Inputs found by Fuzz/CAFFuzz that once crashed; each must now be read and judged without a trap.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// lpcm 'desc' with 0x80000002 channels of 24 bits: the expected bytes per packet overflowed
    /// UInt32 in the lpcm-bytes-per-packet rule (found by libFuzzer, minimised to 68 bytes).
    static let bytesPerPacketOverflow: [UInt8] = [
        0x63, 0x61, 0x66, 0x66, 0x00, 0x01, 0x00, 0x00, 0x64, 0x65, 0x73, 0x63, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x20, 0x40, 0xE5, 0x88, 0x80, 0x00, 0x00, 0x00, 0x00, 0x6C, 0x70, 0x63, 0x6D,
        0x00, 0x00, 0x01, 0x00, 0x00, 0x08, 0x00, 0x06, 0x00, 0x00, 0x00, 0x01, 0x80, 0x00, 0x00, 0x02,
        0x00, 0x00, 0x00, 0x18, 0x64, 0x61, 0x74, 0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x51, 0xF3, 0x33,
        0x71, 0x03, 0x4A, 0xB5,
    ]

    @Test("a channel count whose bytes per packet overflow 32 bits is a diagnostic, not a trap")
    func bytesPerPacketOverflowIsADiagnostic() throws {
        let document = try read(Self.bytesPerPacketOverflow)
        #expect(document.file.audioDescription.channelsPerFrame == 0x8000_0002)
        let diagnostic = try #require(CAFValidator.validate(document).first { $0.code == "lpcm-bytes-per-packet" })
        #expect(diagnostic.expected.hasPrefix("6442450950 bytes per packet"))
        #expect(diagnostic.found == "524294")
    }
}

import Foundation
import SndFile
import Testing
import TestSupport

/// Who closes the descriptors libsndfile reads and writes: each exactly once, whatever libsndfile
/// does with them. (A second close of a number that another thread has just been given closed
/// that thread's source or temporary file under `-j`: "Is a directory", "replaced by someone else".)
@Suite("SoundFile's descriptors")
struct DescriptorTests {
    /// A CAF that libsndfile opens as CAF and refuses for its encoding (`desc` says `formatID`).
    static func caf(format: String) -> [UInt8] {
        func big<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        var desc = big(Double(48000).bitPattern)
        desc += Array(format.utf8) + big(UInt32(0)) + big(UInt32(0)) + big(UInt32(960)) + big(UInt32(1)) + big(UInt32(0))
        let audio = [UInt8](repeating: 0, count: 4) + [UInt8](repeating: 0x11, count: 400)
        return Array("caff".utf8) + big(UInt16(1)) + big(UInt16(0))
            + Array("desc".utf8) + big(Int64(desc.count)) + desc
            + Array("data".utf8) + big(Int64(audio.count)) + audio
    }

    @Test("a source libsndfile refuses for its encoding: the error, and the descriptor closed once", arguments: ["opus", "aac ", "zzzz"])
    func refusedEncoding(format: String) throws {
        let folder = TempDirectory()
        let path = folder.write("refused.caf", Self.caf(format: format))
        // libsndfile 1.2 closes the descriptor it is given when it refuses this file, even when told
        // not to; SoundFile then closed the same number again. In debug builds `Syscall.close`
        // traps on a descriptor that is not open, so the old code crashes here.
        for _ in 0..<3 {
            #expect(throws: SndFileError.self) { try SoundFile.open(readingFrom: path) }
        }
        do {
            _ = try SoundFile.open(readingFrom: path)
            Issue.record("libsndfile opened a CAF of format '\(format)'")
        } catch {
            #expect(error.message.contains("unsupported encoding"), "\(error.message)")
        }
    }
}

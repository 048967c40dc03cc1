import Foundation
import TestSupport
import Testing

/// A mono 16-bit 8000 Hz WAV of 1000 frames with one forward `smpl` loop, two `cue ` points
/// named by `labl`, and an `INAM` title.
func loopingWave() -> [UInt8] {
    func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + le32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
    }
    let fmt = chunk("fmt ", [1, 0, 1, 0] + le32(8000) + le32(16000) + [2, 0, 16, 0])
    let smpl = chunk("smpl", [0, 0, 125_000, 60, 0, 0, 0, 1, 0, 1, 0, 100, 899, 0, 0].flatMap(le32))
    let cue = chunk(
        "cue ",
        le32(2) + le32(1) + le32(100) + Array("data".utf8) + le32(0) + le32(0) + le32(100) + le32(2) + le32(700)
            + Array("data".utf8) + le32(0) + le32(0) + le32(700))
    let adtl = chunk(
        "LIST",
        Array("adtl".utf8) + chunk("labl", le32(1) + Array("Loop".utf8) + [0]) + chunk("labl", le32(2) + Array("Hit".utf8) + [0]))
    let info = chunk("LIST", Array("INFO".utf8) + chunk("INAM", Array("Theme".utf8) + [0]))
    let body = Array("WAVE".utf8) + fmt + smpl + cue + adtl + info + chunk("data", [UInt8](repeating: 1, count: 2000))
    return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
}

@Suite("Loops, markers and text, end to end")
struct MetadataEndToEndTests {
    @Test("convert carries the loop, markers and title; info --json shows them; --strip-metadata drops them")
    func endToEnd() throws {
        let folder = TempDirectory()
        let wav = folder.write("loop.wav", loopingWave())
        let caf = folder.file("loop.caf")
        let converted = try run(RepositoryPaths.executable, ["convert", "-q", wav, "-o", caf])
        try #require(converted.status == 0, "\(converted.stderr)")
        let json = try run(RepositoryPaths.executable, ["info", "--json", caf])
        let object = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]])?.first)
        let markers = try #require(object["markers"] as? [[String: Any]])
        #expect(markers.map { $0["name"] as? String } == ["Loop", "Hit", "", ""])
        #expect(markers.map { $0["type"] as? String } == ["generic", "generic", "sustain loop start", "sustain loop end"])
        #expect(markers.map { $0["frame"] as? Double } == [100, 700, 100, 899])
        let loops = try #require(object["loops"] as? [[String: Any]])
        #expect(loops.count == 1)
        #expect(loops.first?["kind"] as? String == "forward" && loops.first?["role"] as? String == "sustain")
        #expect(loops.first?["name"] as? String == "Loop")
        #expect((object["instrument"] as? [String: Any])?["baseNote"] as? Double == 60)
        #expect((object["info"] as? [[String: String]])?.first == ["key": "title", "value": "Theme"])
        let text = try run(RepositoryPaths.executable, ["info", caf])
        #expect(text.text.contains("frames 100...899, forward, sustain loop: Loop"))
        let verified = try run(RepositoryPaths.executable, ["verify", caf, "--against", wav])
        #expect(verified.status == 0, "\(verified.text)")

        let stripped = folder.file("plain.caf")
        let plain = try run(RepositoryPaths.executable, ["convert", "-q", "--strip-metadata", wav, "-o", stripped])
        try #require(plain.status == 0, "\(plain.stderr)")
        let bare = try run(RepositoryPaths.executable, ["info", "--json", stripped])
        let bareObject = try #require((try JSONSerialization.jsonObject(with: Data(bare.stdout)) as? [[String: Any]])?.first)
        #expect((bareObject["markers"] as? [Any])?.isEmpty == true && (bareObject["loops"] as? [Any])?.isEmpty == true)
        #expect((bareObject["info"] as? [Any])?.isEmpty == true && bareObject["instrument"] == nil)
        let help = try run(RepositoryPaths.executable, ["convert", "--help"])
        #expect(help.text.contains("--strip-metadata"))
    }
}

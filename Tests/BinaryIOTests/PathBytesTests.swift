import BinaryIO
import Testing

@Suite("PathBytes: file names are bytes, kept losslessly in a String")
struct PathBytesTests {
    @Test("any bytes survive decode then encode, and valid UTF-8 stays the same String")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0...24, using: &generator)
            // Bias towards the interesting bytes: continuation bytes, lead bytes, 0xF4 sequences.
            let alphabet: [UInt8] = [0x61, 0x2F, 0x80, 0xBF, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0xF4, 0x8F, 0xBE, 0xFF, 0xC0]
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator) ?? 0x61 }
            #expect(PathBytes.encode(PathBytes.decode(bytes)) == bytes, "\(bytes)")
        }
        for text in ["plain.wav", "café.wav", "cafe\u{301}.wav", "snare 🥁.wav", "tab\there"] {
            #expect(PathBytes.decode(Array(text.utf8)) == text)
            #expect(PathBytes.encode(text) == Array(text.utf8))
            #expect(!PathBytes.hasRawBytes(text))
        }
    }

    @Test("two different byte strings never decode to the same String (one reserved scalar is escaped too)")
    func injective() {
        // U+10FFFF spelled in valid UTF-8, and the bytes 0xFF alone: different names, different Strings.
        let reserved: [UInt8] = [0xF4, 0x8F, 0xBF, 0xBF]
        let raw: [UInt8] = [0xFF]
        #expect(PathBytes.decode(reserved) != PathBytes.decode(raw))
        #expect(PathBytes.encode(PathBytes.decode(reserved)) == reserved)
    }

    @Test("display shows raw bytes as \\xHH and leaves everything else alone")
    func display() {
        let name = PathBytes.decode(Array("bad".utf8) + [0xFF, 0x80] + Array("é.wav".utf8))
        #expect(PathBytes.display(name) == "bad\\xFF\\x80é.wav")
        #expect(PathBytes.hasRawBytes(name))
    }

    @Test("display shows control characters as \\xHH: a name never breaks a line or drives a terminal")
    func displayControls() {
        #expect(PathBytes.display("a\tb\nc\rd\u{1B}[2Je\u{7F}.wav") == "a\\x09b\\x0Ac\\x0Dd\\x1B[2Je\\x7F.wav")
        #expect(PathBytes.display("plain é.wav") == "plain é.wav")
    }

    @Test("display shows C1 controls, line separators and bidi overrides as \\u{HHHH} (issue 28)")
    func displayUnicodeControls() {
        // U+009B is a CSI for terminals that take C1 controls; U+0085 a line break; U+202E reverses what follows.
        #expect(PathBytes.display("a\u{9B}31mb\u{85}c\u{80}\u{9F}") == "a\\u{009B}31mb\\u{0085}c\\u{0080}\\u{009F}")
        #expect(PathBytes.display("x\u{2028}y\u{2029}z\u{202E}w\u{2066}v") == "x\\u{2028}y\\u{2029}z\\u{202E}w\\u{2066}v")
        #expect(PathBytes.display("\u{A0}é\u{2030}") == "\u{A0}é\u{2030}")
    }

    @Test("a path with a NUL byte is never handed to the system")
    func nul() {
        #expect(PathBytes.withCString("keep.wav\u{0}.caf") { _ in 1 } == nil)
        #expect(PathBytes.withCString(PathBytes.decode([0xFF, 0x00])) { _ in 1 } == nil)
        #expect(PathBytes.withCString("fine") { _ in 1 } == 1)
    }
}

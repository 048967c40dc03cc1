import JSONKit
import Testing

@Suite("JSON parser and stream splitter (persistent worker requests)")
struct JSONParserTests {
    @Test("values, escapes and surrogate pairs parse; whitespace around is fine")
    func values() throws {
        let text = #" {"arguments": ["a b.wav", "-o", "\u00e9\ud83d\ude00\n\"\\\/"], "requestId": -12, "cancel": false, "x": [null, true, 1.5e3, {}]} "#
        let value = try JSONParser.parse(Array(text.utf8))
        guard case .object(let fields) = value else {
            Issue.record("not an object")
            return
        }
        #expect(fields["arguments"] == .array([.string("a b.wav"), .string("-o"), .string("é😀\n\"\\/")]))
        #expect(fields["requestId"] == .number("-12"))
        #expect(fields["cancel"] == .bool(false))
        #expect(fields["x"] == .array([.null, .bool(true), .number("1.5e3"), .object([:])]))
    }

    @Test("malformed documents are refused with an offset, never a crash")
    func refused() {
        let bad = [
            "", "{", "{\"a\"}", "{\"a\":}", "[1,]", "01", "-", "1.", "1e", "\"\\x\"", "\"\\ud800\"", "\"\\udc00x\"",
            "\"a\nb\"", "tru", "{} {}", "[\"\\u12\"]", String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ]
        for text in bad {
            #expect(throws: JSONParser.Failure.self, "\(text)") { try JSONParser.parse(Array(text.utf8)) }
        }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test("the splitter finds whole documents however the stream is cut, with or without newlines between them")
    func splitting() {
        let documents = [#"{"arguments":["}{","\"]"],"requestId":1}"#, #"{"a":[{"b":"\\"}]}"#, "[1,2]", "{}"]
        let stream = Array((documents[0] + documents[1] + "\n  " + documents[2] + "\r\n" + documents[3]).utf8)
        for cut in 0...stream.count {
            var splitter = JSONStreamSplitter()
            let found = splitter.feed(stream[..<cut]) + splitter.feed(stream[cut...])
            #expect(found.map { String(decoding: $0, as: UTF8.self) } == documents, "cut at \(cut)")
            #expect(!splitter.isInsideDocument && splitter.failure == nil)
        }
        // Byte by byte.
        var splitter = JSONStreamSplitter()
        var found: [[UInt8]] = []
        for byte in stream { found += splitter.feed([byte]) }
        #expect(found.count == 4)
    }

    @Test("a document past the limit, or text that is not a document, stops the stream")
    func limits() {
        var splitter = JSONStreamSplitter(limit: 16)
        #expect(splitter.feed(Array(#"{"a":"0123456789abcdef"}"#.utf8)).isEmpty)
        #expect(splitter.failure != nil)
        #expect(splitter.feed(Array("{}".utf8)).isEmpty)
        var other = JSONStreamSplitter()
        #expect(other.feed(Array("{} x {}".utf8)).count == 1)
        #expect(other.failure != nil)
        var open = JSONStreamSplitter()
        #expect(open.feed(Array(#"{"a":"#.utf8)).isEmpty && open.isInsideDocument)
    }
}

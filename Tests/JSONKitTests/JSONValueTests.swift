import Foundation
import JSONKit
import Testing

/// The writer on its own: layout, escaping, numbers, nulls.
@Suite("JSONValue text")
struct JSONValueTests {
    @Test("strings: quote, backslash and control characters escaped; slash and non-ASCII kept")
    func escaping() {
        let text = "a/b \"q\" \\ \u{08}\u{0C}\n\r\t \u{00}\u{01}\u{1F} \u{7F} é 😀 \u{2028}"
        let expected =
            #""a/b \"q\" \\ \b\f\n\r\t \u0000\u0001\u001f "# + "\u{7F} é 😀 \u{2028}\""
        #expect(JSONValue.string(text).text() == expected)
        #expect(JSONValue.string("").text() == "\"\"")
    }

    @Test("integers are exact at every width")
    func integers() {
        #expect(JSONValue.integer(Int64.min).text() == "-9223372036854775808")
        #expect(JSONValue.integer(UInt64.max).text() == "18446744073709551615")
        #expect(JSONValue.integer(0).text() == "0")
    }

    @Test(
        "doubles: shortest round-trip form, no trailing .0",
        arguments: [
            (44100.0, "44100"), (0.15, "0.15"), (-12.5, "-12.5"), (1e-7, "1e-07"), (1e20, "1e+20"),
            (9007199254740992, "9007199254740992"), (-0.0, "-0"), (Double.leastNonzeroMagnitude, "5e-324"),
            (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"), (0.1 + 0.2, "0.30000000000000004"),
        ])
    func doubles(value: Double, text: String) throws {
        #expect(JSONValue.double(value).text() == text)
        let back = try #require(Double(text))
        #expect(back == value && back.sign == value.sign)
    }

    @Test("NaN and the infinities become null", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(value: Double) {
        #expect(JSONValue.double(value) == .null)
        #expect(JSONValue.float(Float(value)) == .null)
    }

    @Test("random doubles round-trip through their text")
    func roundTrip() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<10_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            guard case .number(let text) = JSONValue.double(value) else {
                Issue.record("\(value) is not a number")
                continue
            }
            #expect(Double(text) == value, "\(text)")
        }
    }

    @Test("objects: keys sorted by bytes, pretty layout like JSONEncoder, empty containers")
    func layout() {
        let value = JSONValue.object([
            "b": .array([.integer(1), .null, .bool(true)]),
            "B": .object([:]),
            "a": .array([]),
            "a10": .string("x"),
            "a9": .object(["z": .bool(false)]),
        ])
        let expected = """
            {
              "B" : {

              },
              "a" : [

              ],
              "a10" : "x",
              "a9" : {
                "z" : false
              },
              "b" : [
                1,
                null,
                true
              ]
            }
            """
        #expect(value.text() == expected)
        #expect(value.text(pretty: false) == #"{"B":{},"a":[],"a10":"x","a9":{"z":false},"b":[1,null,true]}"#)
        #expect(JSONValue.array([]).text() == "[\n\n]")
    }
}

/// A small deterministic generator for property tests.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

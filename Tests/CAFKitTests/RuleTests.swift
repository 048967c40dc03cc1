import BinaryIO
import CAFKit
import Testing

/// The validator's rules are typed: one case per rule, each with a stable code and a summary.
@Suite("Validator rules")
struct RuleTests {
    @Test("every rule has its own kebab-case code and a one-sentence summary")
    func everyRuleIsDescribed() {
        let rules = CAFRule.allCases
        #expect(Set(rules.map(\.code)).count == rules.count)
        #expect(Set(rules.map(\.summary)).count == rules.count)
        for rule in rules {
            #expect(!rule.code.isEmpty, "\(rule)")
            #expect(rule.code.allSatisfy { ("a"..."z").contains($0) || $0 == "-" }, "\(rule.code)")
            #expect(rule.summary.first?.isUppercase == true && rule.summary.hasSuffix("."), "\(rule.code)")
        }
    }

    @Test("the codes reports show are the names they showed before, by name")
    func codesAreStable() {
        #expect(
            CAFRule.allCases.map(\.code) == [
                "desc-first", "desc-size", "one-desc", "one-data", "size-minus-one", "chunk-within-file",
                "chunk-count", "file-ends-with-chunk", "sample-rate", "channels", "lpcm-bits",
                "lpcm-frames-per-packet", "lpcm-bytes-per-packet", "whole-frames", "compressed-bits",
                "pakt-required", "pakt-frames", "opus-priming", "chunk-body", "pakt-bytes", "opus-kuki", "chan-size",
                "chan-channels",
                "peak-size", "info-count", "mark-position", "regn-position", "format", "byte-order", "bits",
                "float", "frames",
            ])
    }

    @Test("a diagnostic's text starts with its rule's code")
    func diagnosticText() {
        let diagnostic = CAFDiagnostic(rule: .byteOrder, chunk: .desc, offset: 8, expected: "little", found: "big")
        #expect(diagnostic.code == "byte-order")
        #expect(diagnostic.description == "byte-order: expected little, found big (chunk 'desc' at byte 8)")
    }
}

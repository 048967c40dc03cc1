import BinaryIO
import CAFKit
import Conversion
import ConversionModel
import IncrementalState
import JSONKit
import OutputFiles
import Rules
import Testing
import Transcoding
import Verification

/// `verify`'s findings: typed rules, the validator's diagnostics kept whole, and one rendering
/// that the text line and the JSON object share.
@Suite("Verify findings")
struct VerifyFindingTests {
    @Test("every verify rule has its own code and summary, and no code clashes with a validator rule")
    func everyRuleIsDescribed() {
        let rules = VerifyRule.allCases
        #expect(rules.map(\.code) == [
            "caf-files", "readable", "caf", "profile-format", "max-duration", "against", "against-rate",
            "against-channels", "against-frames", "against-metadata", "loudness", "max-true-peak",
        ])
        #expect(Set(rules.map(\.summary)).count == rules.count)
        for rule in rules { #expect(!rule.summary.isEmpty && rule.summary.hasSuffix("."), "\(rule.code)") }
        let all = rules.map(\.code) + CAFRule.allCases.map(\.code)
        #expect(Set(all).count == all.count)
    }

    @Test("a validator finding keeps the diagnostic whole; text and JSON show the same fields")
    func validatorFinding() throws {
        let diagnostic = CAFDiagnostic(rule: .descFirst, chunk: .data, offset: 8, expected: "'desc' as the first chunk", found: "'data'")
        let failure = VerifyFailure.validator(diagnostic)
        #expect(failure == .validator(diagnostic))
        #expect(failure.code == "desc-first" && failure.summary == CAFRule.descFirst.summary)
        #expect(failure.description == "desc-first: expected 'desc' as the first chunk, found 'data'")
        #expect(FindingRendering.text(failure) == failure.description)
        let json = try JSONValueEncoder().text(failure)
        #expect(json == """
            {
              "chunk" : "data",
              "expected" : "'desc' as the first chunk",
              "found" : "'data'",
              "offset" : 8,
              "rule" : "desc-first"
            }
            """)
    }

    @Test("a verifier finding without chunk or offset leaves those keys out")
    func verifierFinding() throws {
        let failure = VerifyFailure.verifier(.maxDuration, expected: "at most 30.0 s", found: "45.0 s")
        #expect(failure.description == "max-duration: expected at most 30.0 s, found 45.0 s")
        let json = try JSONValueEncoder().text(failure)
        #expect(json == """
            {
              "expected" : "at most 30.0 s",
              "found" : "45.0 s",
              "rule" : "max-duration"
            }
            """)
    }

    @Test("the status is passed or failed in JSON, as before")
    func statusValues() throws {
        #expect(VerifyStatus.passed.rawValue == "passed" && VerifyStatus.failed.rawValue == "failed")
        let report = Verifier.verify(paths: ["/nonexistent/cafconv-test.caf"], options: VerifyOptions())
        let file = try #require(report.files.first)
        #expect(file.status == .failed && file.failures.map(\.code) == ["readable"])
        #expect(try JSONValueEncoder().text(report).contains("\"status\" : \"failed\""))
    }
}

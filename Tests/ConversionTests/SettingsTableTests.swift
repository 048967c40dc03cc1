@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// The settings table (Settings.all) is what the command line, the rules files and the
/// fingerprint all read: these tests hold the three to each other.
@Suite("Settings: one declaration for the command line, the rules file and the fingerprint")
struct SettingsTableTests {
    /// Applies a command line given as long name -> text ("" for a flag).
    static func commandLine(_ given: [String: String]) throws(DataFormatError) -> (ConversionOptions, Set<RuleKey>) {
        var options = ConversionOptions(jobs: 1)
        options.codecs = OutputCodecs.vocabulary  // as `cafconv convert` does
        let keys = try Setting.applyCommandLine({ given[$0] }, to: &options)
        return (options, keys)
    }

    static func rules(_ text: String) throws -> ConversionOptions {
        let rules = try RulesFile.parse("[defaults]\n" + text, file: "cafconv.toml")
        return try rules.resolve("a.wav", base: ConversionOptions(jobs: 1), commandLine: []).options
    }

    @Test("the default -j is the processors, at most 8 (issue 34's 16-core sweep: more jobs into one folder were slower)")
    func defaultJobsAreCapped() {
        #expect(ConversionOptions.defaultJobs(processors: 1) == 1)
        #expect(ConversionOptions.defaultJobs(processors: 2) == 2)
        #expect(ConversionOptions.defaultJobs(processors: 8) == 8)
        #expect(ConversionOptions.defaultJobs(processors: 16) == 8)
        #expect(ConversionOptions.defaultJobs(processors: 64) == 8)
        #expect(ConversionOptions().jobs == ConversionOptions.defaultJobs())
    }

    @Test(
        "a setting given on the command line and in a rules file makes the same options, and the command line claims its key",
        arguments: [
            (["data-format": "LEI16@22050"], "format = \"LEI16@22050\"", ["format", "rate", "endian"]),
            (["endian": "big"], "endian = \"big\"", ["endian"]),
            (["channels": "1"], "channels = 1", ["channels"]),
            (["no-mix": ""], "mix = false", ["mix"]),
            (["data-format": "aac", "bit-rate": "96000"], "format = \"aac\"\nbitrate = 96000", ["format", "bitrate"]),
            (["dither": "tpdf"], "dither = \"tpdf\"", ["dither"]),
            (["strip-metadata": ""], "strip-metadata = true", ["strip-metadata"]),
        ] as [([String: String], String, Set<RuleKey>)])
    func sameOptions(given: [String: String], rulesText: String, keys: Set<RuleKey>) throws {
        let (fromCommandLine, claimed) = try Self.commandLine(given)
        #expect(fromCommandLine == (try Self.rules(rulesText)))
        #expect(claimed == keys)
    }

    @Test("the fingerprint's parts come in the table's order, each only when its setting is not the default")
    func fingerprintText() throws {
        let (plain, _) = try Self.commandLine([:])
        #expect(plain.fingerprint == "rules=3;d=source;endian=default")
        let (every, _) = try Self.commandLine([
            "data-format": "BEI16@22050", "src-quality": "hq", "channels": "1", "no-mix": "", "dither": "tpdf",
            "strip-metadata": "", "jobs": "3", "force": "", "shard": "1/2",
        ])
        #expect(every.fingerprint == "rules=3;d=BEI16;endian=default;rate=22050;src=hq;channels=1;mix=off;dither=tpdf;meta=strip")
    }

    @Test("the rules keys are the table's, in its order, and only those")
    func ruleKeys() throws {
        #expect(RuleKey.list == "format, reencode, endian, rate, channels, mix, bitrate, strategy, dither, strip-metadata, loudness, true-peak, loudness-group")
        #expect(RuleKey.allCases.allSatisfy { $0.isKnown })
        #expect(!RuleKey(rawValue: "src-quality").isKnown)
        #expect(throws: RuleError.self) { try Self.rules("src-quality = \"hq\"") }
    }

    @Test(
        "command-line values are checked by the setting, with its message",
        arguments: [
            (["jobs": "0"], "--jobs must be at least 1"),
            (["channels": "1025"], "--channels must be from 1 to 1024"),
            (["mix": "", "no-mix": ""], "--mix and --no-mix cannot be used together"),
        ])
    func commandLineChecks(given: [String: String], message: String) {
        #expect(throws: DataFormatError(message)) { _ = try Self.commandLine(given) }
    }

    @Test("every command-line option is declared by one setting only")
    func optionsDeclaredOnce() {
        let longs = Settings.all.flatMap(\.options).map(\.long)
        #expect(Set(longs).count == longs.count)
        #expect(Settings.option("channels")?.short == "c")
        #expect(Settings.option("data-format") == nil)  // declared with the data formats
    }
}

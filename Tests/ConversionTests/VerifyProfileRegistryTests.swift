import BinaryIO
import CAFKit
@testable import ConversionModel
import Foundation
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import TestSupport
import Testing
@testable import Transcoding
@testable import Verification

@testable import Conversion

/// `verify --profile` and `verify -d` read the output codec registry for the formats they accept
/// and expect; what they say stays what it was.
@Suite("Verify profiles and -d: the formats from the codec registry")
struct VerifyProfileRegistryTests {
    @Test("each profile's formats, in the order its failure lists them, are formats a registered codec writes")
    func profileFormats() {
        #expect(Profile.iosNotification.formats == [.lpcm, .ima4, .ulaw, .alaw])
        #expect(Profile.appleLPCM.formats == [.lpcm])
        let written = Set(OutputCodecs.all.flatMap(\.formatIDs))
        for profile in Profile.allCases { #expect(Set(profile.formats).isSubset(of: written), "\(profile)") }
    }

    @Test("an ALAC file fails ios-notification naming the formats it takes, word for word")
    func profileSentence() throws {
        let folder = TempDirectory()
        let wav = folder.write("src.wav", WAVFixture.signal(.int16, channels: 2, frames: 2000).bytes)
        let caf = folder.file("out.caf")
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: "alac"), jobs: 1)
        try #require(Engine.convert(inputs: [wav], output: caf, options: options).succeeded)
        let failures = Verifier.verify(paths: [caf], options: VerifyOptions(profile: .iosNotification)).files.flatMap(\.failures)
        let failure = try #require(failures.first { $0.code == "profile-format" }, "\(failures)")
        #expect(failure.expected == "'lpcm', 'ima4', 'ulaw', 'alaw' (ios-notification)")
        #expect(failure.found == "'alac'", "\(failure)")
    }

    @Test("verify -d expects each spelling's format ID, and linear PCM its sample size and kind")
    func dataFormatExpectations() throws {
        let cases: [(String, FourCC, UInt32?, Bool?, ByteOrder?)] = [
            ("LEI16", .lpcm, 16, false, .little), ("BEI24", .lpcm, 24, false, .big), ("LEF32", .lpcm, 32, true, .little),
            ("BEF64", .lpcm, 64, true, .big), ("I8", .lpcm, 8, false, nil), ("ulaw", .ulaw, nil, nil, nil),
            ("alaw", .alaw, nil, nil, nil), ("alac", .alac, nil, nil, nil), ("alac20", .alac, nil, nil, nil),
            ("ima4", .ima4, nil, nil, nil), ("aac", .aac, nil, nil, nil),
        ]
        for (spelling, format, bits, isFloat, order) in cases {
            let expected = VerifyOptions(dataFormat: try DataFormat(parsing: spelling)).expectations
            #expect(expected.formatID == format, "\(spelling)")
            #expect(expected.bitsPerChannel == bits && expected.isFloat == isFloat, "\(spelling)")
            #expect(expected.byteOrder == order, "\(spelling)")
        }
        #expect(VerifyOptions().expectations.formatID == nil)
    }
}

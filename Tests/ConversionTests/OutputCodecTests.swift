import AACCodec
import CAFKit
@testable import Conversion
@testable import ConversionModel
@testable import IncrementalState
@testable import OutputFiles
@testable import Rules
import SndFile
import Testing
@testable import Transcoding
@testable import Verification

@Suite("Output codecs: one registry of the encodings -d names")
struct OutputCodecTests {
    @Test("the registry's spellings are the -d list the parser's errors quote, in the same order")
    func spellingsAreTheParsersList() {
        #expect(OutputCodecs.examples.hasPrefix("LEI16 BEI16 "))
        #expect(OutputCodecs.examples.hasSuffix(" ima4 aac opus"))
        #expect(throws: DataFormatError("'xyz' is not a data format; use one of \(OutputCodecs.examples)")) {
            try DataFormat(parsing: "xyz")
        }
    }

    @Test("a codec the model has never heard of parses from its spelling alone: name, depths, -b, byte order")
    func aNewCodecNeedsOnlyItsSpelling() throws {
        let spelling = DataFormat.Spelling("zz9", examples: ["zz9", "zz9x12"], bitDepths: [12], takesBitRate: true, byteOrderless: "ZZ")
        let vocabulary = DataFormat.Vocabulary([LinearPCMCodec().spelling, spelling])
        let plain = try DataFormat(parsing: "ZZ9", vocabulary: vocabulary)
        #expect(plain.kind == spelling.kind() && plain.kind.bits == nil)
        #expect(try DataFormat(parsing: "zz912", vocabulary: vocabulary).kind == spelling.kind(bits: 12))
        #expect(throws: DataFormatError.self) { try DataFormat(parsing: "zz913", vocabulary: vocabulary) }
        #expect(throws: DataFormatError.self) { try DataFormat(parsing: "zz9", vocabulary: .linearPCMOnly) }
        // -b applies and --endian does not, as the spelling says; nothing in ConversionModel names zz9.
        var options = ConversionOptions(dataFormat: plain, bitRate: 64000)
        options.codecs = vocabulary
        try options.validate()
        options.endian = .big
        #expect(throws: DataFormatError("--endian does not apply to -d zz9 (ZZ packets have no byte order)")) {
            try options.validate()
        }
        options.endian = nil
        options.dataFormat = try DataFormat(parsing: "LEI16", vocabulary: vocabulary)
        #expect(throws: DataFormatError("-b sets the bit rate of -d zz9; it does nothing for -d LEI16")) {
            try options.validate()
        }
    }

    @Test("every spelling parses, and the registry gives it the codec that lists it")
    func everySpellingFindsItsCodec() throws {
        let anyTarget = TargetFormat(encoding: .pcm16, byteOrder: .little)
        for codec in OutputCodecs.all {
            for spelling in codec.spelling.examples {
                let format = try DataFormat(parsing: spelling)
                let found = OutputCodecs.codec(writing: anyTarget, asked: format.kind)
                #expect(found.spelling == codec.spelling, "\(spelling)")
            }
        }
    }

    @Test("without -d, the source's own format finds the codec that keeps it")
    func sourceFormatFindsItsCodec() {
        let cases: [(Encoding, String)] = [
            (.pcm16, "LEI16"), (.float64, "LEI16"), (.pcmS8, "LEI16"), (.ulaw, "ulaw"), (.alaw, "alaw"),
            (.alac20, "alac"),
        ]
        for (encoding, first) in cases {
            let codec = OutputCodecs.codec(writing: TargetFormat(encoding: encoding, byteOrder: .little), asked: nil)
            #expect(codec.spelling.examples.first == first, "\(encoding)")
        }
    }

    @Test(
        "each codec's part of the fingerprint is the text earlier outputs were recorded with",
        arguments: [
            ("LEI16", "d=LEI16"), ("BEF64", "d=BEF64"), ("I8", "d=I8"), ("ulaw", "d=ulaw"), ("alaw", "d=alaw"),
            ("alac", "d=alac"), ("alac20", "d=alac20"),
        ])
    func fingerprints(spelling: String, part: String) throws {
        let options = ConversionOptions(dataFormat: try DataFormat(parsing: spelling))
        #expect(options.fingerprint == "rules=3;\(part);endian=default")
    }

    @Test("the lossy codecs' fingerprints name their encoders")
    func lossyFingerprints() throws {
        let standard = IMA4Encoder.Options.standard
        let ima4 = ConversionOptions(dataFormat: try DataFormat(parsing: "ima4"))
        #expect(
            ima4.fingerprint
                == "rules=3;d=ima4(enc=1,width=\(standard.searchWidth),range=\(standard.codeRange),floor=10.0);endian=default")
        let aac = ConversionOptions(dataFormat: try DataFormat(parsing: "aac"), bitRate: 96000)
        #expect(aac.fingerprint == "rules=3;d=aac;b=96000;enc=\(LibAVCodec.encoderIdentity);endian=default")
        #expect(ConversionOptions().fingerprint == "rules=3;d=source;endian=default")
    }
}

@Suite("Encoding failures: the codecs' limits as typed cases")
struct EncodingFailureTests {
    @Test("AAC's limits: rate, channels and bit rate are cases with their numbers, and keep their sentences")
    func aacLimits() {
        #expect(throws: ConversionError.encoding(.aacChannels(9, maximum: 8))) {
            try AACStage.bitRate(asked: nil, channels: 9, sampleRate: 44100)
        }
        #expect(throws: ConversionError.encoding(.aacSampleRate(hz: 44000, rates: AACStage.sampleRates, nearest: 44100))) {
            try AACStage.bitRate(asked: nil, channels: 2, sampleRate: 44000)
        }
        #expect(
            throws: ConversionError.encoding(
                .aacBitRate(asked: 1000, sampleRate: 44100, channels: 1, lowest: 8000, highest: 264600))
        ) { try AACStage.bitRate(asked: 1000, channels: 1, sampleRate: 44100) }
        #expect(
            EncodingFailure.aacSampleRate(hz: 22050.5, rates: [22050], nearest: 22050).message
                == "AAC cannot hold 22050.5 Hz (it takes 22050 Hz); resample with -d aac@22050")
        #expect(
            EncodingFailure.aacSampleRate(hz: 44000, rates: [44100], nearest: 44100).message
                == "AAC cannot hold 44000 Hz (it takes 44100 Hz); resample with -d aac@44100")
    }
}

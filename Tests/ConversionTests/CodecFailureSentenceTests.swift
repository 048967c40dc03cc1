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

/// The encoding, proof, output and source failures and the warnings of the output codecs, the
/// proof and the second decoder render to the sentences cafconv has always printed (scripts and
/// people read them): each case with its code, word for word.
@Suite("Codec failures and warnings: one sentence per case")
struct CodecFailureSentenceTests {
    static let noEntry = String(cString: strerror(ENOENT))

    @Test("proof failures: code proof, the sentences as before")
    func proof() {
        let failed = "the written CAF failed verification:"
        let cases: [(ProofFailure, String)] = [
            (.invalid(finding: "desc: 2 channels, expected 1"), "\(failed) desc: 2 channels, expected 1"),
            (.notPackedPCM, "\(failed) its samples are not packed linear PCM"),
            (.notOneCodePerSample(law: "µ-law"), "\(failed) it does not hold one µ-law code per channel and frame"),
            (.unreadable(reason: "truncated"), "the written CAF cannot be read back: truncated"),
            (.undecodable(reason: "bad kuki"), "the written CAF cannot be decoded: bad kuki"),
            (.decoding(reason: "a decoder's own sentence"), "a decoder's own sentence"),
            (.noDataChunk, "the written CAF has no 'data' chunk to place metadata before"),
            (.shortHeader(bytes: 40), "libsndfile wrote a CAF header of 40 bytes, too short to hold a 'data' chunk"),
            (.emptyDataChunkMissing, "libsndfile's empty CAF does not end with an empty 'data' chunk"),
            (.ima4HeaderLengthChanged, "the IMA4 header changed length when its frame count was corrected"),
            (
                .frameCount(found: 19999, expected: 20000, decoder: "cafconv"),
                "\(failed) it holds 19999 frames, the source 20000 (as cafconv decodes it)"
            ),
            (
                .sampleDiffers(frame: 3000, channel: 2, found: "12", expected: "13", decoder: "libsndfile", rule: nil),
                "\(failed) frame 3000, channel 2 holds 12, the source 13 (as libsndfile decodes it)"
            ),
            (
                .sampleDiffers(frame: 3000, channel: 2, found: "12", expected: "13", decoder: "cafconv", rule: "24-to-16-bit"),
                "\(failed) frame 3000, channel 2 holds 12, the source 13 (as cafconv decodes it, after rule 24-to-16-bit)"
            ),
            (
                .probeDiffers(frame: 0, channel: 1, found: "-1", expected: "0"),
                "\(failed) frame 0, channel 1 holds -1, the source 0"
            ),
            (
                .ima4FrameCount(output: 128, source: 100, decoder: "cafconv"),
                "\(failed) it decodes to 128 frames, the source to 100 (as cafconv decodes it)"
            ),
            (
                .ima4SNR(snr: 12.5, floor: 20.25, errorRMS: 3.14),
                "\(failed) its IMA4 audio has an SNR of 12.5 dB against the source, below the floor of 20.25 dB (error RMS 3.14 LSB)"
            ),
            (
                .ima4SNR(snr: nil, floor: 20.0, errorRMS: 1.0),
                "\(failed) its IMA4 audio has an SNR of undefined (silent source) against the source, below the floor of 20.0 dB (error RMS 1.0 LSB)"
            ),
            (
                .lossyPackets(
                    encoder: "libavcodec's AAC encoder", packets: 3, framesPerPacket: 1024, frames: 5000, priming: 2048),
                "libavcodec's AAC encoder gave 3 packets of 1024 frames for 5000 frames after 2048 priming frames"
            ),
            (
                .lossyPriming(codec: "Opus", declared: 0, encoder: 312),
                "the written Opus CAF declares 0 priming frames, the encoder 312"
            ),
            (
                .lossyDecodedFrames(codec: "AAC", found: 21024, expected: 20000, decoder: "libsndfile"),
                "\(failed) its AAC audio decodes to 21024 frames or more, the source has 20000 (as libsndfile decodes it)"
            ),
            (
                .lossyFrames(codec: "Opus", frames: 19000, given: 20000),
                "\(failed) its Opus audio holds 19000 frames, the encoder was given 20000"
            ),
            (
                .lossyLag(codec: "AAC", lag: 1024),
                "\(failed) its decoded AAC audio is 1024 frames late against the source (cross-correlation peak at lag 1024, not 0)"
            ),
            (
                .lossyLag(codec: "Opus", lag: -3),
                "\(failed) its decoded Opus audio is -3 frames early against the source (cross-correlation peak at lag -3, not 0)"
            ),
            (
                .lossySNR(codec: "AAC", snr: 4.5, floor: 10.0, bitRate: 32000),
                "\(failed) its decoded AAC audio is 4.5 dB from the source (SNR), below the floor of 10.0 dB at 32000 b/s (the encoder kept too little of this audio at this bit rate: raise -b)"
            ),
            (
                .lossyNearSilentError(codec: "Opus", level: -40.0, windowLevel: -60.0, limit: -50.0),
                "\(failed) the source is near-silent (no 4096-frame window reaches -60.0 dBFS) but its decoded Opus audio differs from it by -40.0 dBFS RMS, above -50.0 dBFS"
            ),
            (.lossyChannels(codec: "AAC", file: 2, source: 1), "the AAC file has 2 channels, the source 1"),
            (.sourceUnreadable(reason: "gone"), "cannot read the source: gone"),
            (.lossyUndecodable(codec: "Opus", reason: "bad packet"), "the Opus file cannot be decoded: bad packet"),
            (
                .packetsNotMoved(codec: "Opus", reason: "packet 3 differs from the source's"),
                "\(failed) its Opus packets are not the source's: packet 3 differs from the source's"
            ),
        ]
        for (failure, sentence) in cases {
            #expect(ConversionError.proof(failure).message == sentence)
            #expect(ConversionError.proof(failure).code == .proof)
        }
    }

    @Test("encoding failures: code unsupported, io or libsndfile, the sentences as before")
    func encoding() {
        let rules = RuleError("format = \"xyz\": not a format", file: "in/cafconv.toml", line: 3)
        let cases: [(EncodingFailure, ConversionError.Code, String)] = [
            (
                .libsndfileCannotWrite(target: "ALAC 16-bit", reason: "Bad format."), .unsupported,
                "libsndfile cannot write ALAC 16-bit CAF: Bad format."
            ),
            (.headerTooLong(bytes: 70000), .unsupported, "the written CAF's header is 70000 bytes; metadata is not placed"),
            (.transform(reason: "a transform's sentence"), .unsupported, "a transform's sentence"),
            (.encoder(reason: "an encoder's sentence"), .unsupported, "an encoder's sentence"),
            (.cannotCheck(target: "ALAC 24-bit", reason: "gone"), .unsupported, "cannot check the written ALAC 24-bit: gone"),
            (
                .notReproduced(target: "ALAC 32-bit", frame: 7, channel: 1, version: "libsndfile-1.2.2"), .unsupported,
                "libsndfile's ALAC 32-bit encoder did not reproduce the audio (frame 7, channel 1); this audio cannot be stored as ALAC by libsndfile libsndfile-1.2.2, use a PCM format"
            ),
            (
                .aacLFE(channels: 6, fourth: "BC", layout: "L R C BC BL BR"), .unsupported,
                "AAC codes 6 channels with the 4th as the LFE (bass only, cut above about 120 Hz), but this source's 4th channel is BC (layout L R C BC BL BR); mix it down with -c 2, or keep it as linear PCM"
            ),
            (.rules(rules), .unsupported, rules.description),
            (.readFailed(reason: "end of data"), .io, "reading failed: end of data"),
            (.sourceRead(reason: "a reader's sentence"), .io, "a reader's sentence"),
            (.unexpected("something"), .io, "something"),
            (.encoderInput(reason: "libsndfile's sentence"), .libsndfile, "libsndfile's sentence"),
            (.sourceUnreadable(reason: "System error."), .libsndfile, "cannot read the source: System error."),
        ]
        for (failure, code, sentence) in cases {
            #expect(ConversionError.encoding(failure).message == sentence, "\(failure)")
            #expect(ConversionError.encoding(failure).code == code, "\(failure)")
        }
        #expect(rules.description == "in/cafconv.toml:3: format = \"xyz\": not a format")
    }

    @Test("output and source failures of the codecs, the proof and the second decoder: the sentences as before")
    func outputAndSource() {
        let spool = OutputFailure.spoolNotCreated(folder: "out/bad\u{10FFFF}", errno: ENOENT)
        #expect(ConversionError.output(spool).message == "cannot create a spool file in out/bad\\xFF: \(Self.noEntry)")
        #expect(ConversionError.output(spool).code == .output)
        let places: [SourceFailure.DamagedPacket] = [.init(frame: 1152, byte: 4180), .init(frame: 2304, byte: nil)]
        let cases: [(SourceFailure, ConversionError.Code, String)] = [
            (.fileEndedEarly, .sourceChanged, "the file ended early: it changed while it was being read"),
            (.sourceEndedEarly, .sourceChanged, "the source ended early: it changed while it was being converted"),
            (.mpg123Unreadable(reason: "no frame"), .notAudio, "libmpg123 cannot read it: no frame"),
            (.cannotDecode(decoder: "libmpg123", reason: "bad frame"), .notAudio, "libmpg123 cannot decode it: bad frame"),
            (.avcodecUnreadableAgain(reason: "gone"), .notAudio, "libavcodec cannot read it again: gone"),
            (
                .secondDecoderUnreadable(first: "libsndfile", reason: "no stream"), .unsupported,
                "the second decoder, libavcodec, cannot read it, so libsndfile's decoding cannot be checked: no stream"
            ),
            (
                .channelCountsDisagree(first: "libsndfile", channels: 1, second: 2), .readersDisagree,
                "libsndfile decodes 1 channel, libavcodec 2; not converted"
            ),
            (
                .channelCountsDisagree(first: "libsndfile", channels: 2, second: 1), .readersDisagree,
                "libsndfile decodes 2 channels, libavcodec 1; not converted"
            ),
            (
                .ratesDisagree(first: "libmpg123", rate: 44100, second: 48000), .readersDisagree,
                "libmpg123 decodes it at 44100 Hz, libavcodec at 48000 Hz; not converted"
            ),
            (
                .damaged(packets: 2, places: places, first: "libmpg123", firstFrames: 132300, secondFrames: 130000), .notAudio,
                "the file is damaged: 2 packets fail to decode (libavcodec, at frame 1152 (byte 4180), frame 2304); libmpg123 decodes 132300 frames, libavcodec 130000 skipping the damage; not converted"
            ),
            (
                .damagedAround(packets: 1, places: [places[0]], frames: 1000), .notAudio,
                "the file is damaged: 1 packet fails to decode (libavcodec, at frame 1152 (byte 4180)); 1000 frames decode around the damage; not converted"
            ),
            (
                .frameCountsDisagree(first: "libsndfile", firstFrames: 100, secondFrames: 101, rates: nil), .readersDisagree,
                "libsndfile decodes 100 frames, libavcodec 101 (each to the end of the file); not converted"
            ),
            (
                .frameCountsDisagree(
                    first: "libsndfile", firstFrames: 100, secondFrames: 480, rates: .init(second: 48000, first: 10000)),
                .readersDisagree,
                "libsndfile decodes 100 frames, libavcodec 480 (at 48000 Hz, libsndfile at 10000 Hz) (each to the end of the file); not converted"
            ),
            (
                .samplesDiffer(first: "libsndfile", frame: 5, channel: 1, firstValue: "0.5", secondValue: "0.25", lossy: false),
                .readersDisagree,
                "libsndfile and libavcodec decode it differently: at frame 5, channel 1 libsndfile gives 0.5, libavcodec 0.25; not converted"
            ),
            (
                .samplesDiffer(first: "libmpg123", frame: 5, channel: 2, firstValue: "0.5", secondValue: "0.25", lossy: true),
                .readersDisagree,
                "libmpg123 and libavcodec decode it differently: at frame 5, channel 2 libmpg123 gives 0.5, libavcodec 0.25 (more than the tolerance 2^-13 apart); not converted"
            ),
        ]
        for (failure, code, sentence) in cases {
            #expect(ConversionError.source(failure).message == sentence, "\(failure)")
            #expect(ConversionError.source(failure).code == code, "\(failure)")
        }
    }

    @Test("warnings of the codecs and the second decoder: the sentences as before")
    func warnings() {
        let cases: [(ConversionWarning, String)] = [
            (
                .source(.factSaysMore(declared: 1200, decoded: 1152)),
                "the 'fact' chunk says 1200 frames, but both decoders decode 1152 to the end of the 'data' chunk: 1152 frames converted"
            ),
            (.source(.shortRead(declared: 100, read: 60)), "the header declares 100 frames but only 60 could be read; converted 60"),
            (.source(.noFrames), "no audio frames: the output holds an empty 'data' chunk"),
            (.source(.noAACPacket), "no audio frames: the output holds no AAC packet"),
            (
                .metadata(.notWrittenToAAC),
                "the source's loops, markers and text are not written: -d aac outputs carry none (--strip-metadata drops them without this warning)"
            ),
        ]
        for (warning, sentence) in cases { #expect(warning.message == sentence) }
    }

    @Test("a file shorter than the bytes asked of it throws fileEndedEarly")
    func readExactlyEndedEarly() throws {
        let folder = TempDirectory()
        let path = folder.write("short.bin", [1, 2, 3, 4])
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(throws: ConversionError.source(.fileEndedEarly)) { _ = try FileSystem.readExactly(fd, count: 10, at: 0) }
        #expect(try FileSystem.readExactly(fd, count: 4, at: 0) == [1, 2, 3, 4])
    }
}

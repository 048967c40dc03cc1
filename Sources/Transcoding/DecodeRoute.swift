import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import WAVEKit

/// Who decodes a source's samples: the one table, one line per kind of source, read from the
/// content told once (``SourceContent/read(_:brokenCAF:)``). A new source format is a line here
/// and the file that decodes it; ``SourceStage/open(_:options:warnings:)`` opens each kind into
/// the same `SourceStage` the chain reads (`pumpAudio`, `proofAudio`).
///
/// | kind                                   | decoder                               | proven by                        |
/// |----------------------------------------|---------------------------------------|----------------------------------|
/// | linear PCM, µ-law, A-law (WAV/AIFF/CAF)| cafconv's `WAVESamples`               | libsndfile's reading, crossCheck |
/// | IMA4 (CAF, AIFF-C)                     | CAFKit (`IMA4Source`)                 | a second CAFKit decoding         |
/// | AAC-LC, AAC-LD CAF                     | libavcodec (`AACSource`)              | a second libavcodec decoding     |
/// | Opus CAF, Ogg Opus (`OpusSourceRoute`) | libopus (`OpusFileDecoder`)           | a second libopus decoding        |
/// | anything else libsndfile reads         | libsndfile                            | `SecondDecoder` (lossy, FLAC)    |
/// | a lossless stream libsndfile refuses   | libavcodec (`AVCodecSource`)          | a second libavcodec decoding     |
/// | AAC-LC in MP4/M4A or ADTS (`M4ASource`, told in `SourceStage.open`) | libavformat's packets, libavcodec | moved: the packets; else a second decoding |
package enum DecodeRoute {
    /// cafconv's own reader (linear PCM, µ-law and A-law in WAV, AIFF or CAF), cross-checked
    /// with libsndfile's reading before anything is written; the proof compares with it.
    case cafconv(WAVESamples)
    /// CAFKit's IMA4 decoder (libsndfile cannot read IMA4 in CAF, and decodes it wrongly in
    /// AIFF-C, libsndfile issue #845).
    case ima4
    /// libavcodec's AAC decoder behind CAFKit's packets (AAC-LC, AAC-LD).
    case aac
    /// libsndfile (FLAC, Vorbis, Opus, MP3, ADPCM and GSM in WAV, ALAC...), the lossy streams and
    /// FLAC proven by a second decoder (`SecondDecoder`); a lossless stream libsndfile refuses is
    /// read by libavcodec instead (`AVCodecSource`).
    case libsndfile

    /// The route for `content`, or the failure naming why no decoder takes it: linear PCM laid
    /// out in a way cafconv's reader cannot check, AAC of another profile than LC and LD.
    package static func route(for content: SourceContent) throws(ConversionError) -> DecodeRoute {
        switch content {
        case .aiff(let aiff) where aiff.compressionType == .ima4: return .ima4
        case .caf(let caf) where caf.audioDescription.formatID == .ima4: return .ima4
        case .caf(let caf) where AACFileDecoder.formatIDs.contains(caf.audioDescription.formatID): return .aac
        case .caf(let caf) where aacProfiles.contains(caf.audioDescription.formatID):
            throw .source(.aacProfileNotDecoded(formatID: caf.audioDescription.formatID.trimmed))
        case .wave(let wave):
            if let samples = WAVESamples(wave: wave) { return .cafconv(samples) }
            guard !wave.format.isLinearPCM else { throw .source(
                    .wavLayout(
                        bits: Int(wave.format.bitsPerSample), isFloat: wave.format.isFloat,
                        bytesPerFrame: wave.bytesPerFrame, channels: Int(wave.format.channels))) }
            return .libsndfile
        case .aiff(let aiff):
            if let samples = WAVESamples(aiff: aiff) { return .cafconv(samples) }
            guard aiff.formatID != "lpcm" else {
                throw .source(.aiffLayout(bits: Int(aiff.common.sampleSize), isFloat: aiff.isFloat))
            }
            return .libsndfile
        case .caf(let caf):
            if let samples = WAVESamples(caf: caf) { return .cafconv(samples) }
            let description = caf.audioDescription
            guard !description.isLinearPCM else {
                throw .source(
                    .cafLayout(
                        bits: description.bitsPerChannel, isFloat: description.isFloat,
                        bytesPerPacket: description.bytesPerPacket, framesPerPacket: description.framesPerPacket))
            }
            return .libsndfile
        case .other:
            return .libsndfile
        }
    }

    /// Every AAC format ID a CAF can carry; those outside `AACFileDecoder.formatIDs` are refused.
    package static let aacProfiles: Set<FourCC> = [
        .aac, FourCC("aach"), FourCC("aacl"), FourCC("aace"), FourCC("aacf"), FourCC("aacg"), FourCC("aacp"),
    ]

    /// Why a road that does not decode IMA4 or AAC sources itself (`-d aac`, `verify`'s transformed
    /// reference) refuses one; `nil` for the kinds every road takes.
    package func refusalOutsideConvert(_ content: SourceContent) -> SourceFailure? {
        switch (self, content) {
        case (.ima4, .aiff): return .ima4ConvertsToPCMOrIMA4(aifc: true)
        case (.ima4, _): return .ima4ConvertsToPCMOrIMA4(aifc: false)
        case (.aac, .caf(let caf)): return .aacDecodedOnlyByConvert(formatID: caf.audioDescription.formatID.trimmed)
        default: return nil
        }
    }
}

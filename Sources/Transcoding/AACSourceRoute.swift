import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import OutputFiles
import SndFile
import SystemLayer

/// AAC CAF sources (cafconv's, afconvert's): decoded by `AACFileDecoder` (CAFKit's packets,
/// libavcodec's decoder, the `pakt` priming and remainder dropped). The route table
/// (``DecodeRoute``) tells them; ``admit(_:input:content:output:options:)`` opens one as a
/// `SourceStage` whose `pumpAudio` and `proofAudio` are independent decodings, and the chain
/// writes and proves the output as for any source.
///
/// The output is `-d`'s linear PCM of 16 bits or more (without `-d`, 16-bit, as for the other
/// lossy sources); the decoder's floats become integers by the `float-to-N-bit` rule, and the
/// proof compares every sample of the output with a second decoding after that rule.
package enum AACSourceRoute {
    /// An AAC CAF source and the linear PCM the job asks of it.
    package struct Source {
        /// The CAF, as the content sniff parsed it.
        package let file: CAFFile
        /// Its bytes.
        package let input: FileByteSource

        /// A fresh decoding of the source (each call is an independent decoding).
        package func audio() throws(ConversionError) -> SourceAudio {
            SourceAudio(packets: try AACSourceRoute.decoder(file, input))
        }
    }

    /// A `convert` job's AAC source (``SourceStage/open(_:options:warnings:)``): libavcodec
    /// loaded, refused when the job asks for anything but linear PCM of 16 bits or more, or when
    /// the output would replace it.
    package static func admit(
        _ path: String, input: FileByteSource, content: SourceContent, output: String, options: ConversionOptions
    ) throws(ConversionError) -> SourceStage {
        try LibAVCodecLoad.load()
        _ = try target(options)
        if let identity = FileSystem.identity(of: path), identity == FileSystem.identity(of: output) {
            throw .output(.replacesItsSource)
        }
        guard case .caf(let file) = content else { throw .source(.aacUnreadable("not a CAF file")) }
        let decoder = try decoder(file, input)
        let info = SoundInfo(
            frames: decoder.validFrames, sampleRate: decoder.sampleRate, channels: decoder.channels, major: .caf,
            encoding: .float32, endianness: .little)
        return SourceStage(
            path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: nil, probe: nil,
            encoding: .float32, headerFrames: decoder.validFrames,
            codec: .aac(Source(file: file, input: input)))
    }

    /// The linear PCM `-d` asks for: bits, float, byte order.
    package static func target(_ options: ConversionOptions) throws(ConversionError) -> (Int, Bool, ByteOrder) {
        let order = TargetFormat.byteOrder(dataFormat: options.dataFormat, endian: options.endian, sourceOrder: .little)
        guard let kind = options.dataFormat?.kind else { return (16, false, order) }
        if kind.isLinearPCM, let bits = kind.bits {
            guard bits >= 16 || kind.isFloat else { throw .source(.aacBits(bits)) }
            return (bits, kind.isFloat, order)
        }
        throw .source(kind == .aac ? .aacToAAC : .aacToOther)
    }

    /// A decoder of the AAC in `file`.
    package static func decoder(_ file: CAFFile, _ input: FileByteSource) throws(ConversionError) -> AACFileDecoder {
        do { return try AACFileDecoder(file: file, source: input) } catch {
            throw .source(.aacUndecodable(error.message))
        }
    }
}

/// `LibAVCodec.load()` with cafconv's error type.
package enum LibAVCodecLoad {
    package static func load() throws(ConversionError) {
        do { try LibAVCodec.load() } catch { throw .source(.libavcodecMissing(error.message)) }
    }
}

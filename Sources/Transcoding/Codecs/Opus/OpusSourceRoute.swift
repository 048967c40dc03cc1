import BinaryIO
import CAFKit
import ConversionModel
import OggOpus
import Opus
import OutputFiles
import SndFile
import SystemLayer

/// Opus sources: Opus CAFs (Apple's, cafconv's, ffmpeg's) and Ogg Opus streams, decoded by
/// libopus's reference decoder (``OpusFileDecoder``) with the priming (`pakt` priming, Ogg's
/// pre-skip) dropped and the end trimmed to the valid frames (the `pakt`'s, Ogg's last granule
/// position), to any output format. Without `-d` the output is 16-bit, as for every lossy source;
/// `-d opus` or `-d 0` (the same rate and channels) moves its packets instead (``OpusRemux``),
/// except from an Opus CAF in ffmpeg's layout (``untrusted(_:)``).
///
/// The proof: libopus's decoding is deterministic (RFC 6716 makes its decoder normative, and the
/// same packets always decode to the same floats), so a second, independent libopus decoding of
/// the source's bytes is the reference, and a linear PCM output read back by CAFKit must match it
/// sample for sample after the float-to-integer rule; lossy outputs are measured against it.
/// ffmpeg's native Opus decoder is not used as the reference: it drifts 1-3 samples on hybrid
/// packets, so it could only check lengths, which the `pakt` and granule accounting check exactly.
package enum OpusSourceRoute {
    /// An Opus source's bytes, and whether they are a CAF (else Ogg).
    package struct Source {
        /// The CAF, as the content sniff parsed it; `nil` for Ogg Opus.
        package let file: CAFFile?
        /// Its bytes.
        package let input: FileByteSource

        /// A fresh decoding of the source (each call is an independent decoding).
        package func audio() throws(ConversionError) -> SourceAudio {
            SourceAudio(packets: try OpusSourceRoute.decoder(file, input))
        }
    }

    /// Whether `input` starts with an Ogg page whose first packet is an `OpusHead` (RFC 7845).
    package static func isOggOpus(_ input: some ByteSource) -> Bool {
        guard let head = try? input.read(at: 0, count: 27 + 255 + 8), head.count >= 28,
            Array(head.prefix(4)) == Array("OggS".utf8)
        else { return false }
        let start = 27 + Int(head[26])
        return head.count >= start + 8 && Array(head[start..<start + 8]) == Array("OpusHead".utf8)
    }

    /// Whether `content` (of `input`) is an Opus source this route decodes.
    package static func applies(to content: SourceContent, input: some ByteSource) -> Bool {
        switch content {
        case .caf(let file): return file.audioDescription.formatID == .opus
        case .other: return isOggOpus(input)
        default: return false
        }
    }

    /// A `convert` job's Opus source (``SourceStage/open(_:options:warnings:)``): libopus loaded,
    /// the accounting read (no decoding), refused when the output would replace it. An Opus CAF
    /// in ffmpeg's layout (no priming, valid frames = packets x frames per packet) is read, with
    /// the warning that its frame count cannot be trusted; one whose packets' TOC bytes say
    /// another duration than its `desc` (ffmpeg's native encoder) is decoded by the TOC
    /// durations, and a second warning says so.
    package static func admit(
        _ path: String, input: FileByteSource, content: SourceContent, output: String, warnings: inout [ConversionWarning]
    ) throws(ConversionError) -> SourceStage {
        do { try LibOpus.load() } catch { throw .source(.opusUndecodable(error.message)) }
        if let identity = FileSystem.identity(of: path), identity == FileSystem.identity(of: output) {
            throw .output(.replacesItsSource)
        }
        warnings = content.warnings.map(ConversionWarning.source)
        var file: CAFFile?
        if case .caf(let caf) = content { file = caf }
        let decoder = try decoder(file, input)
        if let file, let header = file.packetTableHeader, untrusted(file) {
            warnings.append(
                .source(
                    .opusFrameCountUntrusted(
                        packets: header.numberPackets, framesPerPacket: decoder.framesPerPacket,
                        validFrames: header.numberValidFrames)))
            if let frames = decoder.tocFrames {
                let declared = decoder.framesPerPacket
                warnings.append(.source(.opusDurationsByTOC(packets: header.numberPackets, declared: declared, frames: frames)))
            }
        }
        let info = SoundInfo(
            frames: decoder.validFrames, sampleRate: decoder.sampleRate, channels: decoder.channels,
            major: file == nil ? .ogg : .caf, encoding: .opus, endianness: .little)
        return SourceStage(
            path: path, input: input, content: content, reader: nil, info: info, avcodec: nil, samples: nil, probe: nil,
            encoding: .opus, headerFrames: decoder.validFrames, codec: .opus(Source(file: file, input: input)))
    }

    /// Whether the Opus CAF `file` is in ffmpeg's layout, whose frame count cannot be trusted:
    /// no `kuki`, `pakt` priming and remainder 0 and valid frames = packets x frames per packet
    /// (the encoder's pre-skip dropped; ffmpeg writes no `kuki` that would hold it). A CAF with a
    /// `kuki` (Apple's, cafconv's) so accounted is a stream of pre-skip 0 and no end trimming.
    package static func untrusted(_ file: CAFFile) -> Bool {
        guard !file.chunks.contains(where: { $0.type == .kuki }), let header = file.packetTableHeader else { return false }
        let (capacity, overflow) = header.numberPackets.multipliedReportingOverflow(
            by: Int64(file.audioDescription.framesPerPacket))
        return header.primingFrames == 0 && header.remainderFrames == 0 && header.numberPackets > 0 && !overflow
            && header.numberValidFrames == capacity
    }

    /// A decoder of the Opus in `file` (a CAF), or of the Ogg Opus stream in `input` when `file`
    /// is `nil`.
    package static func decoder(_ file: CAFFile?, _ input: FileByteSource) throws(ConversionError) -> OpusFileDecoder {
        do {
            if let file { return try OpusFileDecoder(file: file, source: input) }
            return try OpusFileDecoder(ogg: input)
        } catch {
            throw .source(.opusUndecodable(error.message))
        }
    }
}

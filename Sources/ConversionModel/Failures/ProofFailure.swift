/// Proof failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.proof`).
public enum ProofFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The written CAF breaks a rule of CAFKit's validator: `finding` is the validator's finding.
    case invalid(finding: String)
    /// The written CAF's samples are not packed linear PCM.
    case notPackedPCM
    /// The written G.711 CAF does not hold one `law` code per channel and frame.
    case notOneCodePerSample(law: String)
    /// The written CAF cannot be read back (`reason`: the reader's error).
    case unreadable(reason: String)
    /// The written CAF holds `found` frames, the source `expected` (the AAC-source road, whose
    /// sentence names no decoder).
    case framesHeld(found: Int64, expected: Int64)
    /// Frame `frame` of the written CAF differs from the source's decoding (the AAC-source road).
    case frameDiffers(frame: Int64)
    /// The written CAF cannot be decoded (`reason`: the decoder's error).
    case undecodable(reason: String)
    /// Decoding the written CAF or its reference failed: `reason` is the decoder's own sentence.
    case decoding(reason: String)
    /// The written CAF has no 'data' chunk to place metadata before.
    case noDataChunk
    /// libsndfile wrote a CAF header of `bytes` bytes, too short to hold a 'data' chunk.
    case shortHeader(bytes: UInt64)
    /// libsndfile's empty CAF does not end with an empty 'data' chunk.
    case emptyDataChunkMissing
    /// Correcting the IMA4 header's frame count changed its length.
    case ima4HeaderLengthChanged
    /// The written CAF holds `found` frames, the source `expected` (as `decoder` decodes it).
    case frameCount(found: Int64, expected: Int64, decoder: String)
    /// A sample differs: at `frame`, `channel` the output holds `found`, the source (as `decoder`
    /// decodes it, after `rule` when one applied) `expected`.
    case sampleDiffers(frame: Int64, channel: Int, found: String, expected: String, decoder: String, rule: String?)
    /// The first or last frames differ from what libsndfile read from the source.
    case probeDiffers(frame: Int64, channel: Int, found: String, expected: String)
    /// The IMA4 output decodes to `output` frames, the source to `source` (as `decoder` decodes it).
    case ima4FrameCount(output: Int64, source: Int64, decoder: String)
    /// The IMA4 output's SNR (rounded to 0.01 dB; `nil`: silent source) is below `floor`;
    /// `errorRMS` in LSB, rounded.
    case ima4SNR(snr: Double?, floor: Double, errorRMS: Double)
    /// A lossy encoder (`encoder`, as sentences name it) gave `packets` packets of
    /// `framesPerPacket` frames for `frames` frames after `priming` priming frames.
    case lossyPackets(encoder: String, packets: Int64, framesPerPacket: Int, frames: Int64, priming: Int)
    /// The written `codec` CAF declares `declared` priming frames, the encoder `encoder`.
    case lossyPriming(codec: String, declared: Int64, encoder: Int)
    /// The `codec` output decodes to at least `found` frames, the source has `expected` (as
    /// `decoder` decodes it).
    case lossyDecodedFrames(codec: String, found: Int64, expected: Int64, decoder: String)
    /// The `codec` output holds `frames` frames, the encoder was given `given`.
    case lossyFrames(codec: String, frames: Int64, given: Int64)
    /// The decoded `codec` audio is `lag` frames late (positive) or early against the source.
    case lossyLag(codec: String, lag: Int)
    /// The decoded `codec` audio's SNR is below `floor` (dB) at `bitRate` b/s.
    case lossySNR(codec: String, snr: Double, floor: Double, bitRate: Int)
    /// The source is near-silent (no window reaches `windowLevel` dBFS) but the decoded `codec`
    /// audio differs from it by `level` dBFS RMS, above `limit`.
    case lossyNearSilentError(codec: String, level: Double, windowLevel: Double, limit: Double)
    /// The `codec` file has `file` channels, the source `source`.
    case lossyChannels(codec: String, file: Int, source: Int)
    /// The source cannot be read again for the comparison.
    case sourceUnreadable(reason: String)
    /// The `codec` file cannot be decoded for the comparison (`reason`: CAFKit's or the
    /// decoder's sentence).
    case lossyUndecodable(codec: String, reason: String)
    /// `--loudness`: the output, measured from its own decoding, is not within 0.1 LU of the
    /// loudness its gain was to reach.
    case loudnessMissed(expected: Double, measured: Double?)
    /// The packets a move wrote are not the source's (`reason`: which, or the accounting).
    case packetsNotMoved(codec: String, reason: String)
    /// A streamed CAF's header carried markers or regions placed for `assumed` frames (or an
    /// unknown length), but the audio held `frames`: the header, already sent, is wrong.
    case streamedMetadata(assumed: UInt64?, frames: Int64)

    /// The kind of failure.
    public var code: ConversionError.Code { .proof }

    /// The reason, in one sentence, without the file's name.
    public var message: String {
        let failed = "the written CAF failed verification:"
        switch self {
        case .invalid(let finding): return "\(failed) \(finding)"
        case .notPackedPCM: return "\(failed) its samples are not packed linear PCM"
        case .notOneCodePerSample(let law): return "\(failed) it does not hold one \(law) code per channel and frame"
        case .unreadable(let reason): return "the written CAF cannot be read back: \(reason)"
        case .frameDiffers(let frame): return "\(failed) frame \(frame) differs from the source's decoding"
        case .framesHeld(let found, let expected): return "the written CAF holds \(found) frames, the source \(expected)"
        case .undecodable(let reason): return "the written CAF cannot be decoded: \(reason)"
        case .decoding(let reason): return reason
        case .noDataChunk: return "the written CAF has no 'data' chunk to place metadata before"
        case .shortHeader(let bytes): return "libsndfile wrote a CAF header of \(bytes) bytes, too short to hold a 'data' chunk"
        case .emptyDataChunkMissing: return "libsndfile's empty CAF does not end with an empty 'data' chunk"
        case .ima4HeaderLengthChanged: return "the IMA4 header changed length when its frame count was corrected"
        case .frameCount(let found, let expected, let decoder):
            return "\(failed) it holds \(found) frames, the source \(expected) (as \(decoder) decodes it)"
        case .sampleDiffers(let frame, let channel, let found, let expected, let decoder, let rule):
            return
                "\(failed) frame \(frame), channel \(channel) holds \(found), the source \(expected) (as \(decoder) decodes it\(rule.map { ", after rule \($0)" } ?? ""))"
        case .probeDiffers(let frame, let channel, let found, let expected):
            return "\(failed) frame \(frame), channel \(channel) holds \(found), the source \(expected)"
        case .ima4FrameCount(let output, let source, let decoder):
            return "\(failed) it decodes to \(output) frames, the source to \(source) (as \(decoder) decodes it)"
        case .ima4SNR(let snr, let floor, let errorRMS):
            let shown = snr.map { "\($0) dB" } ?? "undefined (silent source)"
            return
                "\(failed) its IMA4 audio has an SNR of \(shown) against the source, below the floor of \(floor) dB (error RMS \(errorRMS) LSB)"
        case .lossyPackets(let encoder, let packets, let framesPerPacket, let frames, let priming):
            return "\(encoder) gave \(packets) packets of \(framesPerPacket) frames for \(frames) frames after \(priming) priming frames"
        case .lossyPriming(let codec, let declared, let encoder):
            return "the written \(codec) CAF declares \(declared) priming frames, the encoder \(encoder)"
        case .lossyDecodedFrames(let codec, let found, let expected, let decoder):
            return
                "\(failed) its \(codec) audio decodes to \(found) frames or more, the source has \(expected) (as \(decoder) decodes it)"
        case .lossyFrames(let codec, let frames, let given):
            return "\(failed) its \(codec) audio holds \(frames) frames, the encoder was given \(given)"
        case .lossyLag(let codec, let lag):
            return
                "\(failed) its decoded \(codec) audio is \(lag) frames \(lag > 0 ? "late" : "early") against the source (cross-correlation peak at lag \(lag), not 0)"
        case .lossySNR(let codec, let snr, let floor, let bitRate):
            return
                "\(failed) its decoded \(codec) audio is \(snr) dB from the source (SNR), below the floor of \(floor) dB at \(bitRate) b/s (the encoder kept too little of this audio at this bit rate: raise -b)"
        case .lossyNearSilentError(let codec, let level, let windowLevel, let limit):
            return
                "\(failed) the source is near-silent (no 4096-frame window reaches \(windowLevel) dBFS) but its decoded \(codec) audio differs from it by \(level) dBFS RMS, above \(limit) dBFS"
        case .lossyChannels(let codec, let file, let source): return "the \(codec) file has \(file) channels, the source \(source)"
        case .sourceUnreadable(let reason): return "cannot read the source: \(reason)"
        case .lossyUndecodable(let codec, let reason): return "the \(codec) file cannot be decoded: \(reason)"
        case .loudnessMissed(let expected, let measured):
            return
                "\(failed) it measures \(measured.map { "\(Decibels.tenth($0)) LUFS" } ?? "silent") from its own decoding, not the \(Decibels.tenth(expected)) LUFS its gain was to reach (±0.1 LU)"
        case .packetsNotMoved(let codec, let reason): return "\(failed) its \(codec) packets are not the source's: \(reason)"
        case .streamedMetadata(let assumed, let frames):
            return
                "the streamed CAF's header placed the source's markers and regions for \(assumed.map { "\($0) frames" } ?? "an unknown length"), but the audio held \(frames) frames: write it to a file (-o FILE) to have them placed"
        }
    }

    public var description: String { message }
}

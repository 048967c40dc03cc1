/// Encoding failures of a conversion, one case per failure with its data; `code` and `message`
/// are the one place each becomes its stable code and its sentence (`ConversionError.encoding`).
public enum EncodingFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// AAC has no such sample rate (`hz`: the source's exact rate, or the output's); `rates` are
    /// the ones it has and `nearest` the one `-d aac@RATE` should ask for.
    case aacSampleRate(hz: Double, rates: [Int], nearest: Int)
    /// cafconv's AAC encoder takes 1 to `maximum` channels.
    case aacChannels(Int, maximum: Int)
    /// `-b asked` is outside what AAC takes at this rate and channel count.
    case aacBitRate(asked: Int, sampleRate: Int, channels: Int, lowest: Int, highest: Int)
    /// Opus codes at 8000, 12000, 16000, 24000 and 48000 Hz only; `-d opus@RATE` asked another.
    case opusSampleRate(Int)
    /// cafconv codes Opus in 1 or 2 channels (more need a channel mapping no Apple file shows).
    case opusChannels(Int)
    /// `-b asked` is outside what cafconv's Opus encoder takes for this channel count.
    case opusBitRate(asked: Int, channels: Int, lowest: Int, highest: Int)
    /// IMA4 holds 1 to 1024 channels.
    case ima4Channels(Int)
    /// IMA4 needs a positive sample rate.
    case ima4SampleRate(Int)
    /// libsndfile cannot open a `target` CAF for writing (`reason`: its message).
    case libsndfileCannotWrite(target: String, reason: String)
    /// The written CAF's header is `bytes` bytes, too long to place metadata before its audio.
    case headerTooLong(bytes: UInt64)
    /// The transform plan (resampling, mixing) cannot take the audio: its own sentence.
    case transform(reason: String)
    /// The encoder refused the audio or could not be loaded: its own sentence.
    case encoder(reason: String)
    /// The written `target` cannot be checked (`reason`: libsndfile's message).
    case cannotCheck(target: String, reason: String)
    /// libsndfile's `target` encoder did not reproduce the audio at `frame`, `channel`
    /// (libsndfile `version`).
    case notReproduced(target: String, frame: Int64, channel: Int, version: String)
    /// AAC codes `channels` (6 to 8) with the 4th as the LFE, but the source's 4th channel is
    /// `fourth` (its layout: `layout`).
    case aacLFE(channels: Int, fourth: String, layout: String)
    /// The rules file's settings cannot be applied to this file.
    case rules(RuleError)
    /// Reading the source's bytes failed (`reason`: the reader's error; code `io`).
    case readFailed(reason: String)
    /// Reading the source's samples failed: the reader's own sentence (code `io`).
    case sourceRead(reason: String)
    /// The samples could not be read for the encoder: libsndfile's own sentence (code
    /// `libsndfile`).
    case encoderInput(reason: String)
    /// The source cannot be read (`reason`: the reader's error; code `libsndfile`).
    case sourceUnreadable(reason: String)
    /// An error of no known kind, as it describes itself (code `io`).
    case unexpected(String)

    /// The kind of failure.
    public var code: ConversionError.Code {
        switch self {
        case .aacSampleRate, .aacChannels, .aacBitRate, .opusChannels, .opusBitRate, .opusSampleRate, .ima4Channels, .ima4SampleRate, .libsndfileCannotWrite,
            .headerTooLong, .transform, .encoder, .cannotCheck, .notReproduced, .aacLFE, .rules:
            return .unsupported
        case .readFailed, .sourceRead, .unexpected: return .io
        case .encoderInput, .sourceUnreadable: return .libsndfile
        }
    }

    /// The reason, in one sentence, without the file's name.
    public var message: String {
        switch self {
        case .aacSampleRate(let hz, let rates, let nearest):
            // A whole rate prints as a whole number (44000), a fractional one as it is (22050.5).
            let rate = Int(exactly: hz).map(String.init) ?? "\(hz)"
            return
                "AAC cannot hold \(rate) Hz (it takes \(rates.map(String.init).joined(separator: ", ")) Hz); resample with -d aac@\(nearest)"
        case .aacChannels(let channels, let maximum):
            return "cafconv's AAC encoder takes 1 to \(maximum) channels, not \(channels)"
        case .aacBitRate(let asked, let sampleRate, let channels, let lowest, let highest):
            return
                "-b \(asked): AAC at \(sampleRate) Hz with \(channels) channel\(channels == 1 ? "" : "s") takes \(lowest) to \(highest) bits per second"
        case .opusSampleRate(let rate):
            return "Opus codes at 8000, 12000, 16000, 24000 or 48000 Hz, not \(rate); ask for one with -d opus@RATE (without @, other rates become 48000)"
        case .opusChannels(let channels):
            return
                "cafconv codes Opus in 1 or 2 channels, not \(channels) (an Opus CAF of more channels needs a channel mapping no Apple file has shown); mix it down with -c 2"
        case .opusBitRate(let asked, let channels, let lowest, let highest):
            return
                "-b \(asked): Opus with \(channels) channel\(channels == 1 ? "" : "s") takes \(lowest) to \(highest) bits per second"
        case .ima4Channels(let channels): return "IMA4 holds 1 to 1024 channels; the audio has \(channels)"
        case .ima4SampleRate(let rate): return "IMA4 needs a positive sample rate; the audio has \(rate) Hz"
        case .libsndfileCannotWrite(let target, let reason): return "libsndfile cannot write \(target) CAF: \(reason)"
        case .headerTooLong(let bytes): return "the written CAF's header is \(bytes) bytes; metadata is not placed"
        case .transform(let reason), .encoder(let reason), .sourceRead(let reason), .encoderInput(let reason),
            .unexpected(let reason):
            return reason
        case .cannotCheck(let target, let reason): return "cannot check the written \(target): \(reason)"
        case .notReproduced(let target, let frame, let channel, let version):
            return
                "libsndfile's \(target) encoder did not reproduce the audio (frame \(frame), channel \(channel)); this audio cannot be stored as ALAC by libsndfile \(version), use a PCM format"
        case .aacLFE(let channels, let fourth, let layout):
            return
                "AAC codes \(channels) channels with the 4th as the LFE (bass only, cut above about 120 Hz), but this source's 4th channel is \(fourth) (layout \(layout)); mix it down with -c 2, or keep it as linear PCM"
        case .rules(let error): return error.description
        case .readFailed(let reason): return "reading failed: \(reason)"
        case .sourceUnreadable(let reason): return "cannot read the source: \(reason)"
        }
    }

    public var description: String { message }
}

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
    /// IMA4 holds 1 to 1024 channels.
    case ima4Channels(Int)
    /// IMA4 needs a positive sample rate.
    case ima4SampleRate(Int)

    /// The kind of failure.
    public var code: ConversionError.Code {
        switch self {
        case .aacSampleRate, .aacChannels, .aacBitRate, .ima4Channels, .ima4SampleRate: return .unsupported
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
        case .ima4Channels(let channels): return "IMA4 holds 1 to 1024 channels; the audio has \(channels)"
        case .ima4SampleRate(let rate): return "IMA4 needs a positive sample rate; the audio has \(rate) Hz"
        }
    }

    public var description: String { message }
}

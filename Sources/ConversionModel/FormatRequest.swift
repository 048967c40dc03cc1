/// `convert -d`'s value in afconvert's grammar, `data_format[@sample_rate]`: `LEI16@22050`,
/// `F32@44100`, or `0@22050` (afconvert's `0`: the source's own format) to change only the rate.
/// The `@RATE` part is split off here and the format goes to `DataFormat(parsing:vocabulary:)` unchanged.
public struct FormatRequest: Equatable, Sendable, CustomStringConvertible {
    /// The data format; `nil` for `0` (keep the source's format).
    public var format: DataFormat?
    /// The sample rate after `@`, in Hz; `nil` keeps the source's.
    public var sampleRate: Int?
    /// The text as given.
    public var text: String

    /// Sample rates `@RATE` accepts, in Hz.
    public static let rates = 1000...768_000

    public var description: String { text }

    /// Parses `FMT`, `FMT@RATE` or `0@RATE` against the codecs in `vocabulary`, or throws a usage
    /// error that says what is wrong.
    public init(parsing text: String, vocabulary: DataFormat.Vocabulary) throws(DataFormatError) {
        self.text = text
        var formatText = Substring(text)
        if let at = text.firstIndex(of: "@") {
            // afconvert: data_format[@sample_rate][/format_flags][#frames_per_packet].
            let after = text[text.index(after: at)...]
            let end = after.firstIndex { $0 == "/" || $0 == "#" } ?? after.endIndex
            let rateText = after[..<end]
            formatText = text[..<at] + after[end...]
            guard let rate = Int(rateText), Self.rates.contains(rate) else {
                throw DataFormatError(
                    "'\(text)': the sample rate after '@' must be a whole number of Hz from \(Self.rates.lowerBound) to \(Self.rates.upperBound), not '\(rateText)'"
                )
            }
            if text[..<at].isEmpty {
                throw DataFormatError(
                    "'\(text)': give a data format before '@' (afconvert's '0@\(rate)' keeps the source's format and changes only the rate)"
                )
            }
            sampleRate = rate
        } else {
            sampleRate = nil
        }
        format = formatText == "0" ? nil : try DataFormat(parsing: String(formatText), vocabulary: vocabulary)
    }
}

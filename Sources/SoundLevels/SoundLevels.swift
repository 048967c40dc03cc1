/// What the report needs of one file's samples, measured in the one pass that reads them: the
/// envelope, the peaks and (when libebur128 measured it) the integrated loudness. `convert
/// --report` fills it while the conversion decodes the source and the proof decodes the output
/// (`FileResult.sourceLevels`, `outputLevels`); `cafconv report` while it reads each file once.
public struct SoundLevels: Equatable, Sendable {
    /// The min/max envelope per channel (``SoundMeter/defaultColumns`` columns at most).
    public var envelope: Envelope
    /// The highest absolute sample of any channel (full scale 1.0).
    public var samplePeak: Double
    /// The true peak (full scale 1.0): libebur128's (BS.1770, 4x oversampled) when it measured
    /// the file, else the meter's own interpolator.
    public var truePeak: Double
    /// Integrated loudness in LUFS (BS.1770 / EBU R 128; a clip under 400 ms: its ungated
    /// loudness); `nil` when silent (below the -70 LUFS gate) or not measured.
    public var loudness: Double?
    /// Why the loudness was not measured (libebur128 missing, a rate it refuses, a sample that
    /// is not a finite number); `nil` when it was.
    public var loudnessUnmeasured: String?
    /// Frames per second as the decoder gives them.
    public var sampleRate: Double
    /// Who decoded the samples (`cafconv`, `libsndfile`, ...).
    public var decoderName: String

    public init(
        envelope: Envelope, samplePeak: Double, truePeak: Double, loudness: Double?, loudnessUnmeasured: String?,
        sampleRate: Double, decoderName: String
    ) {
        self.envelope = envelope
        self.samplePeak = samplePeak
        self.truePeak = truePeak
        self.loudness = loudness
        self.loudnessUnmeasured = loudnessUnmeasured
        self.sampleRate = sampleRate
        self.decoderName = decoderName
    }

    /// Channels measured.
    public var channels: Int { envelope.channels.count }
    /// Frames measured.
    public var frames: Int64 { envelope.frames }
}

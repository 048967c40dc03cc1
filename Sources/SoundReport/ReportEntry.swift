import SoundLevels

/// A position in a file's metadata drawn on its waveform: a marker (one frame) or a span of
/// frames (a loop or a region).
public struct ReportMark: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case marker, loop, region
    }

    public var kind: Kind
    /// The first frame (the marker's frame).
    public var start: Double
    /// The frame after the last, for loops and regions.
    public var end: Double?
    /// Its label: a name from the file, or what it is.
    public var label: String

    public init(kind: Kind, start: Double, end: Double? = nil, label: String) {
        self.kind = kind
        self.start = start
        self.end = end
        self.label = label
    }
}

/// What one file's measurement gives the report: its description, its levels and its envelope.
public struct ReportSound: Equatable, Sendable {
    /// The path as given or found.
    public var path: String
    /// `CAF`, `WAV`, `AIFF`, or what the decoder says.
    public var container: String?
    /// The format, as `info --brief` says it (`16-bit little-endian signed integer`...).
    public var format: String?
    /// The format line, as `info --brief` prints it without the path.
    public var formatLine: String?
    public var channels: Int?
    public var sampleRate: Double?
    public var frames: Int64?
    /// Bytes of the file.
    public var bytes: UInt64?
    /// The highest absolute sample (full scale 1.0), when measured.
    public var samplePeak: Double?
    /// The true peak (4x oversampled), when measured.
    public var truePeak: Double?
    /// Integrated loudness in LUFS, when measured.
    public var loudness: Double?
    /// Why the loudness was not measured, when it was not; `nil` with no loudness: silent.
    public var loudnessUnmeasured: String? = "not measured"
    public var envelope: Envelope?
    /// Loops, markers and regions from the metadata, in frames of this file.
    public var marks: [ReportMark]

    public init(
        path: String, container: String? = nil, format: String? = nil, formatLine: String? = nil, channels: Int? = nil,
        sampleRate: Double? = nil, frames: Int64? = nil, bytes: UInt64? = nil, samplePeak: Double? = nil,
        truePeak: Double? = nil, loudness: Double? = nil, envelope: Envelope? = nil, marks: [ReportMark] = []
    ) {
        self.path = path
        self.container = container
        self.format = format
        self.formatLine = formatLine
        self.channels = channels
        self.sampleRate = sampleRate
        self.frames = frames
        self.bytes = bytes
        self.samplePeak = samplePeak
        self.truePeak = truePeak
        self.loudness = loudness
        self.envelope = envelope
        self.marks = marks
    }

    /// Seconds, when the frames and the rate are known.
    public var duration: Double? {
        guard let frames, let sampleRate, sampleRate > 0 else { return nil }
        return Double(frames) / sampleRate
    }

    /// Bits per second of the whole file, when its size and duration are known.
    public var bitRate: Double? {
        guard let bytes, let duration, duration > 0 else { return nil }
        return Double(bytes) * 8 / duration
    }
}

/// One row of the report: a file, and with `--against` its source.
public struct ReportEntry: Equatable, Sendable {
    /// The name shown (the path relative to the folder given, or the path).
    public var name: String
    public var sound: ReportSound
    /// The source it was compared with or made from.
    public var source: ReportSound?
    /// How the file was proven to hold its source (the proof line), when it was.
    public var proof: String?
    /// A lossy codec's measured signal-to-noise ratio against the source, in dB.
    public var snr: Double?
    public var warnings: [String]
    /// Why the file failed, when it did.
    public var failure: String?

    public init(
        name: String, sound: ReportSound, source: ReportSound? = nil, proof: String? = nil, snr: Double? = nil,
        warnings: [String] = [], failure: String? = nil
    ) {
        self.name = name
        self.sound = sound
        self.source = source
        self.proof = proof
        self.snr = snr
        self.warnings = warnings
        self.failure = failure
    }
}

extension ReportSound {
    /// Takes the envelope, frames, peaks and loudness of `levels` (and the channels and rate
    /// when the file's description gave none).
    public mutating func apply(_ levels: SoundLevels) {
        envelope = levels.envelope
        frames = levels.frames
        samplePeak = levels.samplePeak
        truePeak = levels.truePeak
        loudness = levels.loudness
        loudnessUnmeasured = levels.loudnessUnmeasured
        if channels == nil { channels = levels.channels }
        if sampleRate == nil { sampleRate = levels.sampleRate }
        if format == nil { format = "decoded by \(levels.decoderName)" }
    }
}

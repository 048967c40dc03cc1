import AACCodec
import BinaryIO
import SystemLayer
import CAFKit
import SndFile
import WAVEKit

/// Options that decide what a conversion writes.
public struct ConversionOptions: Sendable, Equatable {
    /// `-d`: the output data format; `nil` keeps the source's format where CAF can hold it.
    public var dataFormat: DataFormat?
    /// `--endian`: the output byte order; `nil` means the `-d` prefix, else little-endian.
    public var endian: EndianChoice?
    /// `-j`: how many files to convert at once.
    public var jobs: Int
    /// Samples (all channels) moved per block; bounds memory per job.
    public var blockSamples: Int
    /// `--force`: convert every input, even when its output is up to date.
    public var force: Bool
    /// `--dry-run` / `--check`: decide what is out of date and write nothing at all.
    public var dryRun: Bool
    /// `--prune`: delete outputs cafconv made whose source is gone.
    public var prune: Bool
    /// Move linear PCM sample bytes without decoding them when the output holds the same samples
    /// (copied by the kernel, byte-swapped or sign-flipped); `false` sends every sample through
    /// libsndfile. The output bytes are the same either way.
    public var directPayload: Bool
    /// `--strip-metadata`: write no loops, markers, regions, instrument or text chunks
    /// (docs/metadata.md); only the chunks the audio needs.
    public var stripMetadata: Bool
    /// `-d FMT@RATE`: the output's sample rate in Hz; `nil` keeps the source's.
    public var sampleRate: Int?
    /// `-c`: the output's channel count; `nil` keeps the source's.
    public var channels: Int?
    /// `--mix` (the default) / `--no-mix`: whether a channel count change mixes (1 → 2 copies, N → 2
    /// and N → 1 downmix by ITU-R BS.775) or keeps the first channels (adding silent ones).
    public var mix: Bool
    /// `--src-quality`: libsoxr's recipe when the rate changes (default VHQ).
    public var srcQuality: RateQuality
    /// `--dither`: TPDF dither where samples become integers of fewer bits (default none).
    public var dither: Dither
    /// `-d ima4`: how hard the IMA4 encoder searches (``IMA4Encoder/Options/standard``, the beam
    /// of 12 states, by default). Part of the fingerprint for IMA4 outputs.
    public var ima4Search: IMA4Encoder.Options = .standard
    /// `-d ima4`: the proof's floor in dB; an IMA4 output whose SNR against the source is lower
    /// (and whose error is louder than the IMA4 proof's quiet error) fails. See `IMA4Proof`.
    public var ima4MinimumSNR: Double = Self.defaultIMA4Floor
    /// The IMA4 proof's default SNR floor in dB (docs/ima4.md says how it was chosen).
    public static let defaultIMA4Floor: Double = 10
    /// `--shard K/N`: convert only this shard's share of the planned files (run-wide; not part of
    /// the fingerprint).
    public var shard: Shard? = nil
    /// `-b`: the total bit rate of `-d aac`, in bits per second; `nil` takes the default for the
    /// source's channel count (64 kb/s per channel, at most AAC's ceiling for the rate).
    public var bitRate: Int?
    /// `-s`: afconvert's bit-rate strategy (0 constant, 1 average, 2 constrained variable, 3
    /// variable); `-d opus` codes CBR for 0 and constrained VBR otherwise (the default); `-d aac`
    /// refuses 0 (libavcodec's encoder has no CBR mode) and codes its one mode, an average bit
    /// rate, for 1-3. Its part of the fingerprint is the codec's.
    public var bitRateStrategy: Int?
    /// `-d 0` (afconvert's "keep the source's format"): a source whose codec cafconv writes (an
    /// Ogg Opus stream) keeps it, its packets moved; any other source is converted as without `-d`.
    public var keepsSourceCodec = false
    /// `--reencode`: decode and encode again where the packets would be moved (`-d opus` or
    /// `-d 0` on an Ogg Opus source).
    public var reencode = false
    /// The codec names `-d` and a rules file's `format` accept: the codec registry's
    /// (`OutputCodecs.vocabulary`, which the command line and the rules file set), linear PCM
    /// alone by default. Not part of the fingerprint: it decides what parses, not what is written.
    public var codecs: DataFormat.Vocabulary = .linearPCMOnly
    /// `--loudness`: the integrated loudness (LUFS, ITU-R BS.1770-4) each output is brought to by
    /// one static gain applied before the encoder; `nil` leaves levels alone.
    public var loudnessTarget: Double? = nil
    /// `--true-peak`: the ceiling (dBTP) that gain may not take the output's true peak above.
    public var truePeakCeiling: Double = -1
    /// The gain in dB the converter chose for this job from its source's measurement (set per
    /// job, never by the user; the transforms apply it). `nil`: none.
    public var loudnessGain: Double? = nil
    /// `convert --report`: each job measures its source and its output (envelope, peaks,
    /// loudness) while it decodes them anyway, into `FileResult.sourceLevels`/`outputLevels`.
    /// Not part of the fingerprint: it decides what is measured, not what is written.
    public var measuresLevels = false
    /// `-o -` (stdout): the descriptor a linear PCM output is streamed to as it is made (a CAF
    /// whose `data` size is -1, proved block by block) instead of a file; `nil` writes files. Other
    /// outputs ignore it. Not part of the fingerprint: it decides where the bytes go, not which.
    public var streamsTo: Int32? = nil
    /// `--loudness-group`: files of one group get one gain, so their relative levels stay (as
    /// album gain). `"folder"`: the files of each source folder; any other name: every file of
    /// the run given that name. `nil`: each file its own gain.
    public var loudnessGroup: String? = nil
    /// The gain the engine planned for this job's whole group before converting any member (set
    /// per job, never by the user). `nil`: the converter measures the file alone.
    public var loudnessGroupPlan: LoudnessGroupPlan? = nil

    /// The most files `convert` runs at once unless `-j` says otherwise. On a quiet 16-core
    /// machine (issue 34: 400 WAVs to LEI16 in one output folder) `-j 8` was the fastest seen
    /// (0.030 s) and every count above it slower (0.059 s at `-j 10`, 0.077-0.091 s at `-j 16`,
    /// 0.104 s at `-j 24`); see docs/internals.md, "How many jobs".
    public static let defaultJobsCap = 8

    /// The default `-j` on a machine with `processors` processors: all of them, at most
    /// ``defaultJobsCap``.
    public static func defaultJobs(processors: Int = Syscall.processorCount) -> Int {
        min(max(1, processors), defaultJobsCap)
    }

    /// Creates options; `jobs` defaults to ``defaultJobs``.
    public init(
        dataFormat: DataFormat? = nil, endian: EndianChoice? = nil, jobs: Int? = nil, blockSamples: Int = 1 << 16,
        force: Bool = false, dryRun: Bool = false, prune: Bool = false, directPayload: Bool = true,
        sampleRate: Int? = nil, channels: Int? = nil, mix: Bool = true, srcQuality: RateQuality = .vhq,
        dither: Dither = .none,
        stripMetadata: Bool = false, bitRate: Int? = nil
    ) {
        self.bitRate = bitRate
        self.dataFormat = dataFormat
        self.endian = endian
        self.jobs = max(1, jobs ?? Self.defaultJobs())
        self.blockSamples = max(1, blockSamples)
        self.force = force
        self.dryRun = dryRun
        self.prune = prune
        self.directPayload = directPayload
        self.stripMetadata = stripMetadata
        self.sampleRate = sampleRate
        self.channels = channels
        self.mix = mix
        self.srcQuality = srcQuality
        self.dither = dither
    }

    /// Version of the conversion rules; bump it when the same options would write different bytes,
    /// so every output recorded by an older cafconv is converted again. 2: compressed sources
    /// end at the header's frame count (`fact`), 24-bit samples in 4-byte slots are decoded by
    /// cafconv, and µ-law and A-law codes come from cafconv's G.711 encoder (libsndfile's coded
    /// -32768 as positive full scale). 3: the source's loops, markers and text are written as
    /// `info`, `inst`, `regn`, `mark` and `strg` chunks, and lossy codecs (MP3, Vorbis, Opus; MP3
    /// in WAV was already accepted) are read as the decoder's floats and mapped by the
    /// float-to-integer rule, instead of libsndfile's 16-bit integers.
    public static let rulesVersion = 3

    /// What decides the bytes of an output besides its source: the rules version, the resolved
    /// `-d` format, then each setting's part (``Settings/all``): `--endian`; the rate with
    /// `--src-quality` when `@RATE` is given, the channels with `--mix`/`--no-mix` when `-c` is,
    /// `--dither tpdf` and `--strip-metadata`. (Without those options the text is what it was
    /// before they existed, so earlier outputs stay up to date.) `-j` and the block size change
    /// nothing and are left out. `format` is the data format's part, which its codec decides
    /// (`OutputCodecs.fingerprint`): `source` without `-d`.
    public func fingerprint(format: String) -> String {
        let order = dataFormat?.byteOrder.map { $0 == .little ? "LE" : "BE" } ?? ""
        // Each setting adds its own part (Settings.all), in table order.
        return Settings.all.reduce("rules=\(Self.rulesVersion);d=\(order)\(format)") { $0 + $1.fingerprint(self) }
    }

    /// Checks that the options agree with each other.
    public func validate() throws(DataFormatError) {
        if let bitRate {
            guard dataFormat?.kind.takesBitRate == true else {
                throw DataFormatError(
                    "-b sets the bit rate of -d \(codecs.bitRateNames); it does nothing for -d \(dataFormat?.text ?? "(source format)")")
            }
            guard bitRate > 0 else { throw DataFormatError("-b \(bitRate): the bit rate must be positive (bits per second, e.g. 128000)") }
        }
        if bitRateStrategy != nil, dataFormat?.kind.takesBitRate != true {
            throw DataFormatError(
                "-s sets the bit-rate strategy of -d \(codecs.bitRateNames); it does nothing for -d \(dataFormat?.text ?? "(source format)")")
        }
        // libavcodec's AAC encoder has one mode, an average bit rate at -b (its packets vary in
        // size): a constant bit rate asked of it would be ignored without a word.
        if bitRateStrategy == 0, dataFormat?.kind.codec == "aac" {
            throw DataFormatError(
                "-s 0 asks for a constant bit rate, which -d aac cannot give: libavcodec's AAC encoder has no constant-bit-rate mode (it codes an average bit rate at -b, its packets varying in size); -s 1 to 3 change nothing for -d aac")
        }
        if let kind = dataFormat?.kind, let name = kind.byteOrderless, endian != nil {
            throw DataFormatError("--endian does not apply to -d \(kind.codec) (\(name) packets have no byte order)")
        }
        if let endian, endian == .little || endian == .big,
            let problem = dataFormat?.disagreement(withEndian: endian.rawValue)
        {
            throw problem
        }
        if dataFormat?.byteOrder != nil, let endian, endian == .native || endian == .source {
            throw DataFormatError("-d \(dataFormat?.text ?? "") already names a byte order; drop --endian \(endian.rawValue)")
        }
        // A group shares one loudness gain: without a target there is no gain to share, and
        // ignoring the group silently would leave the levels as they are without a word.
        if let group = loudnessGroup, loudnessTarget == nil {
            throw DataFormatError(
                "loudness-group \(group) shares one loudness gain among a group's files, but no loudness target is set: give --loudness LUFS (or loudness in the rules file) with it")
        }
    }
}

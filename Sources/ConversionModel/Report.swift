import SoundLevels

/// What happened to one input.
public struct FileResult: Equatable, Sendable, Codable {
    /// How a file ended.
    public enum Status: String, Sendable, Codable {
        case converted
        case upToDate = "up-to-date"
        case failed
        case skipped
        /// `--dry-run` / `--check`: the output is missing or out of date and would be converted.
        case outOfDate = "out-of-date"
        /// An output cafconv made earlier whose source is gone (kept; `--prune` deletes it).
        case orphaned
        /// An orphaned output deleted by `--prune`.
        case pruned
        /// A file in a folder input that was not taken as an input: excluded by `--include` /
        /// `--exclude`, an output cafconv wrote, or a name without an audio extension (the
        /// reason says which).
        case ignored
    }

    /// How the samples travelled from the input to the output.
    public enum Transfer: String, Sendable, Codable {
        /// The bytes were already right: the kernel copied them (copy_file_range).
        case copied
        /// Each sample's bytes were reversed (little- to big-endian or back), nothing else.
        case byteSwapped = "byte-swapped"
        /// Unsigned 8-bit samples became signed ones (the top bit flipped), nothing else.
        case signFlipped = "sign-flipped"
        /// libsndfile decoded and encoded every sample (format or precision changed).
        case libsndfile
        /// cafconv's own WAV reader decoded every sample (a layout libsndfile misreads, such as
        /// 24-bit samples in 4-byte slots) and libsndfile encoded them.
        case cafconv = "cafconv-decoded"
        /// cafconv's G.711 encoder made the µ-law or A-law codes from every sample (as cafconv's
        /// own WAV reader, or libsndfile for formats cafconv does not decode, decoded them).
        case g711Encoded = "g711-encoded"
        /// cafconv's transform stage mixed, resampled (libsoxr) or dithered every sample (as
        /// libsndfile decoded them) and libsndfile or cafconv's G.711 encoder encoded them.
        case transformed
        /// CAFKit's IMA4 encoder made the packets and CAFKit's writer the file (`-d ima4`).
        case ima4Encoded = "ima4-encoded"
        /// libavcodec's AAC-LC encoder encoded every sample (`-d aac`; the proof measures how close).
        case aacEncoded = "aac-encoded"
        /// libopus's encoder encoded every sample (`-d opus`; the proof measures how close).
        case opusEncoded = "opus-encoded"
        /// An Ogg Opus source's packets were moved into the CAF byte for byte (no decoding).
        case opusMoved = "opus-moved"
        /// An M4A/MP4 or ADTS AAC source's packets were moved into the CAF byte for byte (no decoding).
        case aacMoved = "aac-moved"
        /// libavcodec's AAC decoder decoded every sample of an AAC CAF source (`AACSourceRoute`).
        case aacDecoded = "aac-decoded"
        /// libopus's decoder decoded every sample of an Opus source (`OpusSourceRoute`).
        case opusDecoded = "opus-decoded"
    }

    /// The input path.
    public var input: String
    /// The output path, when one was planned.
    public var output: String?
    /// How it ended.
    public var status: Status
    /// Why it failed or was skipped, why it was (or would be) converted, or why it is orphaned.
    public var reason: String?
    /// The kind of failure (`failed`, and `skipped` by an interruption): stable across releases.
    public var code: ConversionError.Code?
    /// Recoverable problems found in the input and what was done about them.
    public var warnings: [ConversionWarning]
    /// The input's format, afconvert-style (`LEI24`, `UI8`, `ima-adpcm`...).
    public var formatIn: String?
    /// The output's format, afconvert-style (`LEI16`, `BEF32`, `alac24`...).
    public var formatOut: String?
    /// Channels.
    public var channels: Int?
    /// Frames per second.
    public var sampleRate: Int?
    /// Frames written.
    public var frames: Int64?
    /// Bytes of the output file.
    public var bytes: UInt64?
    /// Wall time spent on this file.
    public var milliseconds: Double?
    /// How the samples travelled, for converted files.
    public var samples: Transfer?
    /// How the output was proven to hold the source's audio, for converted files.
    public var proof: Proof?
    /// What governs the file in its rules file (`rule 2 'sfx/**' (Sounds/cafconv.toml:7)`, or
    /// `defaults (...)`); absent without a rules file.
    public var rule: String?
    /// Bytes of the source file (converted, up-to-date and out-of-date files).
    public var bytesIn: UInt64?
    /// The rules file that applies to the file, if any (a dependency of the output: `--depfile`).
    public var rulesFile: String?
    /// The failure itself, as a value (``record(_:)`` sets it with ``reason`` and ``code``): what
    /// programs and tests match. Not in the JSON report, which carries its code and sentence.
    public var error: ConversionError?
    /// `--loudness`: the source's measured loudness and the gain that took the output to it.
    public var loudness: Loudness?
    /// `convert --report` (``ConversionOptions/measuresLevels``): the source's envelope, peaks and
    /// loudness, measured while the conversion decoded it. Not in the JSON report.
    public var sourceLevels: SoundLevels?
    /// The same of the output, measured while the proof decoded it (a direct payload's and a
    /// G.711 copy's are the source's, whose sample values they keep). Not in the JSON report.
    public var outputLevels: SoundLevels?

    /// `--loudness`: what was measured and applied (LUFS, dB, dBTP).
    public struct Loudness: Equatable, Sendable, Codable {
        /// The source's integrated loudness (a clip under 400 ms: its ungated loudness).
        public var source: Double?
        /// The static gain applied before the encoder.
        public var gain: Double
        /// The loudness asked, and the loudness the gain reaches (below the target when the
        /// true-peak ceiling capped it).
        public var target: Double, reached: Double
        /// The true-peak ceiling.
        public var ceiling: Double
        /// Whether the source is shorter than one 400 ms gating block (the short-clip rule).
        public var shortClip: Bool
        /// `--loudness-group`: the group whose one gain this is, its file count and its
        /// loudness (all members gated together); `reached` is then the group's.
        public var group: String?
        public var groupFiles: Int?
        public var groupLoudness: Double?

        public init(
            source: Double?, gain: Double, target: Double, reached: Double, ceiling: Double, shortClip: Bool,
            group: String? = nil, groupFiles: Int? = nil, groupLoudness: Double? = nil
        ) {
            self.source = source
            self.gain = gain
            self.target = target
            self.reached = reached
            self.ceiling = ceiling
            self.shortClip = shortClip
            self.group = group
            self.groupFiles = groupFiles
            self.groupLoudness = groupLoudness
        }
    }

    private enum CodingKeys: String, CodingKey {
        case input, output, status, reason, code, warnings, formatIn, formatOut, channels, sampleRate, frames, bytes
        case milliseconds, samples, proof, rule, bytesIn, rulesFile, loudness
    }

    /// Creates a result.
    public init(
        input: String, output: String? = nil, status: Status, reason: String? = nil, warnings: [ConversionWarning] = [],
        formatIn: String? = nil, formatOut: String? = nil, channels: Int? = nil, sampleRate: Int? = nil,
        frames: Int64? = nil, bytes: UInt64? = nil, milliseconds: Double? = nil
    ) {
        self.input = input
        self.output = output
        self.status = status
        self.reason = reason
        self.warnings = warnings
        self.formatIn = formatIn
        self.formatOut = formatOut
        self.channels = channels
        self.sampleRate = sampleRate
        self.frames = frames
        self.bytes = bytes
        self.milliseconds = milliseconds
    }

    /// A failure from its error (see ``record(_:)``).
    public static func failed(_ input: String, output: String? = nil, error: ConversionError) -> FileResult {
        var result = FileResult(input: input, output: output, status: .failed)
        result.record(error)
        return result
    }

    /// Puts an error into the record: the one place where a ``ConversionError`` becomes the
    /// `reason` (the text output's sentence and the JSON's `reason`) and the `code` (the JSON's
    /// `code`), so the two cannot disagree; ``error`` keeps the value. The status is left to the
    /// caller.
    public mutating func record(_ error: ConversionError) {
        reason = error.message
        code = error.code
        self.error = error
    }
}

/// Counts over a whole run.
public struct Totals: Equatable, Sendable, Codable {
    /// Files converted.
    public var converted = 0
    /// Files already up to date.
    public var upToDate = 0
    /// Files that failed.
    public var failed = 0
    /// Files skipped (not started because the run was interrupted).
    public var skipped = 0
    /// Files that would be converted (`--dry-run`, `--check`).
    public var outOfDate = 0
    /// Outputs whose source is gone, kept.
    public var orphaned = 0
    /// Orphaned outputs deleted by `--prune`.
    public var pruned = 0
    /// Files found in folder inputs and not taken as inputs (see ``FileResult/Status/ignored``).
    public var ignored = 0
    /// Bytes written.
    public var bytes: UInt64 = 0
    /// Wall time of the run.
    public var milliseconds: Double = 0

    /// Empty totals.
    public init() {}
}

/// The result of a whole run: one record per input, in plan order, and the totals.
public struct ConversionReport: Equatable, Sendable, Codable {
    /// One record per input.
    public var files: [FileResult]
    /// Sums over `files`.
    public var totals: Totals
    /// Whether SIGINT or SIGTERM stopped the run before every file was done.
    public var interrupted = false
    /// Warnings about the run as a whole (an output folder inside the input tree, say).
    public var warnings: [ConversionWarning] = []
    /// Bytes in and out per rule, when a rules file applies (``sizes(of:)``).
    public var rules: [RuleSize]?
    /// Each output's dependencies (its source, its rules file) with their paths as they are on
    /// disk, before the report escapes names for display: what `--depfile` writes. Not in JSON.
    public var dependencies: [Dependency] = []

    /// One output and the files it was made from, paths as bytes-faithful strings (``PathBytes``).
    public struct Dependency: Equatable, Sendable {
        public var output: String
        public var inputs: [String]
        public init(output: String, inputs: [String]) {
            self.output = output
            self.inputs = inputs
        }
    }

    private enum CodingKeys: String, CodingKey {
        case files, totals, interrupted, warnings, rules
    }

    /// What the files one rule governs weigh: sources in, CAF files out.
    public struct RuleSize: Equatable, Sendable, Codable {
        /// The rule, as ``FileResult/rule`` names it.
        public var rule: String
        /// Files governed whose output exists (converted or up to date).
        public var files: Int
        /// Bytes of their sources.
        public var bytesIn: UInt64
        /// Bytes of their outputs.
        public var bytesOut: UInt64
    }

    /// Sums the files that have an output (converted or up to date) by rule, in the order the
    /// rules first appear. `--dry-run` counts the sources only (nothing is written).
    public static func sizes(of files: [FileResult]) -> [RuleSize] {
        var sizes: [RuleSize] = []
        for file in files {
            guard let rule = file.rule, [.converted, .upToDate, .outOfDate].contains(file.status) else { continue }
            var index = sizes.firstIndex { $0.rule == rule }
            if index == nil {
                sizes.append(RuleSize(rule: rule, files: 0, bytesIn: 0, bytesOut: 0))
                index = sizes.count - 1
            }
            guard let index else { continue }
            sizes[index].files += 1
            sizes[index].bytesIn += file.bytesIn ?? 0
            if file.status != .outOfDate { sizes[index].bytesOut += file.bytes ?? 0 }
        }
        return sizes
    }

    /// Builds a report and its totals.
    public init(files: [FileResult], milliseconds: Double) {
        self.files = files
        var totals = Totals()
        for file in files {
            switch file.status {
            case .converted:
                totals.converted += 1
                totals.bytes += file.bytes ?? 0
            case .upToDate: totals.upToDate += 1
            case .failed: totals.failed += 1
            case .skipped: totals.skipped += 1
            case .outOfDate: totals.outOfDate += 1
            case .orphaned: totals.orphaned += 1
            case .pruned: totals.pruned += 1
            case .ignored: totals.ignored += 1
            }
        }
        totals.milliseconds = milliseconds
        self.totals = totals
    }

    /// Whether every input converted or was up to date.
    public var succeeded: Bool { totals.failed == 0 }

    /// Whether nothing needs doing: no failure, nothing out of date, no orphan, not interrupted
    /// (what `--check` asks).
    public var isCurrent: Bool {
        totals.failed == 0 && totals.outOfDate == 0 && totals.orphaned == 0 && totals.skipped == 0
            && totals.converted == 0 && !interrupted
    }
}

import AACCodec
import BinaryIO
import CAFKit
import ConversionModel
import Loudness
import OutputFiles
import SndFile
import Transcoding

/// A target platform's rules for assets, selectable with `--profile`.
public enum Profile: String, Sendable, CaseIterable, Codable {
    /// Apple notification sounds: linear PCM, IMA4, µ-law or A-law, at most 30 seconds.
    case iosNotification = "ios-notification"
    /// Little-endian linear PCM, as afconvert -d LEI16/LEI24/LEF32 writes for iOS and macOS assets.
    case appleLPCM = "apple-lpcm"

    /// The `-d` kinds whose files the profile accepts, in the order its failure lists their
    /// formats (`'lpcm', 'ima4', 'ulaw', 'alaw'`); the format IDs are the codecs' own.
    package var accepted: [DataFormat.Kind] {
        switch self {
        case .iosNotification: return [.linearPCM(bits: 16, isFloat: false), .ima4, .ulaw, .alaw]
        case .appleLPCM: return [.linearPCM(bits: 16, isFloat: false)]
        }
    }

    /// The CAF format IDs the profile accepts, from the codec registry (``OutputCodecs``).
    package var formats: [FourCC] { accepted.flatMap { OutputCodecs.codec(asked: $0).formatIDs } }

    package var maxDuration: Double? { self == .iosNotification ? 30 : nil }
    package var byteOrder: ByteOrder? { self == .appleLPCM ? .little : nil }
}

/// What `cafconv verify` expects of every file, beyond the rules of the CAF specification.
public struct VerifyOptions: Sendable, Equatable {
    /// `--endian little|big`.
    public var byteOrder: ByteOrder?
    /// `-d`: the data format.
    public var dataFormat: DataFormat?
    /// `--rate`.
    public var sampleRate: Double?
    /// `--channels`.
    public var channels: Int?
    /// `--max-duration` in seconds.
    public var maxDuration: Double?
    /// `--against`: a source WAV file, or a folder mirrored as `convert -o` mirrors it.
    public var against: String?
    /// `--profile`.
    public var profile: Profile?
    /// `--min-snr`: the floor in dB an IMA4 file compared with `--against` must reach (the same
    /// measure as `convert`'s proof, ``IMA4Proof``); `nil` uses ``IMA4Proof/defaultFloor``.
    public var minimumSNR: Double?
    /// `--loudness` and `--max-true-peak`: bounds on the loudness measured from the file's own
    /// decoding (``LoudnessGate``).
    public var loudness = LoudnessBounds()

    /// Creates options; every field is optional.
    public init(
        byteOrder: ByteOrder? = nil, dataFormat: DataFormat? = nil, sampleRate: Double? = nil,
        channels: Int? = nil, maxDuration: Double? = nil, against: String? = nil, profile: Profile? = nil
    ) {
        self.byteOrder = byteOrder
        self.dataFormat = dataFormat
        self.sampleRate = sampleRate
        self.channels = channels
        self.maxDuration = maxDuration
        self.against = against
        self.profile = profile
    }

    /// The expectations `CAFValidator` checks (the same call `convert` makes after writing).
    package var expectations: CAFExpectations {
        var expected = CAFExpectations()
        expected.byteOrder = dataFormat?.byteOrder ?? byteOrder ?? profile?.byteOrder
        if let kind = dataFormat?.kind { OutputCodecs.codec(asked: kind).verifyExpectations(&expected, asked: kind) }
        expected.sampleRate = sampleRate
        expected.channels = channels.map { UInt32($0) }
        return expected
    }
}

/// The rules `verify` checks beyond ``CAFRule`` (which `CAFValidator` checks). The raw value is
/// the rule's stable ``code``, the name text and JSON reports show.
public enum VerifyRule: String, CaseIterable, Sendable, Codable {
    /// A folder given to `verify` holds at least one `*.caf` file.
    case cafFiles = "caf-files"
    /// The path is a file that can be read.
    case readable
    /// The file is a CAF file the reader can parse.
    case caf
    /// `--profile`: the format is one the profile allows.
    case profileFormat = "profile-format"
    /// `--max-duration` (or the profile's limit).
    case maxDuration = "max-duration"
    /// `--against`: a source exists, can be read and holds the same audio.
    case against
    /// `--against`: the source has the same sample rate.
    case againstRate = "against-rate"
    /// `--against`: the source has the same number of channels.
    case againstChannels = "against-channels"
    /// `--against`: the source has the same number of frames.
    case againstFrames = "against-frames"
    /// `--against`: the source's loops, markers and text are in the file, positions scaled.
    case againstMetadata = "against-metadata"
    /// `--loudness MIN..MAX`: the integrated loudness lies in the range.
    case loudness
    /// `--max-true-peak DB`: the true peak is at most the bound.
    case maxTruePeak = "max-true-peak"

    /// The stable name reports show, such as `max-duration`.
    public var code: String { rawValue }

    /// One sentence saying what the rule demands.
    public var summary: String {
        switch self {
        case .cafFiles: return "A folder given to verify holds at least one *.caf file."
        case .readable: return "The path names a file that can be read."
        case .caf: return "The file is a CAF file that can be parsed."
        case .profileFormat: return "The format is one the profile allows."
        case .maxDuration: return "The audio is no longer than the limit."
        case .against: return "A source mirrors the file, can be read and holds the same audio."
        case .againstRate: return "The source has the same sample rate."
        case .againstChannels: return "The source has the same number of channels."
        case .againstFrames: return "The source has the same number of frames."
        case .againstMetadata:
            return "The source's loops, markers, regions, instrument and text are in the file, positions scaled to its rate."
        case .loudness:
            return "The integrated loudness (ITU-R BS.1770-4; a clip under 400 ms: its ungated loudness) lies in the range."
        case .maxTruePeak: return "The true peak (oversampled, dBTP) is at most the bound."
        }
    }
}

/// One broken rule of one file, as `verify` reports it: either a finding of `CAFValidator`,
/// kept whole, or one of `verify`'s own rules. Text and JSON both come from ``FindingRendering``.
public enum VerifyFailure: Equatable, Sendable, Encodable, CustomStringConvertible {
    /// A rule of the CAF specification or an expectation, as `CAFValidator` found it.
    case validator(CAFDiagnostic)
    /// One of `verify`'s own rules.
    case verifier(VerifyRule, expected: String, found: String, chunk: String? = nil, offset: UInt64? = nil)

    /// The rule's stable name (`byte-order`, `desc-first`, `max-duration`, `against`...).
    public var code: String {
        switch self {
        case .validator(let diagnostic): return diagnostic.rule.code
        case .verifier(let rule, _, _, _, _): return rule.code
        }
    }

    /// One sentence saying what the broken rule demands.
    public var summary: String {
        switch self {
        case .validator(let diagnostic): return diagnostic.rule.summary
        case .verifier(let rule, _, _, _, _): return rule.summary
        }
    }

    /// What was expected.
    public var expected: String {
        switch self {
        case .validator(let diagnostic): return diagnostic.expected
        case .verifier(_, let expected, _, _, _): return expected
        }
    }

    /// What the file holds.
    public var found: String {
        switch self {
        case .validator(let diagnostic): return diagnostic.found
        case .verifier(_, _, let found, _, _): return found
        }
    }

    /// The chunk concerned, if any.
    public var chunk: String? {
        switch self {
        case .validator(let diagnostic): return diagnostic.chunk?.description
        case .verifier(_, _, _, let chunk, _): return chunk
        }
    }

    /// The byte offset concerned, if any.
    public var offset: UInt64? {
        switch self {
        case .validator(let diagnostic): return diagnostic.offset
        case .verifier(_, _, _, _, let offset): return offset
        }
    }

    /// `rule: expected X, found Y`.
    public var description: String { FindingRendering.text(self) }

    /// The JSON object: `rule`, `expected`, `found`, and `chunk` and `offset` when known.
    public func encode(to encoder: any Encoder) throws { try FindingRendering.encode(self, to: encoder) }

    package init(rule: VerifyRule, expected: String, found: String, chunk: String? = nil, offset: UInt64? = nil) {
        self = .verifier(rule, expected: expected, found: found, chunk: chunk, offset: offset)
    }
}

/// Whether a file passed `verify`. The raw values are what the JSON report shows.
public enum VerifyStatus: String, Sendable, Codable {
    /// Every rule holds.
    case passed
    /// At least one rule is broken.
    case failed
}

/// The verdict on one file.
public struct VerifyResult: Equatable, Sendable, Encodable {
    /// The file.
    public var path: String
    /// `passed` or `failed`.
    public var status: VerifyStatus
    /// Every broken rule, empty when the file passed.
    public var failures: [VerifyFailure]
    /// Recoverable oddities the reader noticed (they do not fail the file on their own).
    public var warnings: [String]
    /// The format as a four-character code (`lpcm`, `ima4`...), when readable.
    public var format: String?
    /// The byte order of linear PCM samples.
    public var byteOrder: String?
    /// Valid frames.
    public var frames: UInt64?
    /// Duration in seconds.
    public var durationSeconds: Double?
    /// The source the audio was compared with (`--against`).
    public var against: String?
    /// With `--against`: what kind of comparison was made (exact, or exact after a named
    /// conversion rule) and who decoded each side.
    public var comparison: Proof?
    /// With `--loudness` or `--max-true-peak`: the file's loudness, measured from its decoding.
    public var loudness: LoudnessMeasurement?

    /// Whether the file passed.
    public var passed: Bool { failures.isEmpty }
}

/// Every verdict and the counts.
public struct VerifyReport: Equatable, Sendable, Encodable {
    /// Counts.
    public struct Totals: Equatable, Sendable, Codable {
        /// Files that passed.
        public var passed: Int
        /// Files that failed.
        public var failed: Int
    }

    /// One verdict per file, in the order found.
    public var files: [VerifyResult]
    /// Counts.
    public var totals: Totals

    package init(files: [VerifyResult]) {
        self.files = files
        let failed = files.filter { !$0.passed }.count
        totals = Totals(passed: files.count - failed, failed: failed)
    }

    /// Whether every file passed.
    public var succeeded: Bool { totals.failed == 0 }
}

/// `cafconv verify`: checks CAF files against the spec and the user's expectations.
public enum Verifier {
    /// Whether a name is picked up from a folder: `*.caf` in any case.
    public static func isCAFName(_ name: String) -> Bool { name.lowercased().hasSuffix(".caf") && !name.hasPrefix(".") }

    /// Verifies every CAF file given or found under the folders given.
    public static func verify(paths: [String], options: VerifyOptions) -> VerifyReport {
        var results: [VerifyResult] = []
        var sources = SourceFolders()
        for path in paths {
            switch FileSystem.kind(of: path) {
            case .directory:
                let found = FileSystem.files(under: path, matching: isCAFName)
                if found.isEmpty {
                    // A gate that checked nothing must not pass.
                    results.append(
                        VerifyResult(
                            path: path, status: .failed,
                            failures: [VerifyFailure(rule: .cafFiles, expected: "at least one *.caf file", found: "none")],
                            warnings: []))
                }
                for relative in found {
                    let source =
                        options.against.map { AgainstSource(searched: sources.mirrored(in: $0, for: relative)) }
                        ?? .notAsked
                    results.append(verify(file: FileSystem.joined(path, relative), options: options, source: source))
                }
            case .file:
                let source =
                    options.against.map { against in
                        AgainstSource(
                            searched: FileSystem.kind(of: against) == .directory
                                ? sources.mirrored(in: against, for: FileSystem.baseName(path)) : against)
                    } ?? .notAsked
                results.append(verify(file: path, options: options, source: source))
            case .missing:
                results.append(
                    VerifyResult(
                        path: path, status: .failed,
                        failures: [VerifyFailure(rule: .readable, expected: "a CAF file", found: "no such file or folder")],
                        warnings: []))
            case .other:
                results.append(
                    VerifyResult(
                        path: path, status: .failed,
                        failures: [VerifyFailure(rule: .readable, expected: "a CAF file", found: "not a regular file")],
                        warnings: []))
            }
        }
        // Bytes of names that are not UTF-8 are shown as \xHH.
        for index in results.indices { results[index].path = PathBytes.display(results[index].path) }
        return VerifyReport(files: results)
    }

    /// The source audio files of the `--against` folders, each folder listed once per run (a flat folder
    /// of n files used to be listed and sorted n times).
    package struct SourceFolders {
        /// Per folder: source name by stem, the first in sorted order when several share a stem
        /// (a name that is not `.caf` first).
        /// Keyed by bytes: NFC and NFD spellings of a stem are two different files.
        private var byStem: [PathKey: [PathKey: String]] = [:]

        /// The source for `relative` (a `.caf` path) inside a mirrored folder: same path, an audio name.
        package mutating func mirrored(in folder: String, for relative: String) -> String? {
            let parent = FileSystem.directoryName(FileSystem.joined(folder, relative))
            let folderKey = PathKey(parent)
            if byStem[folderKey] == nil {
                var names: [PathKey: String] = [:]
                // A source that is not CAF wins over a CAF of the same stem (which, beside its
                // source, is the output itself).
                for name in (try? FileSystem.entries(of: parent)) ?? [] where FileSystem.isAudioName(name) {
                    let stem = PathKey(FileSystem.stem(name))
                    if let earlier = names[stem], !earlier.lowercased().hasSuffix(".caf") || name.lowercased().hasSuffix(".caf") {
                        continue
                    }
                    names[stem] = name
                }
                byStem[folderKey] = names
            }
            let base = PathKey(FileSystem.baseName(FileSystem.stem(relative)))
            return byStem[folderKey]?[base].map { FileSystem.joined(parent, $0) }
        }
    }

    /// What `verify` compares one CAF with.
    package enum AgainstSource: Equatable, Sendable {
        /// No `--against`: nothing.
        case notAsked
        /// `--against` was given, but no source mirrors this file.
        case missing
        /// The source to compare with.
        case file(String)

        /// The source found by a search (`nil`: none).
        package init(searched found: String?) { self = found.map(AgainstSource.file) ?? .missing }
    }

    /// Checks one file, and compares it with `source` when `--against` asked for it.
    package static func verify(file path: String, options: VerifyOptions, source: AgainstSource) -> VerifyResult {
        var result = VerifyResult(path: path, status: .failed, failures: [], warnings: [])
        let byteSource: FileByteSource
        let document: CAFDocument
        do {
            byteSource = try FileByteSource(path: path)
            document = try CAFDocument(reading: byteSource)
        } catch let error as CAFError {
            let found: String
            if case .notCAF(let type) = error.kind {
                found = "'\(type)' (\(containerName(type)))"
            } else {
                found = error.message
            }
            result.failures = [VerifyFailure(rule: .caf, expected: "a readable CAF file", found: found, offset: error.offset)]
            return result
        } catch {
            result.failures = [VerifyFailure(rule: .readable, expected: "a readable file", found: "\(error)")]
            return result
        }
        let file = document.file
        result.warnings = document.warnings.map(\.description)
        let desc = file.audioDescription
        if desc.formatID == .ima4, file.packetTableHeader == nil, let frames = file.validFrames, frames > 0 {
            // ffmpeg writes IMA4 so: nothing says how many frames of the last packet are audio.
            result.warnings.append(
                "IMA4 without a 'pakt' chunk: its length is whole packets (\(frames) frames); up to 63 frames at the end may be padding, played as a click or gap in loops")
        }
        result.format = desc.formatID.trimmed
        result.byteOrder = desc.byteOrder?.rawValue
        let frames = file.validFrames
        result.frames = frames
        if let frames, desc.sampleRate > 0 { result.durationSeconds = Double(frames) / desc.sampleRate }

        var failures = CAFValidator.validate(document, expecting: options.expectations).map(VerifyFailure.validator)
        if let profile = options.profile, !profile.formats.contains(desc.formatID) {
            failures.append(
                VerifyFailure(
                    rule: .profileFormat,
                    expected: profile.formats.map { "'\($0.trimmed)'" }.joined(separator: ", ") + " (\(profile.rawValue))",
                    found: "'\(desc.formatID.trimmed)'", chunk: "desc"))
        }
        let limit = [options.maxDuration, options.profile?.maxDuration].compactMap { $0 }.min()
        if let limit, let duration = result.durationSeconds, duration > limit {
            failures.append(VerifyFailure(rule: .maxDuration, expected: "at most \(limit) s", found: "\(rounded(duration)) s"))
        }
        switch source {
        case .notAsked: break
        case .missing:
            failures.append(VerifyFailure(rule: .against, expected: "a source WAV mirroring this file", found: "none"))
        case .file(let source):
            result.against = source
            let (found, comparison) = compare(
                file, byteSource: byteSource, path: path, with: source,
                minimumSNR: options.minimumSNR ?? IMA4Proof.defaultFloor)
            failures += found
            let (lost, notes) = compareMetadata(document, with: source)
            failures += lost
            result.warnings += notes
            result.comparison = comparison
        }
        if !options.loudness.isEmpty {
            let (broken, measurement) = LoudnessGate.check(path, bounds: options.loudness)
            failures += broken
            result.loudness = measurement
        }
        result.failures = failures
        result.status = failures.isEmpty ? .passed : .failed
        return result
    }

    package static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// The bit depth of an ALAC file's source data, from its `desc` format flags (Apple's
    /// kAppleLosslessFormatFlag_16/20/24/32BitSourceData: 1, 2, 3, 4); `nil` when they say none.
    package static func alacBits(_ desc: AudioDescription) -> Int? {
        switch desc.formatFlags {
        case 1: return 16
        case 2: return 20
        case 3: return 24
        case 4: return 32
        default: return nil
        }
    }

    /// A rate for messages: `44100`, `22254.545454545456` (every digit a `Double` needs).
    package static func rateText(_ rate: Double) -> String {
        rate == rate.rounded() && abs(rate) < 1e15 ? String(Int64(rate)) : String(rate)
    }

    /// Checks that the loops, markers, regions, instrument and text `convert` would carry from
    /// `source` are in `document`, positions scaled from the source's rate to the file's (what
    /// ``MetadataMapping`` and ``CAFMetadata/rescaled(sourceRate:outputRate:outputFrames:)``
    /// make). IDs may differ; what is compared is each marker's type, position and name, each
    /// region's flags, markers and name, the instrument's fields and the roles of its regions, and
    /// every text pair. A file with none of these chunks at all passes with a warning (written
    /// with `--strip-metadata`).
    /// The source at `path` transformed to the rate and channel count of a file described by
    /// `desc`, as `convert` transforms it by default (libsoxr VHQ, `--mix`, no dither), rounded to
    /// the file's bits: the reference for a file `convert -d FMT@RATE -c N` made. `nil` when
    /// cafconv cannot open the source this way or convert has no such transform (the plain
    /// comparison then reports the difference).
    package static func transformedReference(_ path: String, like desc: AudioDescription) -> (audio: any FrameSource, rule: String)? {
        guard desc.sampleRate == desc.sampleRate.rounded(), (1...1_536_000).contains(desc.sampleRate),
            (1...1024).contains(desc.channelsPerFrame)
        else { return nil }
        let encoding: Encoding
        switch desc.formatID {
        case .lpcm:
            guard let layout = PCMLayout(desc) else { return nil }
            switch (layout.isFloat, layout.bits) {
            case (true, 32): encoding = .float32
            case (true, _): encoding = .float64
            case (false, 8): encoding = .pcmS8
            case (false, 16): encoding = .pcm16
            case (false, 24): encoding = .pcm24
            default: encoding = .pcm32
            }
        case .ulaw: encoding = .ulaw
        case .alaw: encoding = .alaw
        case .ima4: encoding = .imaADPCM
        case .alac:
            // The depth the file was encoded from (desc's format flags), as convert rounded to it.
            switch alacBits(desc) {
            case 16?: encoding = .alac16
            case 20?: encoding = .alac20
            case 32?: encoding = .alac32
            default: encoding = .alac24
            }
        default:
            // AAC and others: floats, as the AAC road hands them to its encoder.
            encoding = .float32
        }
        var warnings: [ConversionWarning] = []
        guard let stage = try? SourceStage.open(path, warnings: &warnings) else { return nil }
        let rate = Int(desc.sampleRate)
        let channels = Int(desc.channelsPerFrame)
        let options = ConversionOptions(
            jobs: 1, sampleRate: Double(rate) == stage.exactRate ? nil : rate,
            channels: channels == stage.info.channels ? nil : channels)
        let target = TargetFormat(encoding: encoding, byteOrder: .little)
        guard let made = try? TransformPlan.make(source: stage, target: target, options: options, warnings: &warnings),
            let plan = Optional(made) ?? nil,
            let independent = try? stage.proofAudio(),
            let audio = try? TransformedAudio(source: independent, plan: plan)
        else { return nil }
        return (audio, plan.rule)
    }

    package static func compareMetadata(_ document: CAFDocument, with source: String) -> ([VerifyFailure], [String]) {
        guard let input = try? FileByteSource(path: source) else { return ([], []) }
        let frames = document.file.validFrames ?? 0
        let (mapped, _) = MetadataMapping.read(input)
        let sourceRate = MetadataMapping.sampleRate(of: input) ?? document.file.audioDescription.sampleRate
        let (expected, _) = mapped.rescaled(
            sourceRate: sourceRate, outputRate: document.file.audioDescription.sampleRate, outputFrames: frames)
        let found = CAFMetadata(contents: document.contents)
        if expected.isEmpty { return ([], []) }
        if found.isEmpty {
            return ([], ["the source's loops, markers and text are not in the file (converted with --strip-metadata?)"])
        }
        var failures: [VerifyFailure] = []
        func fail(_ what: String, _ chunk: String, expected: String, found: String) {
            failures.append(
                VerifyFailure(rule: .againstMetadata, expected: "\(what) \(expected) as in \(source)", found: found, chunk: chunk)
            )
        }
        let wanted = MetadataSummary(expected)
        let have = MetadataSummary(found)
        // `encoding application` names the program that wrote each file: a file another tool made
        // from the same source (afconvert's, Apple's) legitimately says something else.
        for pair in wanted.text where pair.key != "encoding application" && !have.text.contains(pair) {
            fail("the text", "info", expected: "\(pair.key): \(pair.value)", found: have.text[pair.key] ?? "no such key")
        }
        if wanted.markers != have.markers {
            let missing = wanted.markers.subtracting(have.markers).sorted().prefix(3)
            fail(
                "\(wanted.markers.count) markers", "mark", expected: missing.joined(separator: "; "),
                found: "\(have.markers.count) markers, these missing")
        }
        if wanted.regions != have.regions {
            let missing = wanted.regions.subtracting(have.regions).sorted().prefix(3)
            fail(
                "\(wanted.regions.count) regions", "regn", expected: missing.joined(separator: "; "),
                found: "\(have.regions.count) regions, these missing")
        }
        if wanted.instrument != have.instrument {
            fail("the instrument", "inst", expected: wanted.instrument ?? "none", found: have.instrument ?? "none")
        }
        return (failures, [])
    }

    package static func containerName(_ type: FourCC) -> String {
        switch type {
        case FourCC("RIFF"), FourCC("RIFX"), FourCC("RF64"): return "a WAV file"
        case FourCC("FORM"): return "an AIFF file"
        default: return "not CAF"
        }
    }

    /// Compares a CAF with its source: sample rate, channels, frame count and every sample, the
    /// source decoded as `convert` decodes it (cafconv's own WAV reader for linear PCM, µ-law and
    /// A-law, else libsndfile limited to the header's frame count) and mapped by the conversion
    /// rule; the output decoded by CAFKit (linear PCM, µ-law, A-law) or libsndfile (ALAC). A µ-law
    /// or A-law output of a source of the same law must hold the same levels; of any other source,
    /// the nearest level of the same sign to every sample (the G.711 rule). Returns the broken rules and,
    /// when the samples were compared and matched, the kind of comparison.
    package static func compare(
        _ file: CAFFile, byteSource: FileByteSource, path: String, with source: String,
        minimumSNR: Double = IMA4Proof.defaultFloor
    ) -> ([VerifyFailure], Proof?) {
        // The source decoded as `convert` decodes it (the source table: CAFKit for IMA4,
        // libavcodec for AAC, cafconv's own reader or libsndfile for the rest).
        let opened: SourceAudio
        do { opened = try SourceAudio.open(source) } catch {
            return ([VerifyFailure(rule: .against, expected: "a readable source", found: error.message)], nil)
        }
        let desc = file.audioDescription
        let against = AgainstComparison(
            file: file, byteSource: byteSource, path: path, source: source, opened: opened, minimumSNR: minimumSNR)
        // A file at another rate or channel count than its source is compared with the source
        // transformed as `convert -d FMT@RATE -c N` transforms it by default (libsoxr VHQ, --mix,
        // no dither): the same plan applied to the same independent decoding, so a file convert
        // made that way matches exactly. Otherwise (other settings, or a header that lies) the
        // plain comparison reports the rate or channel difference.
        if desc.sampleRate != opened.exactSampleRate || Int(desc.channelsPerFrame) != opened.channels,
            let transformed = transformedReference(source, like: desc)
        {
            let attempt = against.compare(with: transformed.audio, transformRule: transformed.rule)
            if attempt.0.isEmpty { return attempt }
            var plain = against.compare(with: opened, transformRule: nil)
            if let first = attempt.0.first {
                plain.0.append(
                    VerifyFailure(
                        rule: .against,
                        expected:
                            "\(source) \(transformed.rule) as convert does by default (soxr VHQ, --mix, no dither), for a file convert made with -d FMT@RATE or -c",
                        found: "\(first.found) where \(first.expected)"))
            }
            return plain
        }
        return against.compare(with: opened, transformRule: nil)
    }
}

/// One CAF compared with its source for `verify --against`: the header's rate, channels and frame
/// count, then every sample, the output decoded as its format says (CAFKit for linear PCM, µ-law,
/// A-law and IMA4, libsndfile for ALAC, libavcodec for AAC).
package struct AgainstComparison {
    package let file: CAFFile
    package let byteSource: FileByteSource
    package let path: String
    /// The source's path, as reports name it.
    package let source: String
    /// The source as `convert` decodes it.
    package let opened: SourceAudio
    package let minimumSNR: Double
    package var desc: AudioDescription { file.audioDescription }

    /// The comparison with `audio` (the source, or the source transformed as `convert` does by
    /// default, `transformRule` naming how).
    package func compare(with audio: any FrameSource, transformRule: String?) -> ([VerifyFailure], Proof?) {
        let (failures, stop) = header(against: audio, transformRule: transformRule)
        if stop { return (failures, nil) }
        switch Verifier.lossyDecoder(file, byteSource: byteSource) {
        case nil: break
        case .refused(let failure)?: return (failures + [failure], nil)
        case .decoder(let decoder, let floor)?:
            var (more, proof) = Verifier.compareLossy(file, decoder: decoder, snrFloor: floor, with: audio, source: source)
            if let transformRule, let rule = proof?.rule { proof?.rule = "\(transformRule); \(rule)" }
            return (failures + more, failures.isEmpty && more.isEmpty ? proof : nil)
        }
        if desc.formatID == .ima4 { return compareIMA4(audio, transformRule: transformRule, failures: failures) }
        switch decoding(for: audio) {
        case .failed(let more): return (failures + more, nil)
        case .decoded(let decoding, let more):
            return compareSamples(audio, decoding: decoding, transformRule: transformRule, failures: failures + more)
        }
    }

    /// The rate, channels and (where cafconv decodes the source) frame count of the header;
    /// `stop` when the samples cannot be compared after what was found.
    package func header(against audio: any FrameSource, transformRule: String?) -> (failures: [VerifyFailure], stop: Bool) {
        var failures: [VerifyFailure] = []
        // Bit for bit: 22254.545454545456 Hz is not 22254 Hz.
        if desc.sampleRate.bitPattern != audio.exactSampleRate.bitPattern {
            failures.append(
                VerifyFailure(
                    rule: .againstRate, expected: "\(Verifier.rateText(audio.exactSampleRate)) Hz as in \(source)",
                    found: "\(Verifier.rateText(desc.sampleRate)) Hz",
                    chunk: "desc"))
        }
        if Int(desc.channelsPerFrame) != audio.channels {
            failures.append(
                VerifyFailure(
                    rule: .againstChannels,
                    expected: "\(audio.channels) channel\(audio.channels == 1 ? "" : "s") as in \(source)",
                    found: "\(desc.channelsPerFrame)", chunk: "desc"))
            return (failures, true)
        }
        // The header's frame counts first: a 'pakt' that calls frames priming, or a short file,
        // fails here with both counts. Only where cafconv decodes the source is its header count
        // the audio's: a decoder may yield fewer frames than `fact` promises (a cut file), and
        // `convert` then writes what it decodes; the comparison of the samples counts those frames.
        if transformRule == nil, case .cafconv = opened.decoder, let expected = opened.limit, let found = file.validFrames,
            UInt64(max(0, expected)) != found
        {
            failures.append(
                VerifyFailure(
                    rule: .againstFrames, expected: "\(expected) frames as in \(source)", found: "\(found) frames",
                    chunk: file.packetTableHeader == nil ? "data" : "pakt"))
            return (failures, true)
        }
        return (failures, false)
    }

    /// Where the audio of `frameBytes`-byte frames starts and how many frames it holds: a packet
    /// table's priming frames come first and are not audio.
    package func audioExtent(frameBytes: Int) -> (offset: UInt64, frames: Int64) {
        let priming = UInt64(max(0, file.packetTableHeader?.primingFrames ?? 0))
        let stored = file.audioBytes / UInt64(frameBytes)
        let frames = min(file.validFrames ?? 0, stored > priming ? stored - priming : 0)
        return (file.audioOffset + priming * UInt64(frameBytes), Int64(clamping: frames))
    }

    /// How the file's samples are decoded, or why they cannot be.
    package enum Decoding {
        /// The decoder, the rule from the source's samples, who decodes, and what was found on the way.
        case decoded(OutputDecoding, [VerifyFailure])
        /// The samples cannot be compared.
        case failed([VerifyFailure])
    }

    package func decoding(for audio: any FrameSource) -> Decoding {
        switch desc.formatID {
        case .lpcm:
            guard let layout = PCMLayout(desc) else {
                return .failed([
                    VerifyFailure(
                        rule: .against, expected: "packed linear PCM to compare sample by sample",
                        found: "\(desc.bitsPerChannel)-bit samples in \(desc.bytesPerPacket)-byte packets", chunk: "desc")
                ])
            }
            let extent = audioExtent(frameBytes: layout.bytesPerFrame)
            let rule = Proof.rule(
                sourceIsFloat: audio.isFloat, sourceBits: audio.bits, outputIsFloat: layout.isFloat, outputBits: layout.bits)
            return .decoded(
                OutputDecoding(
                    decoder: .cafkit(layout, byteSource, offset: extent.offset, frames: extent.frames), rule: rule,
                    name: "cafkit"), [])
        case .alac: return decodingALAC(for: audio)
        case .ulaw, .alaw: return decodingG711(for: audio)
        default:
            return .failed([
                VerifyFailure(
                    rule: .against, expected: "linear PCM, ALAC, µ-law, A-law or IMA4 to compare sample by sample",
                    found: "'\(desc.formatID.trimmed)'", chunk: "desc")
            ])
        }
    }

    /// ALAC, which CAFKit does not decode: libsndfile decodes it, and its count must agree with the `pakt`.
    package func decodingALAC(for audio: any FrameSource) -> Decoding {
        let reader: SoundFile
        do {
            reader = try SoundFile.open(readingFrom: path)
            try reader.setNormalisation(false)
        } catch {
            return .failed([VerifyFailure(rule: .against, expected: "ALAC that libsndfile decodes", found: error.message)])
        }
        let outputBits = Verifier.alacBits(desc) ?? reader.info.encoding.bits ?? 16
        let rule = Proof.rule(
            sourceIsFloat: audio.isFloat, sourceBits: audio.bits, outputIsFloat: false, outputBits: outputBits)
        var failures: [VerifyFailure] = []
        if let frames = file.validFrames, frames != UInt64(max(0, reader.info.frames)) {
            failures.append(
                VerifyFailure(
                    rule: .against, expected: "ALAC whose 'pakt' agrees with libsndfile's decoding",
                    found: "'pakt' says \(frames) frames, libsndfile decodes \(reader.info.frames)", chunk: "pakt"))
        }
        return .decoded(OutputDecoding(decoder: .libsndfile(reader, bits: outputBits), rule: rule, name: "libsndfile"), failures)
    }

    /// µ-law or A-law: one code per channel and frame, decoded by CAFKit.
    package func decodingG711(for audio: any FrameSource) -> Decoding {
        let law: G711Law = desc.formatID == .ulaw ? .muLaw : .aLaw
        let channels = Int(desc.channelsPerFrame)
        guard desc.framesPerPacket == 1, Int(desc.bytesPerPacket) == channels else {
            return .failed([
                VerifyFailure(
                    rule: .against, expected: "one \(law) code per channel and frame to compare",
                    found:
                        "\(desc.bytesPerPacket) bytes per packet of \(desc.framesPerPacket) frames, \(channels) channel\(channels == 1 ? "" : "s")",
                    chunk: "desc")
            ])
        }
        let extent = audioExtent(frameBytes: channels)
        let decoder = OutputProof.OutputDecoder.g711(
            law, byteSource, offset: extent.offset, frames: extent.frames,
            check: OutputProof.G711Check(law: law, sourceLaw: audio.law, copied: false))
        return .decoded(OutputDecoding(decoder: decoder, rule: Proof.rule(sourceLaw: audio.law, outputLaw: law), name: "cafkit"), [])
    }

    /// IMA4, lossy: the same measure as convert's proof (exact length, SNR over every frame).
    package func compareIMA4(
        _ audio: any FrameSource, transformRule: String?, failures: [VerifyFailure]
    ) -> ([VerifyFailure], Proof?) {
        var failures = failures
        let measurement: IMA4Proof.Measurement
        do { measurement = try IMA4Proof.measure(file, bytes: byteSource, against: audio) } catch {
            failures.append(VerifyFailure(rule: .against, expected: "IMA4 audio that decodes", found: error.message))
            return (failures, nil)
        }
        if measurement.sourceFrames != measurement.outputFrames {
            failures.append(
                VerifyFailure(
                    rule: .againstFrames, expected: "\(measurement.sourceFrames) frames as in \(source)",
                    found: "\(measurement.outputFrames) frames decoded",
                    chunk: file.packetTableHeader == nil ? "data" : "pakt"))
            return (failures, nil)
        }
        switch IMA4Proof.proof(measurement, floor: minimumSNR, sourceDecoder: audio.decoderName) {
        case .success(var proof):
            if let transformRule { proof.rule = [transformRule, proof.rule].compactMap { $0 }.joined(separator: "; ") }
            return (failures, failures.isEmpty ? proof : nil)
        case .failure:
            failures.append(
                VerifyFailure(
                    rule: .against, expected: "an SNR of at least \(IMA4Proof.rounded(minimumSNR)) dB against \(source)",
                    found:
                        "\(measurement.snr.map { "\(IMA4Proof.rounded($0)) dB" } ?? "no SNR (silent source)"), error RMS \(IMA4Proof.rounded(measurement.errorRMS)) LSB",
                    chunk: "data"))
            return (failures, nil)
        }
    }

    /// Every frame of `audio` compared with the decoded file, after the rule.
    package func compareSamples(
        _ audio: any FrameSource, decoding: OutputDecoding, transformRule: String?, failures: [VerifyFailure]
    ) -> ([VerifyFailure], Proof?) {
        var failures = failures
        let mismatch: OutputProof.Mismatch?
        // After the transform stage, samples are rounded to the output's bits (or floats): the
        // comparison is exact and the transform is the rule.
        let isG711 = desc.formatID == .ulaw || desc.formatID == .alaw
        let comparedRule =
            transformRule.map { [$0, isG711 ? decoding.rule : nil].compactMap { $0 }.joined(separator: "; ") } ?? decoding.rule
        do { mismatch = try OutputProof.firstMismatch(source: audio, output: decoding.decoder) } catch {
            failures.append(VerifyFailure(rule: .against, expected: "readable audio", found: error.message))
            return (failures, nil)
        }
        if let mismatch {
            if let frames = mismatch.frames {
                failures.append(
                    VerifyFailure(
                        rule: .againstFrames, expected: "\(frames.expected) frames as in \(source)",
                        found: "\(frames.found) frames"))
            } else {
                failures.append(
                    VerifyFailure(
                        rule: .against,
                        expected:
                            "\(mismatch.expected) at frame \(mismatch.frame), channel \(mismatch.channel) (as in \(source)\(comparedRule.map { ", after rule \($0)" } ?? "")\(transformRule == nil ? "" : "; the source transformed as convert does by default: soxr VHQ, --mix, no dither"))",
                        found: mismatch.found, chunk: "data", offset: mismatch.offset))
            }
        }
        if !failures.isEmpty { return (failures, nil) }
        return (
            [],
            Proof(
                comparison: comparedRule == nil ? "exact" : "exact-after-rule", rule: comparedRule,
                sourceDecoder: audio.decoderName, outputDecoder: decoding.name, extent: "every-frame")
        )
    }
}

/// Loops, markers and text as comparable text, free of the IDs that tie them together.
package struct MetadataSummary {
    package var text: [String: String] = [:]
    package var markers: Set<String> = []
    package var regions: Set<String> = []
    package var instrument: String?

    package init(_ metadata: CAFMetadata) {
        for entry in metadata.info?.entries ?? [] where text[entry.key] == nil { text[entry.key] = entry.value }
        let strings = metadata.strings?.lookup()
        func name(_ id: UInt32) -> String { strings?.string(for: id) ?? "" }
        func marker(_ marker: Marker) -> String { "'\(marker.type)' at \(marker.framePosition)" }
        for item in metadata.markers?.markers ?? [] {
            markers.insert(marker(item) + " \"\(name(UInt32(bitPattern: item.markerID)))\"")
        }
        var roles: [UInt32: String] = [:]
        if let inst = metadata.instrument {
            if inst.sustainRegionID != 0 { roles[inst.sustainRegionID] = "sustain " }
            if inst.releaseRegionID != 0 { roles[inst.releaseRegionID] = "release " }
            instrument =
                "base note \(inst.baseNote), notes \(inst.midiLowNote)...\(inst.midiHighNote), velocities \(inst.midiLowVelocity)...\(inst.midiHighVelocity), gain \(inst.decibelGain) dB"
        }
        for region in metadata.regions?.regions ?? [] {
            regions.insert(
                "\(roles[region.regionID] ?? "")region flags \(region.flags) ["
                    + region.markers.map(marker).joined(separator: ", ") + "] \"\(name(region.regionID))\"")
        }
    }
}

extension [String: String] {
    package func contains(_ pair: (key: String, value: String)) -> Bool { self[pair.key] == pair.value }
}
extension Verifier {
    /// A lossy CAF opened for `--against`.
    package enum LossyOpening {
        /// Its decoder, and the SNR floor (by bit rate and channels) its `convert` proof uses.
        case decoder(any LossyFileDecoder, floor: (Int, Int) -> Double)
        /// It cannot be decoded: why.
        case refused(VerifyFailure)
    }

    /// The lossy formats `--against` decodes: AAC (libavcodec) and Opus (libopus); `nil` for the
    /// others.
    package static func lossyDecoder(_ file: CAFFile, byteSource: FileByteSource) -> LossyOpening? {
        let formatID = file.audioDescription.formatID
        if AACFileDecoder.formatIDs.contains(formatID) {
            do { return .decoder(try AACFileDecoder(file: file, source: byteSource), floor: AACStage.snrFloor) } catch {
                return .refused(VerifyFailure(rule: .against, expected: "AAC that cafconv decodes", found: error.message))
            }
        }
        if formatID == .opus {
            do { return .decoder(try OpusFileDecoder(file: file, source: byteSource), floor: OpusStage.snrFloor) } catch {
                return .refused(VerifyFailure(rule: .against, expected: "Opus that cafconv decodes", found: error.message))
            }
        }
        return nil
    }

    /// `--against` for a lossy CAF (AAC or Opus, cafconv's or Apple's): decoded as `convert`'s
    /// proof decodes it (CAFKit's packets, the codec's decoder, the `pakt` priming dropped) and
    /// compared with the source: the same frame count, the cross-correlation peak at lag 0, the
    /// SNR above the codec's floor (`AACStage.snrFloor`, `OpusStage.snrFloor`) for its average
    /// bit rate.
    package static func compareLossy(
        _ file: CAFFile, decoder: any LossyFileDecoder, snrFloor: (Int, Int) -> Double, with audio: any FrameSource,
        source: String
    ) -> ([VerifyFailure], Proof?) {
        let measured: LossyComparison
        do {
            switch try LossyProof.compare(decoder, with: audio) {
            case .compared(_, let result): measured = result
            case .frames(let found, let expected):
                // The side that ran out first is counted exactly, the other only as far as it was
                // read (a block past the shorter side's end): "or more" goes with that one.
                let (more, exact) = (" or more", "")
                return (
                    [
                        VerifyFailure(
                            rule: .againstFrames,
                            expected: "\(expected) frames\(found < expected ? more : exact) as in \(source)",
                            found:
                                "\(found) frames\(found < expected ? exact : more) after \(decoder.primingFrames) priming frames",
                            chunk: "pakt")
                    ], nil
                )
            case .failed(let failure):
                return ([VerifyFailure(rule: .against, expected: "readable audio", found: failure.message)], nil)
            case .cancelled:
                return ([VerifyFailure(rule: .against, expected: "a comparison", found: "interrupted")], nil)
            }
        } catch {
            return ([VerifyFailure(rule: .against, expected: "readable audio", found: error.message)], nil)
        }
        // The bit rate the file averages decides the floor, as it does for convert's proof.
        let seconds = Double(max(1, file.validFrames ?? 1)) / max(1, file.audioDescription.sampleRate)
        let bitRate = Int(min(Double(file.audioBytes) * 8 / seconds, 1e12))
        let floor = snrFloor(bitRate, decoder.channels)
        let snr = measured.roundedSNR
        var failures: [VerifyFailure] = []
        switch measured.finding(snrFloor: floor, lagTolerance: decoder.lagTolerance) {
        case nil: break
        case .lag(let lag)?:
            failures.append(
                VerifyFailure(
                    rule: .against, expected: "the decoded audio aligned with \(source) (cross-correlation peak at lag 0)",
                    found: "peak at lag \(lag) after \(decoder.primingFrames) priming frames", chunk: "pakt"))
        case .snr(let snr, let floor)?:
            failures.append(
                VerifyFailure(
                    rule: .against, expected: "an SNR of at least \(floor) dB against \(source) at \(bitRate) b/s",
                    found: "\(snr) dB", chunk: "data"))
        case .loudError(let level)?:
            failures.append(
                VerifyFailure(
                    rule: .against,
                    expected: "decoded audio within \(LossyComparison.nearSilentErrorLevel) dBFS RMS of \(source), which is near-silent",
                    found: "an error of \(level) dBFS RMS", chunk: "data"))
        }
        if !failures.isEmpty { return (failures, nil) }
        let rule = decoder.codecName.lowercased()
        var proof = Proof(
            comparison: "lossy",
            rule: (measured.isNearSilent ? "\(rule)-near-silent" : rule) + measured.envelopeNote(snrFloor: floor),
            sourceDecoder: audio.decoderName,
            outputDecoder: decoder.decoderName, extent: "every-frame")
        proof.snr = snr
        proof.peakLag = measured.peakLag
        proof.primingFrames = Int(decoder.primingFrames)
        return ([], proof)
    }
}

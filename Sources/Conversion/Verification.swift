import BinaryIO
import CAFKit
import SndFile

/// A target platform's rules for assets, selectable with `--profile`.
public enum Profile: String, Sendable, CaseIterable, Codable {
    /// Apple notification sounds: linear PCM, IMA4, µ-law or A-law, at most 30 seconds.
    case iosNotification = "ios-notification"
    /// Little-endian linear PCM, as afconvert -d LEI16/LEI24/LEF32 writes for iOS and macOS assets.
    case appleLPCM = "apple-lpcm"

    /// One line for `--help`.
    public var summary: String {
        switch self {
        case .iosNotification: return "linear PCM, IMA4, µ-law or A-law; at most 30 s (UNNotificationSound)"
        case .appleLPCM: return "little-endian linear PCM"
        }
    }

    var formats: [FourCC] {
        switch self {
        case .iosNotification: return [.lpcm, .ima4, .ulaw, .alaw]
        case .appleLPCM: return [.lpcm]
        }
    }

    var maxDuration: Double? { self == .iosNotification ? 30 : nil }
    var byteOrder: ByteOrder? { self == .appleLPCM ? .little : nil }
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
    var expectations: CAFExpectations {
        var expected = CAFExpectations()
        expected.byteOrder = dataFormat?.byteOrder ?? byteOrder ?? profile?.byteOrder
        switch dataFormat?.kind {
        case .linearPCM(let bits, let isFloat)?:
            expected.formatID = .lpcm
            expected.bitsPerChannel = UInt32(bits)
            expected.isFloat = isFloat
        case .ulaw?: expected.formatID = .ulaw
        case .alaw?: expected.formatID = .alaw
        case .alac?: expected.formatID = .alac
        case nil: break
        }
        expected.sampleRate = sampleRate
        expected.channels = channels.map { UInt32($0) }
        return expected
    }
}

/// One broken rule of one file, as `verify` reports it.
public struct VerifyFailure: Equatable, Sendable, Codable, CustomStringConvertible {
    /// A short stable rule name (`byte-order`, `desc-first`, `max-duration`, `against`...).
    public var rule: String
    /// What was expected.
    public var expected: String
    /// What the file holds.
    public var found: String
    /// The chunk concerned, if any.
    public var chunk: String?
    /// The byte offset concerned, if any.
    public var offset: UInt64?

    /// `rule: expected X, found Y`.
    public var description: String { "\(rule): expected \(expected), found \(found)" }

    init(rule: String, expected: String, found: String, chunk: String? = nil, offset: UInt64? = nil) {
        self.rule = rule
        self.expected = expected
        self.found = found
        self.chunk = chunk
        self.offset = offset
    }

    init(_ diagnostic: CAFDiagnostic) {
        self.init(
            rule: diagnostic.rule, expected: diagnostic.expected, found: diagnostic.found,
            chunk: diagnostic.chunk?.description, offset: diagnostic.offset)
    }
}

/// The verdict on one file.
public struct VerifyResult: Equatable, Sendable, Codable {
    /// The file.
    public var path: String
    /// `passed` or `failed`.
    public var status: String
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

    /// Whether the file passed.
    public var passed: Bool { failures.isEmpty }
}

/// Every verdict and the counts.
public struct VerifyReport: Equatable, Sendable, Codable {
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

    init(files: [VerifyResult]) {
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
                for relative in Planner.files(under: path, matching: isCAFName) {
                    let source = options.against.map { sources.mirrored(in: $0, for: relative) }
                    results.append(verify(file: FileSystem.joined(path, relative), options: options, source: source))
                }
            case .file:
                let source: String?? = options.against.map { against in
                    FileSystem.kind(of: against) == .directory
                        ? sources.mirrored(in: against, for: FileSystem.baseName(path)) : against
                }
                results.append(verify(file: path, options: options, source: source))
            case .missing:
                results.append(
                    VerifyResult(
                        path: path, status: "failed",
                        failures: [VerifyFailure(rule: "readable", expected: "a CAF file", found: "no such file or folder")],
                        warnings: []))
            case .other:
                results.append(
                    VerifyResult(
                        path: path, status: "failed",
                        failures: [VerifyFailure(rule: "readable", expected: "a CAF file", found: "not a regular file")],
                        warnings: []))
            }
        }
        // Bytes of names that are not UTF-8 are shown as \xHH.
        for index in results.indices { results[index].path = PathBytes.display(results[index].path) }
        return VerifyReport(files: results)
    }

    /// The WAV files of the `--against` folders, each folder listed once per run (a flat folder
    /// of n files used to be listed and sorted n times).
    struct SourceFolders {
        /// Per folder: WAV name by stem, the first in sorted order when several share a stem.
        /// Keyed by bytes: NFC and NFD spellings of a stem are two different files.
        private var byStem: [PathKey: [PathKey: String]] = [:]

        /// The source for `relative` (a `.caf` path) inside a mirrored folder: same path, a WAV name.
        mutating func mirrored(in folder: String, for relative: String) -> String? {
            let parent = FileSystem.directoryName(FileSystem.joined(folder, relative))
            let folderKey = PathKey(parent)
            if byStem[folderKey] == nil {
                var names: [PathKey: String] = [:]
                for name in (try? FileSystem.entries(of: parent)) ?? [] where Planner.isWAVName(name) {
                    let stem = PathKey(FileSystem.stem(name))
                    names[stem] = names[stem] ?? name
                }
                byStem[folderKey] = names
            }
            let base = PathKey(FileSystem.baseName(FileSystem.stem(relative)))
            return byStem[folderKey]?[base].map { FileSystem.joined(parent, $0) }
        }
    }

    /// Checks one file. `source` is `nil` without `--against`, `.some(nil)` when no source was found.
    static func verify(file path: String, options: VerifyOptions, source: String??) -> VerifyResult {
        var result = VerifyResult(path: path, status: "failed", failures: [], warnings: [])
        let byteSource: FileByteSource
        let document: CAFDocument
        do {
            byteSource = try FileByteSource(path: path)
            document = try Checks.read(byteSource)
        } catch let error as CAFError {
            let found: String
            if case .notCAF(let type) = error.kind {
                found = "'\(type)' (\(containerName(type)))"
            } else {
                found = error.message
            }
            result.failures = [VerifyFailure(rule: "caf", expected: "a readable CAF file", found: found, offset: error.offset)]
            return result
        } catch {
            result.failures = [VerifyFailure(rule: "readable", expected: "a readable file", found: "\(error)")]
            return result
        }
        let file = document.file
        result.warnings = document.warnings.map(\.description)
        let desc = file.description
        result.format = desc.formatID.trimmed
        result.byteOrder = desc.byteOrder?.rawValue
        let frames = file.frames
        result.frames = frames
        if let frames, desc.sampleRate > 0 { result.durationSeconds = Double(frames) / desc.sampleRate }

        var failures = Checks.problems(document, expecting: options.expectations).map(VerifyFailure.init)
        if let profile = options.profile, !profile.formats.contains(desc.formatID) {
            failures.append(
                VerifyFailure(
                    rule: "profile-format",
                    expected: profile.formats.map { "'\($0.trimmed)'" }.joined(separator: ", ") + " (\(profile.rawValue))",
                    found: "'\(desc.formatID.trimmed)'", chunk: "desc"))
        }
        let limit = [options.maxDuration, options.profile?.maxDuration].compactMap { $0 }.min()
        if let limit, let duration = result.durationSeconds, duration > limit {
            failures.append(VerifyFailure(rule: "max-duration", expected: "at most \(limit) s", found: "\(rounded(duration)) s"))
        }
        if let source {
            result.against = source ?? nil
            if let source {
                failures += compare(file, byteSource: byteSource, path: path, with: source)
            } else {
                failures.append(VerifyFailure(rule: "against", expected: "a source WAV mirroring this file", found: "none"))
            }
        }
        result.failures = failures
        result.status = failures.isEmpty ? "passed" : "failed"
        return result
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    static func containerName(_ type: FourCC) -> String {
        switch type {
        case FourCC("RIFF"), FourCC("RIFX"), FourCC("RF64"): return "a WAV file"
        case FourCC("FORM"): return "an AIFF file"
        default: return "not CAF"
        }
    }

    /// Compares the decoded audio of a CAF with its source and reports the first difference.
    static func compare(_ file: CAFFile, byteSource: FileByteSource, path: String, with source: String) -> [VerifyFailure] {
        guard let layout = PCMLayout(file.description) else {
            return [
                VerifyFailure(
                    rule: "against", expected: "linear PCM to compare sample by sample",
                    found: "'\(file.description.formatID.trimmed)'")
            ]
        }
        let reader: SoundFile
        do {
            reader = try SoundFile.open(readingFrom: source)
            try reader.setNormalisation(false)
        } catch {
            return [VerifyFailure(rule: "against", expected: "a readable source", found: "\(source): \(error.message)")]
        }
        if reader.info.channels != layout.channels {
            return [
                VerifyFailure(
                    rule: "against-channels", expected: "\(reader.info.channels) channels as in \(source)",
                    found: "\(layout.channels)")
            ]
        }
        let channels = layout.channels
        let blockFrames = max(1, (1 << 16) / channels)
        var ints = [Int32](repeating: 0, count: blockFrames * channels)
        var doubles = [Double](repeating: 0, count: blockFrames * channels)
        var frame: UInt64 = 0
        var offset = file.audioOffset
        let end = file.audioOffset + file.audioBytes
        let sourceIsFloat = reader.info.encoding.isFloat
        do {
            while true {
                let got: Int
                if sourceIsFloat {
                    got = try reader.read(into: &doubles, frames: blockFrames)
                } else {
                    got = try reader.read(into: &ints, frames: blockFrames)
                }
                let available = (end - offset) / UInt64(layout.bytesPerFrame)
                let count = Int(min(UInt64(got), available))
                if count > 0 {
                    let bytes = try byteSource.readExactly(at: offset, count: count * layout.bytesPerFrame)
                    offset += UInt64(bytes.count)
                    if let difference = firstDifference(
                        layout: layout, bytes: bytes[...], sourceIsFloat: sourceIsFloat,
                        ints: ints, doubles: doubles, samples: count * channels)
                    {
                        let at = frame + UInt64(difference.index / channels)
                        return [
                            VerifyFailure(
                                rule: "against",
                                expected:
                                    "\(difference.expected) at frame \(at), channel \(difference.index % channels + 1) (as in \(source))",
                                found: difference.found, chunk: "data",
                                offset: offset - UInt64(bytes.count) + UInt64(difference.index * layout.bytesPerSample))
                        ]
                    }
                }
                frame += UInt64(count)
                if count < got || got == 0 {
                    let sourceFrames = reader.info.frames
                    let cafFrames = file.audioBytes / UInt64(layout.bytesPerFrame)
                    if UInt64(max(sourceFrames, 0)) != cafFrames {
                        return [
                            VerifyFailure(
                                rule: "against-frames", expected: "\(sourceFrames) frames as in \(source)",
                                found: "\(cafFrames) frames")
                        ]
                    }
                    return []
                }
            }
        } catch {
            return [VerifyFailure(rule: "against", expected: "readable audio", found: "\(error)")]
        }
    }

    struct Difference {
        var index: Int
        var expected: String
        var found: String
    }

    /// The first sample where the CAF's bytes differ from the source's samples mapped as `convert` maps them.
    static func firstDifference(
        layout: PCMLayout, bytes: ArraySlice<UInt8>, sourceIsFloat: Bool, ints: [Int32],
        doubles: [Double], samples: Int
    ) -> Difference? {
        if layout.isFloat {
            let found = layout.decodeFloats(bytes)
            for index in 0..<samples {
                var expected = sourceIsFloat ? doubles[index] : SampleScaling.float(ints[index])
                if layout.bits == 32 { expected = Double(Float(expected)) }
                if found[index] != expected && !(found[index].isNaN && expected.isNaN) {
                    return Difference(index: index, expected: "\(expected)", found: "\(found[index])")
                }
            }
            return nil
        }
        let found = layout.decodeIntegers(bytes)
        let shift = Int32(32 - layout.bits)
        var mapped = ints
        if sourceIsFloat {
            SampleScaling.floatsToIntegers(doubles, into: &mapped, count: samples, bits: layout.bits)
        }
        for index in 0..<samples where mapped[index] >> shift != found[index] {
            return Difference(index: index, expected: "\(mapped[index] >> shift)", found: "\(found[index])")
        }
        return nil
    }
}

/// The checks shared by `convert` (after writing) and `verify`: CAFKit's reader, then the spec
/// rules of `CAFValidator` (chunk bodies included) and the caller's expectations. One
/// implementation for both commands.
enum Checks {
    /// Reads the chunk table and the (bounded) chunk bodies; audio is not loaded.
    static func read(_ source: some ByteSource) throws(CAFError) -> CAFDocument {
        try CAFDocument(reading: source)
    }

    /// Every broken rule and unmet expectation.
    static func problems(_ document: CAFDocument, expecting expected: CAFExpectations) -> [CAFDiagnostic] {
        CAFValidator.validate(document, expecting: expected)
    }
}

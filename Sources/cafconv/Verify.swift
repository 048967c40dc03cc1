import BinaryIO
import CommandLineKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import Transcoding
import Verification

/// `cafconv verify`: a CI gate for CAF assets.
struct Verify {
    enum Order: String, CaseIterable, Sendable {
        case little, big
    }

    static let paths = Positionals("paths", help: "CAF files or folders to check.", completion: .fileTypes(["caf"]))
    static let endian = Option<Order>("endian", help: "Require this byte order of linear PCM samples.")
    static let dataFormat = SharedOptions.dataFormat(
        help:
            "Require this data format (same grammar as convert: LEI16, BEF32, I8, ulaw, alac...; FMT@RATE also requires the rate, 0@RATE only the rate)."
    )
    static let rate = Option<Double>("rate", help: "Require this sample rate in Hz.")
    static let channels = Option<Int>("channels", help: "Require this many channels.")
    static let maxDuration = Option<Double>(
        "max-duration", valueName: "seconds", help: "Require at most this duration.")
    static let against = Option<String>(
        "against", valueName: "source",
        help:
            "Compare rate, channels, frames and every sample with this source (any audio file convert reads, or a folder mirrored as convert -o mirrors it), after convert's rules; a file that passes says which comparison it got (exact, or exact after a named rule).",
        completion: .fileTypes(Planner.audioExtensions))
    static let profile = Option<Profile>("profile", help: "Apply a target's rules (see the list above).")
    static let loudness = Option<ClosedRange<Double>>(
        "loudness", valueName: "MIN..MAX",
        help:
            "Require the integrated loudness (LUFS, ITU-R BS.1770-4 / EBU R 128, measured from the file's decoding) to lie in this range, such as -18..-14.",
        parse: { text in try LoudnessBounds.range(parsing: text) })
    static let maxTruePeak = Option<Double>(
        "max-true-peak", valueName: "dBTP", help: "Require the true peak (oversampled) to be at most this, such as -1.")
    static let minimumSNR = Option<Double>(
        "min-snr", valueName: "dB",
        help:
            "With --against: the SNR an IMA4 file must reach against its source (default \(Int(IMA4Proof.defaultFloor)), as convert's proof).")

    static let name = "verify"
    static let abstract = "Check CAF files against the CAF specification and your expectations."
    static let command = Command(
        name,
        abstract: abstract,
        discussion: """
            Checks every CAF file given or found under folders (*.caf, any case; a folder without \
            any fails, rule caf-files): the structural rules \
            of the CAF specification (desc first, exactly one data chunk, sizes within the file, \
            consistent linear PCM fields, packet table arithmetic, ...) plus the expectations given \
            as options. A file that is not CAF or is malformed fails with its reason.

            --against compares every sample: linear PCM and ALAC after the conversion rules, µ-law \
            and A-law code by code after the G.711 rule (g711-ulaw, g711-alaw): the nearest level \
            of the same sign to each source sample (a source of the same law: the same levels). \
            IMA4 is lossy: its decoded length must be the source's exactly and its SNR against \
            the source must reach --min-snr (default \(Int(IMA4Proof.defaultFloor)) dB; an error \
            below \(Int(IMA4Proof.quietError)) LSB RMS passes whatever the SNR). Files ffmpeg wrote \
            (4 bits per channel, no pakt) decode with ffmpeg's preamble rule, others with the reload \
            rule. ffmpeg's bits per channel of 4 fails rule compressed-bits (0 for compressed \
            formats, as Apple documents), and its missing pakt makes the length whole packets. \
            AAC is decoded by libavcodec with the pakt priming dropped: exact length, \
            cross-correlation peak at lag 0, SNR above the floor for its bit rate. A file at another \
            rate or channel count than its source is compared with the source transformed as \
            convert does by default (soxr VHQ, --mix, no dither). Loops, markers, regions and text \
            must have survived (rule against-metadata; positions scaled to the file's rate).

            --loudness MIN..MAX and --max-true-peak DB decode each file and measure it (ITU-R \
            BS.1770-4 / EBU R 128, libebur128; a clip shorter than 400 ms reads its ungated \
            loudness): rules loudness and max-true-peak, each naming the measured value and the \
            bound; --json carries the measurements (loudness).

            Profiles:
            \(Profile.allCases.reduce("") { $0 + ($0.isEmpty ? "" : "\n") + "  \($1.rawValue): \($1.summary)" })

            Output: one line per broken rule (file: rule: expected X, found Y), file: ok for each \
            file that passes (not with -q), and a summary on stderr; --json prints one document \
            instead.

            Exit status: 0 all files pass; 1 any file fails, or a folder held no CAF file; 64 usage \
            error.
            """,
        positionals: paths,
        options: [
            endian, dataFormat, rate, channels, maxDuration, against, minimumSNR, profile, loudness, maxTruePeak,
            SharedOptions.report,
        ])

    let paths: [String]
    let options: VerifyOptions
    let json: Bool
    let quiet: Bool

    /// Reads and checks the options.
    init(_ invocation: Invocation) throws(CommandLineError) {
        paths = invocation.positionals
        json = invocation[SharedOptions.json]
        quiet = invocation[SharedOptions.quiet]
        let request = invocation[Self.dataFormat]
        var rate = invocation[Self.rate]
        if let requested = request?.sampleRate {
            if let rate, rate != Double(requested) {
                throw CommandLineError("-d \(request?.text ?? "") requires \(requested) Hz but --rate requires \(rate)")
            }
            rate = Double(requested)
        }
        let channels = invocation[Self.channels]
        let maxDuration = invocation[Self.maxDuration]
        let endian = invocation[Self.endian]
        if paths.isEmpty { throw CommandLineError("give at least one CAF file or folder") }
        if let rate, !(rate.isFinite && rate > 0) { throw CommandLineError("--rate must be a positive number") }
        if let channels, channels < 1 { throw CommandLineError("--channels must be at least 1") }
        if let maxDuration, !(maxDuration.isFinite && maxDuration > 0) {
            throw CommandLineError("--max-duration must be a positive number of seconds")
        }
        let format = request?.format
        if let format, let endian, let problem = format.disagreement(withEndian: endian.rawValue) {
            throw CommandLineError(problem.message)
        }
        var options = VerifyOptions(
            byteOrder: endian.map { $0 == .little ? ByteOrder.little : .big }, dataFormat: format,
            sampleRate: rate, channels: channels, maxDuration: maxDuration, against: invocation[Self.against],
            profile: invocation[Self.profile])
        if let floor = invocation[Self.minimumSNR] {
            guard floor.isFinite else { throw CommandLineError("--min-snr must be a number of dB") }
            guard invocation[Self.against] != nil else { throw CommandLineError("--min-snr needs --against") }
            options.minimumSNR = floor
        }
        if let ceiling = invocation[Self.maxTruePeak] {
            guard ceiling.isFinite else { throw CommandLineError("--max-true-peak must be a number of dB") }
            options.loudness.maxTruePeak = ceiling
        }
        options.loudness.integrated = invocation[Self.loudness]
        self.options = options
    }

    func run() -> Int32 {
        let report = Verifier.verify(paths: paths, options: options)
        if json {
            Console.output(Output.json(report))
        } else {
            for file in report.files {
                // A finding may quote the file (chunk text, metadata): escaped like names.
                for failure in file.failures { Console.output(PathBytes.display("\(file.path): \(failure)")) }
                if !quiet && file.passed {
                    Console.output(PathBytes.display("\(file.path): ok" + (file.comparison.map { " (\($0))" } ?? "")))
                }
            }
            let empty = report.files.filter { file in file.failures.contains { $0.code == VerifyRule.cafFiles.code } }
            if !quiet || !empty.isEmpty {
                var summary = "\(report.totals.passed) passed, \(report.totals.failed) failed"
                if !empty.isEmpty {
                    summary += " (no CAF files found under \(empty.map(\.path).joined(separator: ", ")))"
                }
                Console.error(PathBytes.display(summary))
            }
        }
        return report.succeeded ? ExitStatus.success : ExitStatus.failure
    }
}

extension Profile {
    /// One line for `verify --help`.
    var summary: String {
        switch self {
        case .iosNotification: return "linear PCM, IMA4, µ-law or A-law; at most 30 s (UNNotificationSound)"
        case .appleLPCM: return "little-endian linear PCM"
        }
    }
}

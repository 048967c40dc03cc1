import BinaryIO
import CommandLineKit
import Conversion
import Loudness

/// `info --loudness`: the survey run, and its text (a block per file, or a line with --brief) and
/// JSON.
enum LoudnessText {
    static func run(_ inputs: [String], brief: Bool, json: Bool, jobs: Int) -> Int32 {
        let entries = LoudnessSurvey.measure(LoudnessSurvey.files(inputs), jobs: jobs)
        if json {
            Console.output(Output.json(entries))
        } else {
            for (index, entry) in entries.enumerated() {
                if let error = entry.error {
                    Console.error("\(Output.errorPrefix()) \(PathBytes.display(entry.path)): \(PathBytes.display(error))")
                    continue
                }
                guard let measurement = entry.loudness else { continue }
                if brief {
                    Console.output(briefLine(entry.path, measurement))
                } else {
                    if index > 0 { Console.output("") }
                    for line in block(entry.path, measurement) { Console.output(line) }
                }
            }
        }
        return entries.contains { $0.error != nil } ? ExitStatus.failure : ExitStatus.success
    }

    /// `-23.0`: one decimal, as loudness meters show it; "silent" for no level.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "silent" }
        let tenths = (value * 10).rounded()
        let sign = tenths < 0 ? "-" : ""
        let magnitude = Int64(clamping: Int64(exactly: abs(tenths)) ?? Int64.max)
        return "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    static func level(_ value: Double?, _ unit: String) -> String {
        value == nil ? "silent" : "\(number(value)) \(unit)"
    }

    static func briefLine(_ path: String, _ m: LoudnessMeasurement) -> String {
        "\(PathBytes.display(path)): \(level(m.integrated, "LUFS"))\(m.isShortClip ? " (short clip)" : ""), "
            + "range \(number(m.range)) LU, true peak \(level(m.truePeak, "dBTP"))"
    }

    static func block(_ path: String, _ m: LoudnessMeasurement) -> [String] {
        [
            PathBytes.display(path),
            "  integrated loudness: \(level(m.integrated, "LUFS"))"
                + (m.isShortClip ? " (short clip: ungated loudness of the whole clip, shorter than 400 ms)" : ""),
            "  loudness range:      \(number(m.range)) LU",
            "  true peak:           \(level(m.truePeak, "dBTP"))",
            "  sample peak:         \(level(m.samplePeak, "dBFS"))",
            "  max momentary:       \(level(m.maxMomentary, "LUFS"))",
            "  max short-term:      \(level(m.maxShortTerm, "LUFS"))",
            "  measured:            \(m.frames) frames, \(m.channels) channels, \(m.sampleRate) Hz",
        ]
    }
}

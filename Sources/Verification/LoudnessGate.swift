import Loudness
import Transcoding

/// `verify --loudness MIN..MAX` and `--max-true-peak DB`: bounds on a file's integrated loudness
/// (LUFS; a clip shorter than 400 ms by the short-clip rule, see `LoudnessMeter`) and true peak
/// (dBTP), measured from the file's own decoding as `convert` decodes it (``LoudnessScan``).
public struct LoudnessBounds: Sendable, Equatable {
    /// `--loudness`: the integrated loudness must lie in this range.
    public var integrated: ClosedRange<Double>?
    /// `--max-true-peak`: the true peak must be at most this.
    public var maxTruePeak: Double?

    public init(integrated: ClosedRange<Double>? = nil, maxTruePeak: Double? = nil) {
        self.integrated = integrated
        self.maxTruePeak = maxTruePeak
    }

    /// Whether any bound is set (the file is then decoded and measured).
    public var isEmpty: Bool { integrated == nil && maxTruePeak == nil }

    /// Why a `--loudness` value is refused.
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// `MIN..MAX` in LUFS (`-18..-14`); a single number `L` means `L..L`.
    public static func range(parsing text: String) throws(ParseError) -> ClosedRange<Double> {
        let parts = text.split(separator: "..", omittingEmptySubsequences: false).map(String.init)
        let numbers = parts.map { Double($0) }
        guard (1...2).contains(parts.count), numbers.allSatisfy({ $0?.isFinite == true }), let low = numbers.first ?? nil,
            let high = numbers.last ?? nil
        else { throw ParseError(description: "expected MIN..MAX in LUFS, such as -18..-14") }
        guard low <= high else { throw ParseError(description: "the minimum \(low) is above the maximum \(high)") }
        return low...high
    }

    /// One decimal, as meters show loudness.
    static func tenth(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        let magnitude = Int64(exactly: abs(tenths)) ?? Int64.max
        return "\(tenths < 0 ? "-" : "")\(magnitude / 10).\(magnitude % 10)"
    }
}

enum LoudnessGate {
    /// The broken bounds of the file at `path`, and its measurement when it could be made.
    static func check(_ path: String, bounds: LoudnessBounds) -> (failures: [VerifyFailure], measurement: LoudnessMeasurement?) {
        let measurement: LoudnessMeasurement
        do { measurement = try LoudnessScan.measure(path: path) } catch {
            let rule: VerifyRule = bounds.integrated != nil ? .loudness : .maxTruePeak
            return ([VerifyFailure(rule: rule, expected: "audio whose loudness can be measured", found: error.message)], nil)
        }
        var failures: [VerifyFailure] = []
        if let range = bounds.integrated {
            let expected = "\(LoudnessBounds.tenth(range.lowerBound))..\(LoudnessBounds.tenth(range.upperBound)) LUFS"
            if let loudness = measurement.integrated {
                if !range.contains(loudness) {
                    let short = measurement.isShortClip ? " (short clip: ungated loudness of the whole clip)" : ""
                    failures.append(
                        VerifyFailure(rule: .loudness, expected: expected, found: "\(LoudnessBounds.tenth(loudness)) LUFS\(short)"))
                }
            } else {
                failures.append(VerifyFailure(rule: .loudness, expected: expected, found: "silence (below -70 LUFS)"))
            }
        }
        if let ceiling = bounds.maxTruePeak, let peak = measurement.truePeak, peak > ceiling {
            failures.append(
                VerifyFailure(
                    rule: .maxTruePeak, expected: "at most \(LoudnessBounds.tenth(ceiling)) dBTP",
                    found: "\(LoudnessBounds.tenth(peak)) dBTP"))
        }
        return (failures, measurement)
    }
}

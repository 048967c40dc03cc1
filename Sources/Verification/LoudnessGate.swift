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
    static func tenth(_ value: Double) -> String { fixed(value, decimals: 1) }

    /// `value` with `decimals` decimals (1 to 6).
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value * Double(scale)).rounded()
        let magnitude = Int64(exactly: abs(scaled)) ?? Int64.max
        let fraction = String(magnitude % scale)
        let padded = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
        return "\(scaled < 0 ? "-" : "")\(magnitude / scale).\(padded)"
    }

    /// A measured `value` that broke `bound`, with as many decimals as it takes (one, up to six)
    /// for the two to read differently: "-1.0 dBTP" above a ceiling of -1.0 reads as -0.99997.
    static func apart(_ value: Double, from bound: Double) -> String {
        for decimals in 1...6 where fixed(value, decimals: decimals) != fixed(bound, decimals: decimals) {
            return fixed(value, decimals: decimals)
        }
        return fixed(value, decimals: 6)
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
                    let bound = loudness < range.lowerBound ? range.lowerBound : range.upperBound
                    let short = measurement.isShortClip ? " (short clip: ungated loudness of the whole clip)" : ""
                    failures.append(
                        VerifyFailure(rule: .loudness, expected: expected, found: "\(LoudnessBounds.apart(loudness, from: bound)) LUFS\(short)"))
                }
            } else {
                failures.append(VerifyFailure(rule: .loudness, expected: expected, found: "silence (below -70 LUFS)"))
            }
        }
        if let ceiling = bounds.maxTruePeak, let peak = measurement.truePeak, peak > ceiling {
            failures.append(
                VerifyFailure(
                    rule: .maxTruePeak, expected: "at most \(LoudnessBounds.tenth(ceiling)) dBTP",
                    found: "\(LoudnessBounds.apart(peak, from: ceiling)) dBTP"))
        }
        return (failures, measurement)
    }
}

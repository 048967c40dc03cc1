/// Levels in sentences: one decimal, as loudness meters show them (`-16.0`).
public enum Decibels {
    public static func tenth(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let tenths = (value * 10).rounded()
        let magnitude = Int64(exactly: abs(tenths)) ?? Int64.max
        return "\(tenths < 0 ? "-" : "")\(magnitude / 10).\(magnitude % 10)"
    }
}

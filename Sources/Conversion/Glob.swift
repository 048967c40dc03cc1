/// A `--include` / `--exclude` pattern, matched against the files found in a folder input.
///
/// - A pattern without `/` is matched against the file's name (`*.aif` takes `ui/a.aif`).
/// - A pattern with `/` is matched against the file's path relative to the input folder
///   (`ui/*.wav` takes `ui/a.wav`, not `ui/old/a.wav`); a leading `./` or `/` is ignored.
/// - `*` matches any run of characters except `/`, `?` one character except `/`, `[abc]`,
///   `[a-z]` and `[!a-z]` (or `[^a-z]`) one character of (not of) the set, `\` makes the next
///   character literal; `**` as a whole path component matches zero or more components
///   (`**/take-*.wav`, `old/**`, `a/**/b.wav`).
/// - Matching is case-sensitive, on the name's bytes as characters.
public struct Glob: Sendable, Equatable, CustomStringConvertible {
    /// The pattern as given.
    public let text: String
    private let pattern: [Character]
    private let matchesPath: Bool

    /// Parses `text`; throws a sentence saying what is wrong (an unclosed `[`, an empty pattern).
    public init(_ text: String) throws(DataFormatError) {
        self.text = text
        var body = Substring(text)
        while body.hasPrefix("./") { body = body.dropFirst(2) }
        while body.hasPrefix("/") { body = body.dropFirst() }
        guard !body.isEmpty else { throw DataFormatError("'\(text)': an empty pattern matches nothing") }
        pattern = Array(body)
        matchesPath = body.contains("/")
        var index = 0
        while index < pattern.count {
            if pattern[index] == "\\" {
                index += 2
                continue
            }
            if pattern[index] == "[" {
                guard Self.classEnd(pattern, from: index) != nil else {
                    throw DataFormatError("'\(text)': '[' at character \(index + 1) is never closed by ']'")
                }
            }
            index += 1
        }
    }

    public var description: String { text }

    /// Whether the file at `relativePath` (below the input folder, `/`-separated) matches.
    public func matches(_ relativePath: String) -> Bool {
        let subject: [Character]
        if matchesPath {
            subject = Array(relativePath)
        } else {
            subject = Array(relativePath.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        }
        var failed = Set<Int>()
        return Self.match(pattern, 0, subject, 0, &failed)
    }

    /// The index of the `]` closing the class that opens at `start`, or `nil`.
    private static func classEnd(_ pattern: [Character], from start: Int) -> Int? {
        var index = start + 1
        if index < pattern.count, pattern[index] == "!" || pattern[index] == "^" { index += 1 }
        // A ']' right after the opening (or its negation) is a member.
        if index < pattern.count, pattern[index] == "]" { index += 1 }
        while index < pattern.count {
            if pattern[index] == "]" { return index }
            index += 1
        }
        return nil
    }

    /// Whether `character` is in the class `pattern[start...end]`.
    private static func classContains(_ pattern: [Character], _ start: Int, _ end: Int, _ character: Character) -> Bool {
        var index = start + 1
        var negated = false
        if pattern[index] == "!" || pattern[index] == "^" {
            negated = true
            index += 1
        }
        var found = false
        while index < end {
            let low = pattern[index]
            if index + 2 < end, pattern[index + 1] == "-" {
                let high = pattern[index + 2]
                if low <= character && character <= high { found = true }
                index += 3
            } else {
                if low == character { found = true }
                index += 1
            }
        }
        return found != negated
    }

    /// Backtracking match of `pattern[p...]` against `subject[s...]`; `failed` remembers the
    /// positions already known not to match, so a pattern of many stars costs
    /// O(pattern x subject), not exponential time.
    private static func match(
        _ pattern: [Character], _ p: Int, _ subject: [Character], _ s: Int, _ failed: inout Set<Int>
    ) -> Bool {
        let key = p * (subject.count + 1) + s
        if failed.contains(key) { return false }
        let result = matchUncached(pattern, p, subject, s, &failed)
        if !result { failed.insert(key) }
        return result
    }

    private static func matchUncached(
        _ pattern: [Character], _ p: Int, _ subject: [Character], _ s: Int, _ failed: inout Set<Int>
    ) -> Bool {
        if p == pattern.count { return s == subject.count }
        let character = pattern[p]
        // `**` as a whole component: zero or more components.
        if character == "*", p + 1 < pattern.count, pattern[p + 1] == "*", p == 0 || pattern[p - 1] == "/" {
            let next = p + 2
            if next == pattern.count { return true }
            if pattern[next] == "/" {
                if match(pattern, next + 1, subject, s, &failed) { return true }
                var index = s
                while index < subject.count {
                    if subject[index] == "/", match(pattern, next + 1, subject, index + 1, &failed) { return true }
                    index += 1
                }
                return false
            }
        }
        switch character {
        case "*":
            var index = s
            while true {
                if match(pattern, p + 1, subject, index, &failed) { return true }
                if index == subject.count || subject[index] == "/" { return false }
                index += 1
            }
        case "?":
            guard s < subject.count, subject[s] != "/" else { return false }
            return match(pattern, p + 1, subject, s + 1, &failed)
        case "[":
            guard s < subject.count, subject[s] != "/", let end = classEnd(pattern, from: p) else { return false }
            guard classContains(pattern, p, end, subject[s]) else { return false }
            return match(pattern, end + 1, subject, s + 1, &failed)
        case "\\" where p + 1 < pattern.count:
            guard s < subject.count, subject[s] == pattern[p + 1] else { return false }
            return match(pattern, p + 2, subject, s + 1, &failed)
        default:
            guard s < subject.count, subject[s] == character else { return false }
            return match(pattern, p + 1, subject, s + 1, &failed)
        }
    }
}

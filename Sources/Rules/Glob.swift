import ConversionModel
import OutputFiles

/// A path pattern of a rules file, matched against a path relative to the input root, whole and
/// case-sensitively:
///
/// - `*` matches any run of characters within one path component (not `/`);
/// - `?` matches one character other than `/`;
/// - `[abc]`, `[a-z]`, `[!abc]` match one character of (or, with `!`, not of) the set;
/// - `**` as a whole component matches zero or more whole components: `sfx/**` is everything
///   below `sfx`, `**/*.wav` any `.wav` at any depth (the top level too), `a/**/b.wav` `a/b.wav`
///   and `a/x/y/b.wav`;
/// - `\` makes the next character literal.
///
/// A pattern has no leading `/` (paths are relative) and no empty component; `**` mixed with other
/// characters in one component is an error rather than a silent `*`.
public struct Glob: Sendable, Equatable, CustomStringConvertible {
    /// One component of a pattern.
    package enum Component: Sendable, Equatable {
        /// `**`: zero or more components.
        case anyDepth
        /// A component pattern.
        case pattern([Token])
    }

    /// One element of a component pattern.
    package enum Token: Sendable, Equatable {
        case literal(Unicode.Scalar)
        case anyRun
        case anyOne
        case set(ranges: [ClosedRange<Unicode.Scalar>], negated: Bool)
    }

    /// The pattern as written.
    public let text: String
    package let components: [Component]

    public var description: String { text }

    /// Parses a pattern, or throws a sentence saying what is wrong with it.
    public init(_ text: String) throws(RuleError) {
        self.text = text
        if text.isEmpty { throw RuleError("the pattern is empty") }
        if text.hasPrefix("/") {
            throw RuleError(
                "'\(text)' starts with '/': patterns are relative to the input root (write '\(text.drop { $0 == "/" })')")
        }
        var body = Substring(text)
        while body.hasPrefix("./") { body = body.dropFirst(2) }
        if body.isEmpty { throw RuleError("'\(text)' names no file") }
        var components: [Component] = []
        for part in body.split(separator: "/", omittingEmptySubsequences: false) {
            if part.isEmpty { throw RuleError("'\(text)' has an empty path component ('//' or a trailing '/')") }
            if part == "**" {
                // `**/**` means the same as `**`.
                if components.last != .anyDepth { components.append(.anyDepth) }
                continue
            }
            if part.contains("**") {
                throw RuleError("'\(text)': '**' must be a whole path component (as in 'sfx/**' or '**/*.wav')")
            }
            components.append(.pattern(try Self.tokens(Substring(part), in: text)))
        }
        self.components = components
    }

    private static func tokens(_ part: Substring, in text: String) throws(RuleError) -> [Token] {
        var tokens: [Token] = []
        var scalars = Array(part.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "*": tokens.append(.anyRun)
            case "?": tokens.append(.anyOne)
            case "\\":
                guard let next = scalars.popFirst() else { throw RuleError("'\(text)' ends with a lone '\\'") }
                tokens.append(.literal(next))
            case "[":
                var negated = false
                if scalars.first == "!" || scalars.first == "^" {
                    negated = true
                    scalars.removeFirst()
                }
                var ranges: [ClosedRange<Unicode.Scalar>] = []
                var closed = false
                var first = true
                while let member = scalars.popFirst() {
                    if member == "]" && !first {
                        closed = true
                        break
                    }
                    first = false
                    var low = member
                    if low == "\\" {
                        guard let escaped = scalars.popFirst() else { break }
                        low = escaped
                    }
                    if scalars.first == "-", scalars.count >= 2, scalars[scalars.index(after: scalars.startIndex)] != "]" {
                        scalars.removeFirst()
                        guard let high = scalars.popFirst() else { break }
                        if high < low { throw RuleError("'\(text)': the range \(low)-\(high) is backwards") }
                        ranges.append(low...high)
                    } else {
                        ranges.append(low...low)
                    }
                }
                if !closed { throw RuleError("'\(text)': '[' without a closing ']'") }
                tokens.append(.set(ranges: ranges, negated: negated))
            default: tokens.append(.literal(scalar))
            }
        }
        return tokens
    }

    /// Whether the pattern has no `/`: `--include` and `--exclude` then match it against the
    /// file's name at any depth (as `.gitignore` does), where rules files match whole paths.
    public var isNamePattern: Bool { !text.contains("/") }

    /// `--include` / `--exclude` matching: a name pattern (``isNamePattern``) against the last
    /// component of `relativePath`, any other pattern against the whole relative path.
    public func matchesFile(_ relativePath: String) -> Bool {
        if isNamePattern, let name = relativePath.split(separator: "/").last { return matches(String(name)) }
        return matches(relativePath)
    }

    /// Whether `path` (relative, `/`-separated) matches the whole pattern.
    public func matches(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map { Array($0.unicodeScalars) }
        // reachable[j]: the first i pattern components can match the first j path components.
        var reachable = [Bool](repeating: false, count: parts.count + 1)
        reachable[0] = true
        for component in components {
            var next = [Bool](repeating: false, count: parts.count + 1)
            switch component {
            case .anyDepth:
                var seen = false
                for j in 0...parts.count {
                    seen = seen || reachable[j]
                    next[j] = seen
                }
            case .pattern(let tokens):
                for j in 0..<parts.count where reachable[j] && Self.match(tokens[...], parts[j][...]) {
                    next[j + 1] = true
                }
            }
            reachable = next
        }
        return reachable[parts.count]
    }

    /// Matches one component: `*` by backtracking to the last star only (linear for one star,
    /// quadratic at worst).
    package static func match(_ tokens: ArraySlice<Token>, _ name: ArraySlice<Unicode.Scalar>) -> Bool {
        var t = tokens.startIndex
        var n = name.startIndex
        var star: (token: Int, name: Int)? = nil
        while n < name.endIndex {
            if t < tokens.endIndex {
                switch tokens[t] {
                case .anyRun:
                    star = (t, n)
                    t += 1
                    continue
                case .anyOne:
                    t += 1
                    n += 1
                    continue
                case .literal(let scalar) where scalar == name[n]:
                    t += 1
                    n += 1
                    continue
                case .set(let ranges, let negated) where ranges.contains { $0.contains(name[n]) } != negated:
                    t += 1
                    n += 1
                    continue
                default:
                    break
                }
            }
            guard let last = star else { return false }
            t = last.token + 1
            n = last.name + 1
            star = (last.token, last.name + 1)
        }
        while t < tokens.endIndex, tokens[t] == .anyRun { t += 1 }
        return t == tokens.endIndex
    }
}

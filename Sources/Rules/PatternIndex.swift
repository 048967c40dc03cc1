import ConversionModel
import OutputFiles

/// Globs indexed by what a path must have to match them, so that matching a path examines only
/// the patterns it could match rather than every pattern of a rules file:
///
/// - the pattern's leading literal components (`sfx/ui/*.wav`: `sfx`, `ui`), which a matching
///   path starts with, as whole components (a trie of components);
/// - the extension of a last component that ends in literal characters (`*.wav`, `hit.wav`:
///   `wav`), which a matching path's last component ends with.
///
/// The candidates are a superset of the matching patterns (each still has to be matched); a
/// pattern with neither key (`**`, `*`) is a candidate for every path.
package struct PatternIndex: Sendable {
    private struct Node: Sendable {
        package var children: [String: Int] = [:]
        /// Patterns whose literal prefix ends here, with no extension key.
        package var any: [Int] = []
        /// Patterns whose literal prefix ends here, by their extension.
        package var byExtension: [String: [Int]] = [:]
    }

    private var nodes = [Node()]

    /// Indexes `globs`; a candidate is an index into `globs`.
    package init(_ globs: [Glob]) {
        for (id, glob) in globs.enumerated() {
            var node = 0
            for component in glob.literalPrefix {
                if let child = nodes[node].children[component] {
                    node = child
                } else {
                    nodes.append(Node())
                    nodes[node].children[component] = nodes.count - 1
                    node = nodes.count - 1
                }
            }
            if let suffix = glob.literalExtension {
                nodes[node].byExtension[suffix, default: []].append(id)
            } else {
                nodes[node].any.append(id)
            }
        }
    }

    /// The patterns `path` (relative, `/`-separated, split as ``Glob/matches(_:)`` splits it)
    /// may match, in increasing order.
    package func candidates(_ path: String) -> [Int] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        // By scalars, as patterns match: a `.` with a combining mark is not a `.` Character.
        let fileExtension = parts.last.flatMap { name in
            name.unicodeScalars.lastIndex(of: ".").map { String(name.unicodeScalars[name.unicodeScalars.index(after: $0)...]) }
        }
        var result: [Int] = []
        var node = 0
        var depth = 0
        while true {
            result += nodes[node].any
            if let fileExtension, let ids = nodes[node].byExtension[fileExtension] { result += ids }
            guard depth < parts.count, let child = nodes[node].children[String(parts[depth])] else { break }
            node = child
            depth += 1
        }
        result.sort()
        return result
    }
}

extension Glob {
    /// The leading components that are literal text (`sfx/ui/*.wav`: `["sfx", "ui"]`): a
    /// matching path starts with them.
    package var literalPrefix: [String] {
        var prefix: [String] = []
        for component in components {
            guard case .pattern(let tokens) = component else { break }
            var scalars = String.UnicodeScalarView()
            for token in tokens {
                guard case .literal(let scalar) = token else { return prefix }
                scalars.append(scalar)
            }
            prefix.append(String(scalars))
        }
        return prefix
    }

    /// When the last component ends in literal text holding a `.` (`*.wav`, `take.1.wav`): the
    /// text after that last `.` (`wav`), which the last component of a matching path ends with
    /// after its own last `.`.
    package var literalExtension: String? {
        guard case .pattern(let tokens) = components.last else { return nil }
        var tail: [Unicode.Scalar] = []
        for token in tokens.reversed() {
            guard case .literal(let scalar) = token else { return nil }
            if scalar == "." {
                var text = String.UnicodeScalarView()
                text.append(contentsOf: tail.reversed())
                return String(text)
            }
            tail.append(scalar)
        }
        return nil
    }
}

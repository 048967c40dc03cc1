/// Help texts in the layout of swift-argument-parser: OVERVIEW, the discussion, USAGE,
/// ARGUMENTS, OPTIONS and SUBCOMMANDS, wrapped to fit 80 columns (79 characters, as
/// swift-argument-parser does, so that no line touches the terminal's edge) with help in a column
/// of its own.
struct HelpFormatter {
    static let width = 79
    /// Where help sentences start: labels are indented by 2 and padded to this column.
    static let helpColumn = 26

    let program: String

    /// The full help of a command.
    func help(_ command: Command, path: [String]) -> String {
        var sections: [String] = []
        sections.append(Text.wrap("OVERVIEW: " + command.abstract, width: Self.width))
        let discussion = command.discussion
        if !discussion.isEmpty { sections.append(Text.wrapParagraphs(discussion, width: Self.width)) }
        sections.append(usage(command, path: path, prefix: "USAGE: "))
        if let positionals = command.positionals {
            sections.append("ARGUMENTS:\n" + row("<\(positionals.name)>", positionals.help))
        }
        sections.append("OPTIONS:\n" + command.visibleOptions.map { row($0.label, $0.fullHelp) }.joined(separator: "\n"))
        if !command.subcommands.isEmpty {
            let rows = command.subcommands.map { row($0.name, $0.abstract) }.joined(separator: "\n")
            let invocation = ([program] + path).joined(separator: " ")
            sections.append("SUBCOMMANDS:\n" + rows + "\n\n  See '\(invocation) help <subcommand>' for detailed help.")
        }
        return sections.joined(separator: "\n\n")
    }

    /// `cafconv convert [<inputs> ...] [--output <output>] ...`, wrapped under its first option.
    func usage(_ command: Command, path: [String], prefix: String) -> String {
        let head = prefix + ([program] + path).joined(separator: " ") + " "
        var words: [String] = []
        if !command.subcommands.isEmpty {
            words.append("<subcommand>")
        } else {
            if let positionals = command.positionals { words.append("[<\(positionals.name)> ...]") }
            words += command.options.filter { !$0.isHidden }.map { $0.usage }
        }
        return Text.wrap(words, width: Self.width, firstPrefix: head, prefix: String(repeating: " ", count: head.count))
    }

    /// `  -o, --output <output>   Output file, ...`: a label and its help, the help wrapped in its
    /// column; a label too wide for its column puts the help on the next line.
    func row(_ label: String, _ help: String) -> String {
        let indent = String(repeating: " ", count: Self.helpColumn)
        let lead = "  " + label
        if help.isEmpty { return lead }
        let body = Text.wrap(help, width: Self.width, firstPrefix: indent, prefix: indent)
        if lead.count + 2 <= Self.helpColumn {
            return lead + String(repeating: " ", count: Self.helpColumn - lead.count) + body.dropFirst(Self.helpColumn)
        }
        return lead + "\n" + body
    }
}

/// Word wrapping.
enum Text {
    /// Wraps one paragraph.
    static func wrap(_ text: String, width: Int, firstPrefix: String = "", prefix: String = "") -> String {
        wrap(text.split(separator: " ").map(String.init), width: width, firstPrefix: firstPrefix, prefix: prefix)
    }

    /// Wraps words into lines of at most `width` characters (a longer word gets a line of its own).
    static func wrap(_ words: [String], width: Int, firstPrefix: String, prefix: String) -> String {
        var lines: [String] = []
        var line = firstPrefix
        var lineIsEmpty = true
        for word in words {
            if !lineIsEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = prefix
                lineIsEmpty = true
            }
            line += (lineIsEmpty ? "" : " ") + word
            lineIsEmpty = false
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// Wraps a discussion: paragraphs stay apart, and a line that starts with spaces stays a line
    /// of its own, its continuation indented two more.
    static func wrapParagraphs(_ text: String, width: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let indent = String(line.prefix(while: { $0 == " " }))
            let hanging = indent.isEmpty ? "" : indent + "  "
            return wrap(String(line.dropFirst(indent.count)), width: width, firstPrefix: indent, prefix: hanging)
        }.joined(separator: "\n")
    }
}

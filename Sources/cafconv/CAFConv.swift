import ArgumentParser

/// The `cafconv` command: subcommands only.
@main
struct CAFConv: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cafconv",
        abstract: "Convert WAV files to CAF with the byte order you choose, and inspect audio files.",
        discussion: """
            Exit status: 0 success; 1 some file failed (each one is named on stderr); \
            64 usage error; 130 interrupted.
            """,
        version: CAFConv.version,
        subcommands: [Convert.self, Info.self, Verify.self]
    )

    static let version = "0.1.0"
}

import BinaryIO
import CommandLineKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `cafconv` command: subcommands only. Arguments are parsed by `CommandLineKit` from the
/// declarative tables of each subcommand (not swift-argument-parser, whose reflection doubled the
/// process's start-up time).
@main
enum CAFConv {
    static let version = "0.1.0"
    /// The date the manual page shows; move it with the version.
    static let manualDate = "January 1, 2026"

    static let program = Program(
        root: Command(
            "cafconv",
            abstract: "Convert WAV files to CAF with the byte order you choose, and inspect audio files.",
            discussion: """
                Exit status: 0 success; 1 some file failed (each one is named on stderr); \
                64 usage error; 130 interrupted.
                """,
            subcommands: [Convert.command, Info.command, Verify.command]),
        version: version, manualDate: manualDate)

    static func main() {
        // Arguments are bytes: a path that is not UTF-8 is kept as it is (PathBytes), not repaired.
        let arguments = (1..<Int(CommandLine.argc)).map { index in
            CommandLine.unsafeArgv[index].map {
                PathBytes.decode(UnsafeBufferPointer(start: $0, count: strlen($0)).map { UInt8(bitPattern: $0) })
            } ?? ""
        }
        let status = program.run(arguments) { invocation throws(CommandLineError) in
            switch invocation.path.first {
            case Convert.command.name: return try Convert(invocation).run()
            case Info.command.name: return try Info(invocation).run()
            case Verify.command.name: return try Verify(invocation).run()
            default: throw CommandLineError("no subcommand '\(invocation.path.joined(separator: " "))'")
            }
        }
        exit(status)
    }
}

/// What a subcommand's `run()` returns: the process's exit status.
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let interrupted: Int32 = 130
}

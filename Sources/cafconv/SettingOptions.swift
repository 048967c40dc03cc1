import CommandLineKit
import Conversion
import ConversionModel
import IncrementalState
import OutputFiles
import Rules
import Transcoding
import Verification

/// The command-line options of the conversion settings (``Settings/all``), declared with
/// CommandLineKit: each ``SettingOption`` becomes the option help, the parser and the completion
/// scripts see, and the invocation's text goes back to the settings to read.
enum SettingOptions {
    /// Some settings' options, as an entry of a command's option list.
    struct Entry: OptionListEntry {
        let specs: [OptionSpec]
    }

    /// The option a setting declares.
    static func spec(_ option: SettingOption) -> OptionSpec {
        let valueName = option.valueName ?? option.long
        switch option.value {
        case .none:
            return OptionSpec(long: option.long, short: option.short, kind: .flag, help: option.help)
        case .wholeNumber:
            return OptionSpec(
                long: option.long, short: option.short, kind: .value(name: valueName), help: option.help,
                check: { Int(argument: $0) == nil ? "expected \(Int.expectation)" : nil })
        case .text:
            return OptionSpec(long: option.long, short: option.short, kind: .value(name: valueName), help: option.help)
        case .oneOf(let values):
            return OptionSpec(
                long: option.long, short: option.short, kind: .value(name: valueName), help: option.help,
                allowedValues: values, completion: .values(values))
        case .checked(let completion, let check):
            return OptionSpec(
                long: option.long, short: option.short, kind: .value(name: valueName), help: option.help,
                completion: .values(completion), check: check)
        }
    }

    /// The option declared as `long` by a setting.
    static func named(_ long: String) -> Entry {
        guard let option = Settings.option(long) else {
            assertionFailure("no setting declares --\(long)")
            return Entry(specs: [])
        }
        return Entry(specs: [spec(option)])
    }

    /// `entries`, then every setting's option they do not hold.
    static func list(_ entries: [any OptionListEntry]) -> [any OptionListEntry] {
        let placed = Set(entries.flatMap(\.specs).map(\.long))
        let rest = Settings.all.flatMap(\.options).filter { !placed.contains($0.long) }.map(spec)
        return entries + [Entry(specs: rest)]
    }

    /// What the command line gave, as the settings read it (``Setting/Given``).
    static func given(in invocation: Invocation) -> Setting.Given {
        { long in invocation.flags.contains(long) ? "" : invocation.values[long] }
    }
}

extension Convert {
    /// The option a setting declares, placed in `convert`'s option list.
    static func setting(_ long: String) -> SettingOptions.Entry { SettingOptions.named(long) }
}

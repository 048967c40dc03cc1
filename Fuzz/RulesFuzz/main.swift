// libFuzzer entry point for the rules-file reader (Sources/Rules): the TOML subset of
// `cafconv.toml`, its globs and the settings it applies. Built by Fuzz/build.sh rules with
// instrumented Rules, ConversionModel and OutputFiles modules (the C wrappers under them dlopen
// their libraries on use; the parser never uses them).
import ConversionModel
import Rules

/// The completion words of the `.checked` options (`--src-quality`'s, built at run time by
/// `RateQuality.allCases.map`), held as plain references. `Settings.all` keeps them inside an enum
/// payload whose pointer carries the case in its spare bits, which LeakSanitizer does not follow,
/// so without this it reports them at exit as one 112-byte direct leak (the same one object after
/// any number of runs), although the global holds them for the life of the process.
let completionWords: [[String]] = Settings.all.flatMap(\.options).compactMap { option in
    if case .checked(let completion, _) = option.value { completion } else { nil }
}

/// Whether `text` holds something a terminal obeys or a log splits at.
func isUnsafe(_ text: String) -> Bool {
    text.unicodeScalars.contains { scalar in
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = completionWords.count
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    do throws(RuleError) {
        let rules = try RulesFile.parse(text, file: "fuzz/cafconv.toml")
        for path in ["a.wav", "sfx/x/y.aif", "music/loop.caf", ".hidden/é.wav"] {
            do throws(RuleError) {
                _ = try rules.resolve(path, base: ConversionOptions(), commandLine: [])
            } catch {
                precondition(!isUnsafe(error.description), "raw control character in a rules error")
            }
            _ = rules.label(of: rules.governing(path))
        }
    } catch {
        // What `convert` prints for a bad rules file.
        precondition(!isUnsafe(error.description), "raw control character in a rules error")
    }
    return 0
}

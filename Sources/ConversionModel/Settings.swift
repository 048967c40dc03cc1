/// The conversion settings, each declared once: its command-line option(s) and help, its
/// rules-file key, how its values are read and checked, where it lands in ``ConversionOptions``
/// and what it adds to the fingerprint. A new setting is one entry here (and, for a new field, its
/// stored property in ``ConversionOptions``): `cafconv convert` lists its option (after the others
/// unless `Convert` places it), a rules file accepts its key, the fingerprint carries its part.
///
/// The order is meaningful: the rules keys are listed in it (in messages and `-v`), the
/// fingerprint's parts follow it, and the command line is checked in it.
public enum Settings {
    public static let all: [Setting] = [
        // `-d FMT[@RATE]`: declared with the data formats (the command line's `-d` option and the
        // format part of the fingerprint); a format that names a byte order sets `endian` too,
        // and one with `@RATE` sets `rate`.
        Setting(
            key: "format", takes: "a string",
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let text = given("data-format") else { return [] }
                let request = try FormatRequest(parsing: text, vocabulary: options.codecs)
                request.apply(to: &options)
                var keys: Set<RuleKey> = ["format"]
                if request.sampleRate != nil { keys.insert("rate") }
                if request.format?.byteOrder != nil { keys.insert("endian") }
                return keys
            },
            fromRules: string { text, options throws(RuleError) in
                do throws(DataFormatError) { try FormatRequest(parsing: text, vocabulary: options.codecs).apply(to: &options) } catch {
                    throw RuleError("format = \"\(text)\": \(error.message)")
                }
            },
            fingerprint: { options in options.keepsSourceCodec ? ";keep-codec" : "" }),
        Setting(
            key: "reencode", takes: "a boolean",
            options: [
                SettingOption(
                    "reencode",
                    help: "Decode and encode again where compressed packets would be moved into the CAF (-d opus or -d 0 on an Opus source, -d aac or -d 0 on an M4A or ADTS source).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard given("reencode") != nil else { return [] }
                options.reencode = true
                return ["reencode"]
            },
            fromRules: boolean { reencode, options throws(RuleError) in options.reencode = reencode },
            fingerprint: { options in options.reencode ? ";reencode" : "" }),
        Setting(
            key: "endian", takes: "a string",
            options: [
                SettingOption(
                    "endian", .oneOf(EndianChoice.allCases.map(\.rawValue)),
                    help: "Byte order of the output samples (default: little).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let choice = given("endian").flatMap(EndianChoice.init(rawValue:)) else { return [] }
                options.endian = choice
                return ["endian"]
            },
            fromRules: string { text, options throws(RuleError) in
                guard let choice = EndianChoice(rawValue: text) else {
                    throw RuleError(
                        "endian = \"\(text)\" is not a byte order; use one of \(EndianChoice.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                options.endian = choice
            },
            fingerprint: { options in ";endian=\(options.endian?.rawValue ?? "default")" }),
        // The command line gives the rate as `-d FMT@RATE`.
        Setting(
            key: "rate", takes: "an integer", fromCommandLine: { _, _ in [] },
            fromRules: integer { rate, options throws(RuleError) in
                guard (1...1_536_000).contains(rate) else { throw RuleError("rate = \(rate) is out of range (1 to 1536000 Hz)") }
                options.sampleRate = rate
            },
            // The converter's recipe decides the bytes only when the rate changes.
            fingerprint: { options in
                options.sampleRate.map { ";rate=\($0);src=\(options.srcQuality.rawValue)" } ?? ""
            }),
        Setting(
            key: "channels", takes: "an integer",
            options: [
                SettingOption(
                    "channels", short: "c", .wholeNumber,
                    help:
                        "Output channel count; with --mix (the default) 1 -> 2 copies, N -> 2 and N -> 1 downmix (ITU-R BS.775).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let channels = given("channels").flatMap({ Int($0) }) else { return [] }
                guard (1...1024).contains(channels) else { throw DataFormatError("--channels must be from 1 to 1024") }
                options.channels = channels
                return ["channels"]
            },
            fromRules: integer { channels, options throws(RuleError) in
                guard (1...1024).contains(channels) else {
                    throw RuleError("channels = \(channels) is out of range (1 to 1024)")
                }
                options.channels = channels
            },
            // Mixing or not decides the bytes only when the count changes.
            fingerprint: { options in
                options.channels.map { ";channels=\($0);mix=\(options.mix ? "on" : "off")" } ?? ""
            }),
        Setting(
            key: "mix", takes: "a boolean",
            options: [
                SettingOption("mix", help: "Mix channels when -c changes their count (the default)."),
                SettingOption(
                    "no-mix", help: "Keep the first -c channels instead of mixing (channels past the source's are silent)."),
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                let mix = given("mix") != nil
                let noMix = given("no-mix") != nil
                if mix && noMix { throw DataFormatError("--mix and --no-mix cannot be used together") }
                options.mix = !noMix
                return mix || noMix ? ["mix"] : []
            },
            fromRules: boolean { mix, options throws(RuleError) in options.mix = mix }),
        // Its part of the fingerprint is in the format's (it concerns only -d aac).
        Setting(
            key: "bitrate", takes: "an integer",
            options: [
                SettingOption(
                    "bit-rate", short: "b", valueName: "bits-per-second", .wholeNumber,
                    help: "Total bit rate of -d aac and -d opus, as afconvert's -b (default: aac 64000 per channel; opus 32000 per channel at 24000 Hz and below, 48000 at 48000 Hz).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let bitRate = given("bit-rate").flatMap({ Int($0) }) else { return [] }
                options.bitRate = bitRate
                return ["bitrate"]
            },
            fromRules: integer { bitrate, options throws(RuleError) in
                guard (8_000...512_000).contains(bitrate) else {
                    throw RuleError("bitrate = \(bitrate) is out of range (8000 to 512000 bits per second)")
                }
                options.bitRate = bitrate
            }),
        // Its part of the fingerprint is in the format's (it concerns only -d opus).
        Setting(
            key: "strategy", takes: "an integer",
            options: [
                SettingOption(
                    "strategy", short: "s", valueName: "0-3", .wholeNumber,
                    help:
                        "Bit-rate strategy, as afconvert's -s: -d opus codes 0 at a constant bit rate (Safari needs it), 1-3 variable (the default); -d aac refuses 0 (libavcodec's AAC encoder has no CBR mode) and 1-3 change nothing (it codes an average bit rate at -b).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let text = given("strategy") else { return [] }
                guard let strategy = Int(text), (0...3).contains(strategy) else {
                    throw DataFormatError("-s \(text): the strategy is 0 (constant bit rate) to 3 (variable)")
                }
                options.bitRateStrategy = strategy
                return ["strategy"]
            },
            fromRules: integer { strategy, options throws(RuleError) in
                guard (0...3).contains(strategy) else {
                    throw RuleError("strategy = \(strategy) is out of range (0 constant bit rate to 3 variable)")
                }
                options.bitRateStrategy = strategy
            }),
        Setting(
            key: "dither", takes: "a string or a boolean",
            options: [
                SettingOption(
                    "dither", .oneOf(Dither.allCases.map(\.rawValue)),
                    help: "Dither when samples become integers of fewer bits: none or tpdf (default: none).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let dither = given("dither").flatMap(Dither.init(rawValue:)) else { return [] }
                options.dither = dither
                return ["dither"]
            },
            fromRules: { value, options throws(RuleError) in
                switch value {
                case .boolean(let on): options.dither = on ? .tpdf : .none
                case .string(let text):
                    guard let dither = Dither(rawValue: text) else {
                        throw RuleError("dither = \"\(text)\" is not a dither; use \"tpdf\", \"none\", true or false")
                    }
                    options.dither = dither
                case .integer: return false
                }
                return true
            },
            fingerprint: { options in options.dither == .none ? "" : ";dither=\(options.dither.rawValue)" }),
        Setting(
            key: "strip-metadata", takes: "a boolean",
            options: [
                SettingOption(
                    "strip-metadata",
                    help: "Write no loops, markers, regions, instrument or text chunks (info, inst, regn, mark, strg).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard given("strip-metadata") != nil else { return [] }
                options.stripMetadata = true
                return ["strip-metadata"]
            },
            fromRules: boolean { strip, options throws(RuleError) in options.stripMetadata = strip },
            fingerprint: { options in options.stripMetadata ? ";meta=strip" : "" }),
        // One static gain per file to a loudness target; the ceiling's part of the fingerprint is
        // the target's (it changes the bytes only when a target is given).
        Setting(
            key: "loudness", takes: "a number (LUFS) as an integer or a string",
            options: [
                SettingOption(
                    "loudness", valueName: "LUFS", .text,
                    help:
                        "Bring each output to this integrated loudness (ITU-R BS.1770-4, e.g. -16) by one static gain, capped so the true peak stays at or below --true-peak; never a limiter.")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let text = given("loudness") else { return [] }
                guard let target = Double(text), (-70...0).contains(target) else {
                    throw DataFormatError("--loudness \(text): give a loudness from -70 to 0 LUFS, such as -16")
                }
                options.loudnessTarget = target
                return ["loudness"]
            },
            fromRules: { value, options throws(RuleError) in
                let target: Double?
                switch value {
                case .integer(let number): target = Double(number)
                case .string(let text): target = Double(text)
                case .boolean: return false
                }
                guard let target, (-70...0).contains(target) else {
                    throw RuleError("loudness = \(value): give a loudness from -70 to 0 LUFS, such as -16 or \"-16.5\"")
                }
                options.loudnessTarget = target
                return true
            },
            fingerprint: { options in
                options.loudnessTarget.map { ";loudness=\($0);true-peak=\(options.truePeakCeiling)" } ?? ""
            }),
        Setting(
            key: "true-peak", takes: "a number (dBTP) as an integer or a string",
            options: [
                SettingOption(
                    "true-peak", valueName: "dBTP", .text,
                    help: "With --loudness: the true-peak ceiling the gain may not exceed (default -1; at most 0 but for float outputs).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let text = given("true-peak") else { return [] }
                guard let ceiling = Double(text), (-70...6).contains(ceiling) else {
                    throw DataFormatError("--true-peak \(text): give a ceiling from -70 to 6 dBTP, such as -1")
                }
                options.truePeakCeiling = ceiling
                return ["true-peak"]
            },
            fromRules: { value, options throws(RuleError) in
                let ceiling: Double?
                switch value {
                case .integer(let number): ceiling = Double(number)
                case .string(let text): ceiling = Double(text)
                case .boolean: return false
                }
                guard let ceiling, (-70...6).contains(ceiling) else {
                    throw RuleError("true-peak = \(value): give a ceiling from -70 to 6 dBTP, such as -1 or \"-1.5\"")
                }
                options.truePeakCeiling = ceiling
                return true
            }),
        // One gain for a group of files (album gain). Its part of the fingerprint is the group's
        // name; the engine adds a digest of the members, so that a change to one redoes them all.
        Setting(
            key: "loudness-group", takes: "a string (\"folder\" or a group name) or a boolean",
            options: [
                SettingOption(
                    "loudness-group", valueName: "folder|NAME", .text,
                    help:
                        "With --loudness: one gain for a group of files, measured together, so their relative levels stay (album gain): \"folder\" groups each source folder's files, any other name every file given it.")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let text = given("loudness-group") else { return [] }
                guard !text.isEmpty else { throw DataFormatError("--loudness-group: give \"folder\" or a group name") }
                options.loudnessGroup = text
                return ["loudness-group"]
            },
            fromRules: { value, options throws(RuleError) in
                switch value {
                case .boolean(let on): options.loudnessGroup = on ? "folder" : nil
                case .string(let text) where !text.isEmpty: options.loudnessGroup = text
                case .string: throw RuleError("loudness-group = \"\": give \"folder\", a group name, or true/false")
                case .integer: return false
                }
                return true
            },
            fingerprint: { options in
                options.loudnessTarget == nil ? "" : options.loudnessGroup.map { ";loudness-group=\($0)" } ?? ""
            }),
        // Its part of the fingerprint is the rate's.
        Setting(
            options: [
                SettingOption(
                    "src-quality", short: "r", valueName: "quality",
                    .checked(
                        completion: RateQuality.allCases.map(\.rawValue),
                        check: { text in
                            do throws(DataFormatError) { _ = try RateQuality(parsing: text) } catch { return "\(error)" }
                            return nil
                        }),
                    help: "Sample-rate converter (libsoxr) quality: \(RateQuality.examples) (default: vhq).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let text = given("src-quality") else { return [] }
                options.srcQuality = try RateQuality(parsing: text)
                return []
            }),
        // How many files run at once changes no output's bytes.
        Setting(
            options: [
                SettingOption(
                    "jobs", short: "j", .wholeNumber, help: "Convert this many files at once (default: the cores, at most 8).")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                guard let jobs = given("jobs").flatMap({ Int($0) }) else { return [] }
                guard jobs >= 1 else { throw DataFormatError("--jobs must be at least 1") }
                options.jobs = jobs
                return []
            }),
        Setting(
            options: [SettingOption("force", help: "Convert every input, even when its output is up to date.")],
            fromCommandLine: { given, options throws(DataFormatError) in
                options.force = given("force") != nil
                return []
            }),
        Setting(
            options: [
                SettingOption(
                    "dry-run",
                    help: "Print what would be converted, what is up to date and what is orphaned; write nothing.")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                options.dryRun = given("dry-run") != nil
                return []
            }),
        Setting(
            options: [
                SettingOption(
                    "prune",
                    help:
                        "Delete outputs that cafconv made whose source is gone (only .caf files it recorded), anywhere in the output folder."
                )
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                options.prune = given("prune") != nil
                return []
            }),
        // Which share of the files a run converts changes no output's bytes.
        Setting(
            options: [
                SettingOption(
                    "shard", .text,
                    help: "Convert only share K of N of the files (K/N, as in 2/4), chosen by a stable hash of each output path.")
            ],
            fromCommandLine: { given, options throws(DataFormatError) in
                options.shard = try given("shard").map { text throws(DataFormatError) in try Shard(parsing: text) }
                return []
            }),
    ]

    /// The command-line option declared as `long`, with the setting that declares it.
    public static func option(_ long: String) -> SettingOption? {
        all.lazy.flatMap(\.options).first { $0.long == long }
    }

    // Rules-file values of one type; any other type is the caller's "wrong type" error.

    package static func string(_ apply: @escaping @Sendable (String, inout ConversionOptions) throws(RuleError) -> Void)
        -> @Sendable (RuleValue, inout ConversionOptions) throws(RuleError) -> Bool
    {
        { value, options throws(RuleError) in
            guard case .string(let text) = value else { return false }
            try apply(text, &options)
            return true
        }
    }

    package static func integer(_ apply: @escaping @Sendable (Int, inout ConversionOptions) throws(RuleError) -> Void)
        -> @Sendable (RuleValue, inout ConversionOptions) throws(RuleError) -> Bool
    {
        { value, options throws(RuleError) in
            guard case .integer(let number) = value else { return false }
            try apply(number, &options)
            return true
        }
    }

    package static func boolean(_ apply: @escaping @Sendable (Bool, inout ConversionOptions) throws(RuleError) -> Void)
        -> @Sendable (RuleValue, inout ConversionOptions) throws(RuleError) -> Bool
    {
        { value, options throws(RuleError) in
            guard case .boolean(let flag) = value else { return false }
            try apply(flag, &options)
            return true
        }
    }
}

extension FormatRequest {
    /// Sets the output format and, with `@RATE`, the rate.
    package func apply(to options: inout ConversionOptions) {
        options.dataFormat = format
        options.keepsSourceCodec = format == nil
        if let sampleRate { options.sampleRate = sampleRate }
    }
}

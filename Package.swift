// swift-tools-version: 6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "cafconv",
    products: [
        .executable(name: "cafconv", targets: ["cafconv"]),
        // The CAF model, reader, validator and writer for your own packages (standard library
        // only: it builds without libsndfile). Documented by its DocC catalog (`make docs`);
        // Examples/ReadCAF uses it.
        .library(name: "CAFKit", targets: ["CAFKit"]),
        .library(name: "WAVEKit", targets: ["WAVEKit"]),
        // The conversion engine: its model, file system, incremental state, rules, transcoding,
        // verification and the engine that runs jobs (import the targets you use).
        .library(
            name: "Conversion",
            targets: [
                "Conversion", "ConversionModel", "OutputFiles", "IncrementalState", "Rules", "Transcoding", "Verification",
            ]),
        .library(name: "Inspection", targets: ["Inspection"]),
        // What CAFKit and WAVEKit read from: FileByteSource (a file read at offsets),
        // MemoryByteSource, ByteOrder, FourCC. Depend on it beside CAFKit or WAVEKit.
        .library(name: "BinaryIO", targets: ["BinaryIO"]),
        // A build-tool plugin: a target that lists it gets every WAV in its folder as a CAF
        // resource (with its cafconv.toml). Examples/SoundAssets uses it.
        .plugin(name: "CAFConvPlugin", targets: ["CAFConvPlugin"]),
    ],
    dependencies: [
        // `swift package generate-documentation` (make docs): builds only when that command runs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0")
    ],
    targets: [
        // A shared library opened with dlopen on first use (or ahead of use, on a background thread),
        // for CSndFile and CSoxr: cafconv links neither libsndfile nor libsoxr, so a run that does
        // not need them (up to date, info, no resampling) never pays for mapping them.
        .target(name: "LazyLibrary"),
        // libsndfile's header (<sndfile.h>, Debian libsndfile1-dev) and the functions cafconv calls,
        // through LazyLibrary (libsndfile.so.1); no logic here.
        .target(name: "CSndFile", dependencies: ["LazyLibrary"]),
        // libsoxr's header (<soxr.h>, Debian libsoxr-dev) and the functions cafconv calls, through
        // LazyLibrary (libsoxr.so.0); no logic here.
        .target(name: "CSoxr", dependencies: ["LazyLibrary"]),
        // libxxhash's XXH3-128 (Debian libxxhash0), through LazyLibrary (libxxhash.so.0): its own
        // few declarations, so no development package is needed to build.
        .target(name: "CXXHash", dependencies: ["LazyLibrary"]),
        // Digests of file contents (XXH3-128) for the manifest's "same bytes?" question.
        .target(name: "ContentHash", dependencies: ["CXXHash", "SystemLayer"], swiftSettings: strict),
        // The only target that sees libsoxr's C types: a streaming resampler that owns its state.
        .target(name: "Soxr", dependencies: ["CSoxr"], swiftSettings: strict),
        // copy_file_range(2), renameat2(2) and fallocate(2), which the Glibc module does not export,
        // and the SIGINT/SIGTERM handler (async-signal-safe code belongs in C).
        .target(name: "CSystemCalls"),
        // The one target that imports the C library (Glibc, Musl or Darwin) and CSystemCalls, and
        // re-exports them: the platform choice, the clashing names and the EINTR loop live here.
        .target(name: "SystemLayer", dependencies: ["CSystemCalls"], swiftSettings: strict),
        // libavcodec's AAC encoder and decoder, loaded with dlopen at the first AAC job and never
        // linked (a PCM conversion must not map it): the C code includes the libavcodec headers
        // (Debian libavcodec-dev, in the multiarch include folder) for declarations and structure
        // layouts only; without them it builds a stub that says so.
        .target(name: "CAVCodec"),
        // libmpg123's functions (<mpg123.h>, Debian libmpg123-dev), loaded with dlopen at the first
        // MP3 source (libmpg123.so.0, a dependency of libsndfile), never linked; without the header a
        // stub that says so.
        .target(name: "CMPG123", dependencies: ["LazyLibrary"]),
        // The Swift face of CMPG123: MPG123Decoder, the first decoder of MP3 sources.
        .target(name: "MPG123", dependencies: ["CMPG123"], swiftSettings: strict),
        // libebur128's functions (<ebur128.h>, Debian libebur128-dev), loaded with dlopen at the
        // first measurement (libebur128.so.1), never linked; without the header a stub that says so.
        .target(name: "CEBUR128", dependencies: ["LazyLibrary"]),
        // The Swift face of CEBUR128: LoudnessMeter (BS.1770 / EBU R 128), LoudnessMeasurement.
        .target(name: "Loudness", dependencies: ["CEBUR128", "SystemLayer"], swiftSettings: strict),
        // libopus's encoder and decoder (<opus/opus.h>, Debian libopus-dev), loaded with dlopen at the
        // first Opus job (libopus.so.0), never linked; without the header a stub that says so.
        .target(name: "COpus", dependencies: ["LazyLibrary"]),
        // The Swift face of COpus: OpusEncoder (20 ms packets, look-ahead flushed), OpusDecoder.
        .target(name: "Opus", dependencies: ["COpus"], swiftSettings: strict),
        // Ogg Opus (RFC 7845) read a page at a time: OpusHead, packets and their durations, the end
        // trimming (standard library only).
        .target(name: "OggOpus", dependencies: ["BinaryIO"], swiftSettings: strict),
        // The Swift face of CAVCodec: AACEncoder, AACDecoder, LibAVCodec.load().
        .target(name: "AACCodec", dependencies: ["CAVCodec"], swiftSettings: strict),
        // The only target that sees C types from libsndfile.
        .target(name: "SndFile", dependencies: ["CSndFile", "BinaryIO", "SystemLayer"], swiftSettings: strict),
        // Byte cursor, byte sources and FourCC shared by the pure-Swift parsers.
        .target(name: "BinaryIO", dependencies: ["SystemLayer"], swiftSettings: strict),
        // Core Audio Format model, parser, writer and validator (standard library only).
        .target(name: "CAFKit", dependencies: ["BinaryIO"], swiftSettings: strict),
        // RIFF/WAVE, RF64 and AIFF chunk reader for inspection (standard library only).
        .target(name: "WAVEKit", dependencies: ["BinaryIO"], swiftSettings: strict),
        // The engine's vocabulary: data formats (`-d`), the settings table and options, jobs, the
        // report, typed errors and warnings, the proof's summary. Above the libraries only.
        .target(
            name: "ConversionModel",
            dependencies: ["AACCodec", "BinaryIO", "CAFKit", "SndFile", "SoundLevels", "SystemLayer", "WAVEKit"],
            swiftSettings: strict),
        // Writing inside an output tree someone else may write too: roots opened once, no symlink
        // followed below them, temporary files committed by an atomic rename that replaces only
        // regular files; the folder walk.
        .target(name: "OutputFiles", dependencies: ["ConversionModel", "BinaryIO", "SystemLayer"], swiftSettings: strict),
        // What an output folder remembers between runs: the manifest, orphans, shards, depfiles.
        .target(
            name: "IncrementalState",
            dependencies: ["ConversionModel", "OutputFiles", "BinaryIO", "ContentHash", "SystemLayer"],
            swiftSettings: strict),
        // `cafconv.toml` rules files: the TOML subset, globs, which rule governs a file.
        .target(name: "Rules", dependencies: ["ConversionModel", "OutputFiles", "Transcoding", "BinaryIO", "SystemLayer"], swiftSettings: strict),
        // One file converted: the source table, the transforms, the output codec table, the
        // container, the proof and the commit.
        .target(
            name: "Transcoding",
            dependencies: [
                "ConversionModel", "OutputFiles", "AACCodec", "BinaryIO", "CAFKit", "Loudness", "MPG123", "OggOpus", "Opus",
                "SndFile", "SoundLevels", "Soxr", "SystemLayer", "WAVEKit",
            ],
            swiftSettings: strict),
        // `verify`: expectations, profiles and `--against`.
        .target(
            name: "Verification",
            dependencies: ["ConversionModel", "OutputFiles", "Transcoding", "AACCodec", "BinaryIO", "CAFKit", "Loudness", "SndFile"],
            swiftSettings: strict),
        // The engine on top: plans jobs from inputs, decides what is up to date, runs them in
        // parallel and returns a report. No terminal output.
        .target(
            name: "Conversion",
            dependencies: [
                "ConversionModel", "OutputFiles", "IncrementalState", "Rules", "Transcoding", "Verification", "BinaryIO",
                "ContentHash", "Loudness", "SndFile", "SystemLayer",
            ],
            swiftSettings: strict
        ),
        // `info`: one description over CAF, WAV and AIFF, from the pure-Swift readers alone (no
        // libsndfile), so a program that only inspects files does not link it.
        .target(name: "Inspection", dependencies: ["CAFKit", "WAVEKit", "BinaryIO"], swiftSettings: strict),
        // `info` and `afinfo` over the sources cafconv does not parse itself (FLAC, MP3, Ogg, Wave64,
        // .au): through the libraries that decode them for convert (libsndfile, libmpg123, OggOpus).
        .target(
            name: "SourceInspection", dependencies: ["Inspection", "SndFile", "MPG123", "OggOpus", "BinaryIO", "WAVEKit"],
            swiftSettings: strict),
        // `report`: one self-contained HTML page of a folder of sounds (levels, waveforms, loops),
        // and the meter that measures them block by block while they are read (standard library
        // and libc only).
        .target(name: "SoundLevels", dependencies: ["SystemLayer"], swiftSettings: strict),
        .target(name: "SoundReport", dependencies: ["SoundLevels", "SystemLayer"], swiftSettings: strict),
        // Declarative command-line parsing, help, manual page and completion scripts (standard
        // library only: no reflection, no Foundation, so the executable starts fast).
        .target(name: "CommandLineKit", dependencies: ["SystemLayer"], swiftSettings: strict),
        // An `Encoder` to a JSON tree and its text, laid out like JSONEncoder (standard library only).
        .target(name: "JSONKit", swiftSettings: strict),
        // The command-line front end.
        .executableTarget(
            name: "cafconv",
            dependencies: [
                "Conversion", "ConversionModel", "OutputFiles", "IncrementalState", "Rules", "Transcoding", "Verification",
                "Inspection", "BinaryIO", "CommandLineKit", "JSONKit", "Loudness", "SystemLayer", "SoundLevels", "SoundReport",
                "SourceInspection",
            ],
            swiftSettings: strict
        ),

        // The build-tool plugin: one `cafconv convert` per audio source of the target.
        .plugin(name: "CAFConvPlugin", capability: .buildTool(), dependencies: ["cafconv"]),

        // A developer tool for the IMA4 codec (bench/ima4-quality.sh); not part of cafconv.
        .executableTarget(name: "ima4tool", dependencies: ["CAFKit", "BinaryIO"], swiftSettings: strict),

        // Fixture builders and output checks shared by the test targets (WAV writer, sample generators).
        .target(name: "TestSupport", dependencies: ["BinaryIO", "CAFKit"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "SystemLayerTests", dependencies: ["SystemLayer"], swiftSettings: strict),
        .testTarget(name: "ContentHashTests", dependencies: ["ContentHash"], swiftSettings: strict),
        .testTarget(name: "BinaryIOTests", dependencies: ["BinaryIO"], swiftSettings: strict),
        .testTarget(name: "CAFKitTests", dependencies: ["CAFKit", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "WAVEKitTests", dependencies: ["WAVEKit", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SndFileTests", dependencies: ["SndFile", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ConversionTests",
            dependencies: [
                "Conversion", "ConversionModel", "OutputFiles", "IncrementalState", "Rules", "Transcoding", "Verification",
                "Inspection", "CAFKit", "WAVEKit", "TestSupport", "AACCodec", "Opus", "ContentHash", "SoundLevels", "SoundReport",
            ],
            swiftSettings: strict
        ),
        // The meter checked against an independent BS.1770 oracle and EBU Tech 3341/3342 signals.
        .testTarget(name: "LoudnessTests", dependencies: ["Loudness"], swiftSettings: strict),
        .testTarget(name: "SoundReportTests", dependencies: ["SoundLevels", "SoundReport", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "OpusTests", dependencies: ["Opus", "OggOpus", "BinaryIO", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"], swiftSettings: strict),
        .testTarget(
            name: "JSONKitTests",
            dependencies: [
                "JSONKit", "Conversion", "ConversionModel", "OutputFiles", "IncrementalState", "Rules", "Transcoding",
                "Verification", "Inspection", "TestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "cafconvTests",
            dependencies: ["cafconv", "CAFKit", "TestSupport"],
            swiftSettings: strict
        ),
    ]
)

// swift-tools-version: 6.2
// An example of the CAFConvPlugin build-tool plugin: the WAV files under Sources/GameSounds/Sounds
// become CAF resources of the GameSounds target, converted by cafconv as
// Sources/GameSounds/cafconv.toml says; the test loads them through Bundle.module. It depends on
// the cafconv package by path; in your own package, depend on its repository URL instead.
// `make test` in the root package builds and tests it (`make plugin-example`).
import PackageDescription

let package = Package(
    name: "SoundAssets",
    dependencies: [
        .package(name: "cafconv", path: "../..")
    ],
    targets: [
        .target(
            name: "GameSounds",
            // The WAV files are the plugin's inputs, not resources of their own.
            exclude: ["Sounds", "cafconv.toml"],
            swiftSettings: [.treatAllWarnings(as: .error)],
            plugins: [.plugin(name: "CAFConvPlugin", package: "cafconv")]
        ),
        .testTarget(
            name: "GameSoundsTests",
            dependencies: [
                "GameSounds",
                .product(name: "CAFKit", package: "cafconv"),
                .product(name: "BinaryIO", package: "cafconv"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)

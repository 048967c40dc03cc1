// swift-tools-version: 6.2
// An example of using CAFKit from another package: read a CAF file, describe it and validate it.
// It depends on the cafconv package by path; in your own package, depend on its repository URL
// instead. CAFKit and BinaryIO need only the Swift standard library (no libsndfile, no
// Foundation). `make test` in the root package builds and runs it.
import PackageDescription

let package = Package(
    name: "ReadCAF",
    dependencies: [
        .package(name: "cafconv", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "read-caf",
            dependencies: [
                // CAFKit: the model, reader, validator and writer. BinaryIO: the byte sources it
                // reads from (FileByteSource, MemoryByteSource), ByteOrder and FourCC.
                .product(name: "CAFKit", package: "cafconv"),
                .product(name: "BinaryIO", package: "cafconv"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        )
    ]
)

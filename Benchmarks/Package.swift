// swift-tools-version: 6.2
// Micro-benchmarks for cafconv, kept in their own package so that `swift test` in the root
// package never builds them. Run with `cd Benchmarks && swift package benchmark`.
import PackageDescription

let package = Package(
    name: "cafconv-benchmarks",
    dependencies: [
        .package(name: "cafconv", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "CAFKitBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CAFKit", package: "cafconv"),
                .product(name: "BinaryIO", package: "cafconv"),
            ],
            path: "Benchmarks/CAFKitBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)

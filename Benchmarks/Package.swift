// swift-tools-version:6.1
// The benchmark package: kept apart from the product's build (it needs package-benchmark
// and its allocation counters). Run from this folder: `swift package benchmark`.
import PackageDescription

let package = Package(
    name: "imgquality-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "imgquality", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // SIMD kernels beside their scalar twins, on a 12 MP plane.
        .executableTarget(
            name: "Kernels",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ImagingCore", package: "imgquality"),
                .product(name: "ImageKernels", package: "imgquality"),
            ],
            path: "Benchmarks/Kernels",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Decoders (full and reduced), each detector, and the whole assessment.
        .executableTarget(
            name: "Pipeline",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ImagingCore", package: "imgquality"),
                .product(name: "ImageCodecs", package: "imgquality"),
                .product(name: "ImageKernels", package: "imgquality"),
                .product(name: "QualityMetrics", package: "imgquality"),
                .product(name: "QualityGating", package: "imgquality"),
                .product(name: "QualityAssessment", package: "imgquality"),
            ],
            path: "Benchmarks/Pipeline",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)

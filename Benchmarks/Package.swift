// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite lives in its own package so the library's build and tests do not
// compile package-benchmark. Run with `make benchmark` (or `swift package benchmark` here).
let package = Package(
    name: "TimbreBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Timbre", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // libebur128 and bare FFTW, measured beside Timbre's meters and analyser in the same run.
        .systemLibrary(name: "CEbur128Bench", path: "Benchmarks/CEbur128Bench", pkgConfig: "libebur128"),
        .systemLibrary(name: "CFFTWBench", path: "Benchmarks/CFFTWBench", pkgConfig: "fftw3f"),
        .executableTarget(
            name: "AnalysisBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TimbreDSP", package: "Timbre"),
                "CEbur128Bench", "CFFTWBench",
            ],
            path: "Benchmarks/AnalysisBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // libsoxr (Debian libsoxr-dev), measured beside Timbre's resampler in the same run.
        .systemLibrary(name: "CSoxrBench", path: "Benchmarks/CSoxrBench", pkgConfig: "soxr"),
        .executableTarget(
            name: "RateBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TimbreDSP", package: "Timbre"),
                "CSoxrBench",
            ],
            path: "Benchmarks/RateBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "NodeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TimbreDSP", package: "Timbre"),
                .product(name: "TimbreEngine", package: "Timbre"),
                .product(name: "TimbrePlugins", package: "Timbre"),
            ],
            path: "Benchmarks/NodeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A live edit's control-thread cost and its crossfade's render cost.
        .executableTarget(
            name: "EditBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TimbreDSP", package: "Timbre"),
                .product(name: "TimbreEngine", package: "Timbre"),
                .product(name: "TimbreControl", package: "Timbre"),
            ],
            path: "Benchmarks/EditBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)

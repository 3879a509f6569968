// swift-tools-version: 6.0
import PackageDescription

// A package of its own that depends on Timbre, as a DSP developer's would: `make embed-check`
// builds it in debug and release from a fresh clone and compares their output.
// TIMBRE_PATH points at the Timbre checkout (default: this repository).
let timbrePath = Context.environment["TIMBRE_PATH"] ?? "../.."

let package = Package(
    name: "EmbeddingExample",
    dependencies: [.package(name: "Timbre", path: timbrePath)],
    targets: [
        .executableTarget(name: "EmbeddingExample", dependencies: [
            .product(name: "TimbreEngine", package: "Timbre"),
            .product(name: "TimbreDSP", package: "Timbre"),
            .product(name: "TimbreFile", package: "Timbre"),
        ]),
        .testTarget(name: "EmbeddingTests", dependencies: [.product(name: "TimbreEngine", package: "Timbre")]),
    ]
)

// swift-tools-version: 6.0
import PackageDescription

// Timbre: a real-time audio effects library and host.
// Module graph (one direction of dependency):
//   CSndFile, CJack, CFFTW, CTimbreSupport  ->  TimbreDSP  ->  TimbreEngine  ->  TimbreFile, TimbreJack  ->  timbre
//   CLilv, CTimbrePlugins  ->  TimbrePlugins (LV2 and LADSPA hosting; TimbreEngine sees plugins through SharedNodeStates)
//   TimbreControl, SwiftNIO  ->  TimbreWeb (the control page of `timbre live --http`)  ->  timbre
// `@_noLocks` on the render path is checked by the optimizer's performance diagnostics, which
// fail on every unspecialised generic call in a debug (-Onone) build. The attribute is applied
// only where TIMBRE_REALTIME_CHECKS is defined: release builds, for Timbre and for packages
// depending on it. Debug builds still run the RealtimeSanitizer and allocation checks' code
// paths; the compile-time proof lives in release.
let realtimeChecks: [SwiftSetting] = [.define("TIMBRE_REALTIME_CHECKS", .when(configuration: .release))]

let package = Package(
    name: "Timbre",
    products: [
        .library(name: "TimbreDSP", targets: ["TimbreDSP"]),
        .library(name: "TimbreEngine", targets: ["TimbreEngine"]),
        .library(name: "TimbreFile", targets: ["TimbreFile"]),
        .library(name: "TimbreControl", targets: ["TimbreControl"]),
        .library(name: "TimbreJack", targets: ["TimbreJack"]),
        .library(name: "TimbrePlugins", targets: ["TimbrePlugins"]),
        .library(name: "TimbreHost", targets: ["TimbreHost"]),
        .executable(name: "timbre", targets: ["timbre"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        // The web surface (`timbre live --http`): HTTP and WebSocket on SwiftNIO.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation` (the DocC catalogs in Sources/*/*.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CJack", pkgConfig: "jack",
                       providers: [.apt(["libjack-jackd2-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f",
                       providers: [.apt(["libfftw3-dev"])]),
        // libebur128: a test and benchmark oracle only (the meters are Timbre's own).
        .systemLibrary(name: "CEbur128", pkgConfig: "libebur128",
                       providers: [.apt(["libebur128-dev"])]),
        // Plugin hosting: lilv finds and loads LV2 plugins; LADSPA is ladspa.h and dlopen.
        .systemLibrary(name: "CLilv", pkgConfig: "lilv-0",
                       providers: [.apt(["liblilv-dev", "lv2-dev", "ladspa-sdk"])]),
        .target(name: "CTimbrePlugins"),
        .target(name: "CTimbreSupport"),
        .target(name: "CRealtimeSanitizer"),
        .target(name: "TimbreDSP", dependencies: ["CTimbreSupport", "CFFTW", .product(name: "Atomics", package: "swift-atomics")],
                swiftSettings: realtimeChecks),
        .target(name: "TimbreEngine", dependencies: ["TimbreDSP", .product(name: "Atomics", package: "swift-atomics")],
                swiftSettings: realtimeChecks),
        .target(name: "TimbrePlugins", dependencies: ["TimbreEngine", "CLilv", "CTimbrePlugins"]),
        .target(name: "TimbreFile", dependencies: ["TimbreEngine", "CSndFile", "CTimbreSupport"]),
        .target(name: "TimbreControl", dependencies: ["TimbreEngine", "CTimbreSupport"]),
        .target(name: "TimbreJack", dependencies: ["TimbreEngine", "CJack", "CTimbreSupport",
                                                   .product(name: "Atomics", package: "swift-atomics")],
                swiftSettings: realtimeChecks),
        .target(name: "TimbreWeb", dependencies: [
            "TimbreControl", "TimbreEngine",
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ], resources: [.embedInCode("Page/index.html"), .embedInCode("Page/app.js"), .embedInCode("Page/app.css")]),
        // The sessions as a library: live (control loop, one grammar, replies per transport),
        // web, takes, offline render with normalisation, batch, response and meter formatting.
        .target(name: "TimbreHost", dependencies: [
            "TimbreEngine", "TimbreFile", "TimbreControl", "TimbreJack", "TimbrePlugins", "TimbreWeb",
            .product(name: "Atomics", package: "swift-atomics"),
        ]),
        // The command-line program: argument parsing and printing only.
        .executableTarget(name: "timbre", dependencies: [
            "TimbreHost", "TimbreEngine", "TimbreFile", "TimbreControl", "TimbreJack", "TimbrePlugins", "TimbreWeb",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Atomics", package: "swift-atomics"),
        ]),
        .executableTarget(name: "RenderChainExample", dependencies: ["TimbreEngine", "TimbreFile"],
                          path: "Examples/RenderChain"),
        .executableTarget(name: "PrintBandsExample", dependencies: ["TimbreEngine"],
                          path: "Examples/PrintBands"),
        .executableTarget(name: "ChangeRateExample", dependencies: ["TimbreDSP"],
                          path: "Examples/ChangeRate"),
        .executableTarget(name: "TwoChannelsExample", dependencies: ["TimbreEngine", "TimbreFile", "TimbreJack", "TimbreControl"],
                          path: "Examples/TwoChannels"),
        .executableTarget(name: "HostSessionsExample", dependencies: ["TimbreHost", "TimbreEngine", "TimbreFile", "TimbreDSP"],
                          path: "Examples/HostSessions"),
        .executableTarget(name: "KaraokeExample", dependencies: ["TimbreEngine", "TimbreFile", "TimbreJack"],
                          path: "Examples/Karaoke"),
        // Test helpers: signals, fits, tolerance tables and processes (DSP level), and the
        // engine-level fixtures on top, so each test module depends only on what it tests.
        .target(name: "TimbreTestSignals", dependencies: ["TimbreDSP"], path: "Tests/TestSignals"),
        .target(name: "TimbreTestSupport", dependencies: ["TimbreTestSignals", "TimbreEngine", "TimbreControl", "TimbreFile"], path: "Tests/TestSupport"),
        .executableTarget(name: "RealtimeSafetyCheck", dependencies: ["TimbreEngine", "TimbreFile", "TimbreJack", "TimbrePlugins", "CRealtimeSanitizer", "TimbreTestSupport"],
                          path: "Tests/RealtimeSafetyCheck"),
        .testTarget(name: "TimbreDSPTests", dependencies: ["TimbreDSP", "CTimbreSupport", "TimbreTestSignals", "CEbur128"]),
        .executableTarget(name: "AllocationCheck", dependencies: [
            "TimbreEngine", "TimbreFile", "TimbrePlugins", "TimbreTestSupport", .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
        ], path: "Tests/AllocationCheck"),
        .testTarget(name: "TimbreEngineTests", dependencies: ["TimbreEngine", "TimbreControl", "TimbreFile", "TimbreTestSupport"]),
        .testTarget(name: "TimbreControlTests", dependencies: ["TimbreControl", "TimbreTestSupport"]),
        .testTarget(name: "TimbreFileTests", dependencies: ["TimbreFile", "TimbreTestSupport"]),
        .testTarget(name: "TimbrePluginsTests", dependencies: ["TimbrePlugins", "TimbreEngine", "TimbreFile", "TimbreControl", "TimbreTestSupport"]),
        .testTarget(name: "TimbreCLITests", dependencies: ["TimbreFile", "TimbreTestSupport", "CEbur128"]),
        .testTarget(name: "TimbreWebTests", dependencies: ["TimbreWeb", "TimbreTestSupport", .product(name: "NIOHTTP1", package: "swift-nio")]),
        .testTarget(name: "TimbreJackTests", dependencies: [
            "TimbreJack", "TimbreEngine", "TimbreControl", "TimbreFile", "TimbrePlugins", "TimbreTestSupport", "CJack", .product(name: "Atomics", package: "swift-atomics"),
        ], exclude: ["Web"]),
    ]
)

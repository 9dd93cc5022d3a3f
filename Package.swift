// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Layers (see docs/layout.md):
//   ActivationConfiguration    documents, payloads, signed codes, keys, policy, transformers,
//                              providers, loader, store, files. No C imaging (zlib only), no network stack.
//   ActivationImaging          C-backed: image decoding, zbar scanning, qrencode encoding, rendering,
//                              and the barcode configuration provider.
//   ActivationSecureStore      the secure store: an age file under the passcode, client policies
//                              applied (retry limit, lock timeout, expiry, block/wipe), keyring cache.
//   ActivationDiscoveryProtocol  the discovery service's protocol: routes, error codes, resources.
//                              Foundation only; server, client, CLI and fuzz targets share it.
//   ActivationDiscovery        the discovery-service provider (HTTP client).
//   ActivationDiscoveryServer  a discovery service (`activate serve`).
//   activate                   the command-line tool; thin, all logic lives in the libraries.
//   FileAccess                 support: the one place files are read and written (swift-system).
// Dependencies on the network stacks count only with their trait on (see `traits` below).
let client = TargetDependencyCondition.when(traits: ["DiscoveryClient"])
let server = TargetDependencyCondition.when(traits: ["DiscoveryServer"])

let package = Package(
    name: "activate",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ActivationConfiguration", targets: ["ActivationConfiguration"]),
        .library(name: "ActivationImaging", targets: ["ActivationImaging"]),
        .library(name: "ActivationSecureStore", targets: ["ActivationSecureStore"]),
        .library(name: "ActivationOnboarding", targets: ["ActivationOnboarding"]),
        .library(name: "ActivationDiscoveryProtocol", targets: ["ActivationDiscoveryProtocol"]),
        .library(name: "ActivationDiscovery", targets: ["ActivationDiscovery"]),
        .library(name: "ActivationDiscoveryServer", targets: ["ActivationDiscoveryServer"]),
        .executable(name: "activate", targets: ["activate"]),
        .executable(name: "activate-zxing-helper", targets: ["ZXingHelper"]),
    ],
    // The network stacks are traits, on by default: a package that uses only ActivationConfiguration
    // or ActivationImaging depends on activate with `traits: []`, and SwiftPM then neither fetches
    // nor builds SwiftNIO, AsyncHTTPClient or Hummingbird (README, "Library"). The discovery
    // targets and the `activate` tool need both traits.
    traits: [
        .trait(
            name: "DiscoveryClient",
            description: """
                The HTTP client: ActivationDiscovery (the discovery-service provider) and the settings download \
                and sign-in of ActivationOnboarding, over AsyncHTTPClient.
                """
        ),
        .trait(
            name: "DiscoveryServer",
            description: "ActivationDiscoveryServer: the discovery service of `activate serve`, over Hummingbird."),
        .default(enabledTraits: ["DiscoveryClient", "DiscoveryServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Already in the graph through Hummingbird; named for the connection handlers of `serve`.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        // The discovery service's database: one query layer (sql-kit) over SQLite and PostgreSQL.
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The discovery service's server, refresh and upkeep run as one service group (as Hummingbird's own).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `/metrics` of the discovery service.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // System libraries. Each is a module map over one shim header; the C types never leave
        // ActivationImaging (imported `internal`).
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        // Inflating PNG image data in one piece, at twice zlib's speed (PNGCodec's direct path).
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // The kernel keyring, where an unlocked secure store's key waits out the lock timeout.
        .systemLibrary(name: "CKeyutils", pkgConfig: "libkeyutils", providers: [.apt(["libkeyutils-dev"])]),
        // Raw DEFLATE of the configuration inside `AC1:` codes.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libzbar (libzbar-dev's header), loaded when a zbar pass first runs, not linked: its 25
        // libraries for video and windows would otherwise load with every start of every command.
        .target(name: "CZBar", linkerSettings: [.linkedLibrary("dl")]),
        // glibc functions declared only under _GNU_SOURCE: memfd_create(2), the memory the zxing helper
        // reads the pixels from, and the spawn action that gives the helper no other descriptor.
        .systemLibrary(name: "CGlibcExtras"),

        // Every file read and write (regular files only, size caps, atomic writes, locks), over
        // swift-system; package access only: the libraries give it their own error types.
        .target(name: "FileAccess", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "ActivationConfiguration",
            dependencies: [
                "CZlib",
                "FileAccess",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The secure store: an age file under the passcode, the retry and lock state, the keyring cache.
        .target(
            name: "ActivationSecureStore",
            dependencies: [
                "ActivationConfiguration", "FileAccess", "CKeyutils",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Onboarding as steps an app composes into flows (onboard, restore, sync, reset), with a
        // presenter the app supplies; the commands of `activate` are flows of these steps.
        .target(
            name: "ActivationOnboarding",
            dependencies: [
                "ActivationConfiguration", "ActivationSecureStore",
                .product(name: "Logging", package: "swift-log"),
                // PKCE's S256 challenge.
                .product(name: "Crypto", package: "swift-crypto"),
                // The settings download and the sign-in over HTTP, and the sign-in's loopback
                // listener, only with the client's trait.
                .target(name: "ActivationDiscovery", condition: client),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: client),
                .product(name: "NIOCore", package: "swift-nio", condition: client),
                .product(name: "NIOPosix", package: "swift-nio", condition: client),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: client),
            ]
        ),
        .target(
            name: "ActivationImaging",
            dependencies: [
                "ActivationConfiguration", "FileAccess", "CZBar", "CQREncode", "CPNG", "CTurboJPEG", "CDeflate",
                "CZlib", "CGlibcExtras",
            ]
        ),
        // The second decoding engine, zxing-cpp (Debian's libzxing-dev), in a process of its own:
        // ActivationImaging starts it and survives its crashes (see ZXingEngine.swift).
        .executableTarget(
            name: "ZXingHelper",
            linkerSettings: [.linkedLibrary("ZXing")]
        ),
        // What server and client agree on; no network or database stack, so fuzz targets take it too.
        .target(name: "ActivationDiscoveryProtocol"),
        .target(
            name: "ActivationDiscovery",
            dependencies: [
                "ActivationConfiguration",
                "ActivationDiscoveryProtocol",
                "FileAccess",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: client),
                // Connection errors are told apart by their types.
                .product(name: "NIOCore", package: "swift-nio", condition: client),
                .product(name: "NIOPosix", package: "swift-nio", condition: client),
            ]
        ),
        .target(
            name: "ActivationDiscoveryServer",
            dependencies: [
                "ActivationConfiguration",
                "ActivationDiscoveryProtocol",
                "FileAccess",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: server),
                .product(name: "NIOCore", package: "swift-nio", condition: server),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: server),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: server),
                .product(name: "NIOPosix", package: "swift-nio", condition: server),
                .product(name: "SQLKit", package: "sql-kit", condition: server),
                .product(name: "SQLiteKit", package: "sqlite-kit", condition: server),
                .product(name: "PostgresKit", package: "postgres-kit", condition: server),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: server),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: server),
                .product(name: "Prometheus", package: "swift-prometheus", condition: server),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
            ],
            // The service's OpenAPI description (served at /openapi.yaml) and the console's files,
            // compiled into the binary.
            resources: [
                .embedInCode("Resources/openapi.yaml"),
                .embedInCode("Resources/Console/index.html"),
                .embedInCode("Resources/Console/console.js"),
                .embedInCode("Resources/Console/console.css"),
            ]
        ),
        .executableTarget(
            name: "activate",
            dependencies: [
                "ActivationConfiguration",
                "ActivationImaging",
                "ActivationDiscovery",
                "ActivationDiscoveryProtocol",
                "ActivationDiscoveryServer",
                "ActivationSecureStore",
                "ActivationOnboarding",
                "ZXingHelper",
                "FileAccess",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log", condition: server),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // IOError: `serve` names a port in use plainly.
                .product(name: "NIOCore", package: "swift-nio", condition: server),
            ]
        ),

        // Runnable examples of library use (docs/library.md); CI runs them.
        .executableTarget(
            name: "sample-custom-provider", dependencies: ["ActivationConfiguration"],
            path: "SampleCodes/CustomProvider"),
        .executableTarget(
            name: "sample-scan-to-configuration", dependencies: ["ActivationConfiguration", "ActivationImaging"],
            path: "SampleCodes/ScanToConfiguration"),
        .executableTarget(
            name: "sample-custom-transformer", dependencies: ["ActivationConfiguration"],
            path: "SampleCodes/CustomTransformer"),
        .executableTarget(
            name: "sample-secure-store",
            dependencies: ["ActivationConfiguration", "ActivationSecureStore", "ActivationOnboarding"],
            path: "SampleCodes/SecureStore"),
        .executableTarget(
            name: "sample-onboarding-flow",
            dependencies: ["ActivationConfiguration", "ActivationSecureStore", "ActivationOnboarding"],
            path: "SampleCodes/OnboardingFlow"),
        .executableTarget(
            name: "sample-access-token",
            dependencies: ["ActivationConfiguration", "ActivationSecureStore", "ActivationOnboarding"],
            path: "SampleCodes/AccessToken"),
        .executableTarget(
            name: "sample-verify-activation-code", dependencies: ["ActivationConfiguration"],
            path: "SampleCodes/VerifyActivationCode"),
        .executableTarget(
            name: "sample-discovery-service",
            dependencies: [
                "ActivationConfiguration", "ActivationDiscovery", "ActivationDiscoveryProtocol",
                "ActivationDiscoveryServer",
            ],
            path: "SampleCodes/DiscoveryService"),
        // The README's "Library" program, verbatim (a test keeps the two the same).
        .executableTarget(
            name: "sample-scan-and-check", dependencies: ["ActivationConfiguration", "ActivationImaging"],
            path: "SampleCodes/ScanAndCheck"),
        // In-process decoding timings, from the shipped release build (benchmarks/README.md).
        .executableTarget(
            name: "decode-benchmark", dependencies: ["ActivationConfiguration", "ActivationImaging"],
            path: "benchmarks/DecodeBenchmark"),

        // Two lanes, by target. Unit targets start no process, open no network socket and run no
        // server (`make check`; scripts/unit-lane-check.sh holds them to it); integration targets,
        // named *IntegrationTests, do (the zxing helper, the `activate` binary, PostgreSQL, the
        // identity providers, Chromium, real ports). `make test` runs both.

        // What several test targets share: temporary folders, a log capture, the served folder, the
        // image fixtures, the identity providers and servers the integration tests start.
        .target(
            name: "TestSupport", dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport"),
        // The scripted presenter and store folder of the onboarding tests, both lanes.
        .target(
            name: "OnboardingTestSupport",
            dependencies: ["ActivationOnboarding", "ActivationSecureStore", "ActivationConfiguration", "TestSupport"],
            path: "Tests/OnboardingTestSupport"),

        // Unit lane.
        .testTarget(
            name: "FileAccessTests",
            dependencies: ["FileAccess", "TestSupport", .product(name: "SystemPackage", package: "swift-system")]),
        .testTarget(
            name: "ActivationConfigurationTests",
            dependencies: [
                "ActivationConfiguration", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ActivationImagingTests",
            // CDeflate: the tests write the PNGs of every layout they need instead of keeping them.
            dependencies: ["ActivationImaging", "ActivationConfiguration", "TestSupport", "CDeflate"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ActivationSecureStoreTests",
            dependencies: [
                "ActivationSecureStore", "ActivationConfiguration", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ActivationOnboardingTests",
            dependencies: [
                "ActivationOnboarding", "ActivationSecureStore", "ActivationConfiguration", "TestSupport",
                "OnboardingTestSupport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The discovery service in-process (HummingbirdTesting's router framework, no socket), its
        // protocol and its OpenAPI document.
        .testTarget(
            name: "ActivationDiscoveryServerTests",
            dependencies: [
                "ActivationDiscoveryServer", "ActivationDiscoveryProtocol", "ActivationConfiguration", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird", condition: server),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: server),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The command line in-process: option parsing, the error report, the documentation's code.
        .testTarget(name: "ActivateCLITests", dependencies: ["activate", "TestSupport"]),

        // Integration lane.
        .testTarget(
            name: "FileAccessIntegrationTests",
            dependencies: ["FileAccess", "TestSupport"]),
        .testTarget(
            name: "ImagingIntegrationTests",
            // CTurboJPEG, CDeflate: the tests write the large JPEGs and the PNGs they need.
            dependencies: ["ActivationImaging", "ActivationConfiguration", "TestSupport", "CTurboJPEG", "CDeflate"]
        ),
        .testTarget(
            name: "OnboardingIntegrationTests",
            dependencies: [
                "ActivationOnboarding", "ActivationSecureStore", "ActivationConfiguration", "TestSupport",
                "OnboardingTestSupport", .product(name: "Logging", package: "swift-log"),
                // The in-process server that makes the faults real providers will not.
                .product(name: "NIOCore", package: "swift-nio", condition: client),
                .product(name: "NIOPosix", package: "swift-nio", condition: client),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: client),
            ]
        ),
        .testTarget(
            name: "DiscoveryIntegrationTests",
            dependencies: [
                // The PostgreSQL server is started with no descriptor of the test process.
                "CGlibcExtras",
                "ActivationDiscovery", "ActivationDiscoveryProtocol", "ActivationDiscoveryServer",
                "ActivationConfiguration", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: client),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: server),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "CLIIntegrationTests",
            dependencies: [
                "activate", "ActivationImaging", "ActivationConfiguration", "ActivationSecureStore", "TestSupport",
            ],
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (Fuzz/), only for `scripts/fuzz.sh`, which builds them with
// `-sanitize=fuzzer,address` in a build folder of their own.
if ProcessInfo.processInfo.environment["ACTIVATE_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            // The route parser comes from the protocol module, and the fuzz build turns the default
            // traits off: it leaves out the network and database stacks.
            name: "activate-fuzz",
            dependencies: [
                "ActivationConfiguration", "ActivationImaging", "ActivationSecureStore", "ActivationOnboarding",
                "ActivationDiscoveryProtocol", "CDeflate",
                .product(name: "Crypto", package: "swift-crypto"),
            ], path: "Fuzz",
            exclude: ["seeds", "lsan-suppressions.txt"],
            // No Swift `main`: libFuzzer's drives the target.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
}

// `make docs`: the DocC plugin, only when documentation is built, so that packages depending on
// activate never fetch it.
if ProcessInfo.processInfo.environment["ACTIVATE_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

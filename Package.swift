// swift-tools-version: 6.1
import PackageDescription

// Layers (see README "Layout"):
//   ActivationConfiguration  pure Swift: configuration documents, payloads, files. No C, no imaging.
//   ActivationImaging        C-backed: image decoding, zbar scanning, qrencode encoding, rendering.
//   activate                 the command-line tool; thin, all logic lives in the libraries.
let package = Package(
    name: "activate",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ActivationConfiguration", targets: ["ActivationConfiguration"]),
        .library(name: "ActivationImaging", targets: ["ActivationImaging"]),
        .executable(name: "activate", targets: ["activate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // System libraries. Each is a module map over one shim header; the C types never leave
        // ActivationImaging (imported `internal`).
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),

        .target(
            name: "ActivationConfiguration",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "ActivationImaging",
            dependencies: ["ActivationConfiguration", "CZBar", "CQREncode", "CPNG", "CTurboJPEG"]
        ),
        .executableTarget(
            name: "activate",
            dependencies: [
                "ActivationConfiguration",
                "ActivationImaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(
            name: "ActivationImagingTests",
            dependencies: ["ActivationImaging", "ActivationConfiguration"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ActivationConfigurationTests",
            dependencies: [
                "ActivationConfiguration",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ActivateCLITests",
            dependencies: ["activate", "ActivationImaging"],
            exclude: ["Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

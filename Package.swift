// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "ImagePipe", targets: ["ImagePipe"]),
        .library(name: "ImagePipeCommand", targets: ["ImagePipeCommand"]),
        .executable(name: "imagepipe", targets: ["imagepipe"]),
    ],
    targets: [
        .systemLibrary(
            name: "CGdkPixbuf",
            pkgConfig: "gdk-pixbuf-2.0",
            providers: [.apt(["libgdk-pixbuf-2.0-dev", "libglib2.0-dev"])]
        ),
        .target(name: "ImagePipe", dependencies: ["CGdkPixbuf"]),
        .target(name: "ImagePipeCommand", dependencies: ["ImagePipe"]),
        .executableTarget(name: "imagepipe", dependencies: ["ImagePipeCommand"]),
        .target(name: "TestSupport", dependencies: ["ImagePipe"], path: "Tests/TestSupport"),
        .testTarget(name: "ImagePipeTests", dependencies: ["ImagePipe", "TestSupport"]),
        .testTarget(name: "ImagePipeCommandTests", dependencies: ["ImagePipeCommand", "TestSupport", "imagepipe"]),
    ],
    swiftLanguageModes: [.v6]
)

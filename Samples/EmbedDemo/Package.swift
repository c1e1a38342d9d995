// swift-tools-version:6.0
import PackageDescription

// A small tool that uses ImagePipe as a library: pipeline text, a pipeline built in Swift,
// pictures in memory and as bytes, and the avatar editor's model.
let package = Package(
    name: "EmbedDemo",
    dependencies: [.package(name: "ImagePipe", path: "../..")],
    targets: [
        .executableTarget(name: "embed-demo", dependencies: [
            .product(name: "ImagePipe", package: "ImagePipe"),
            .product(name: "ImagePipeStages", package: "ImagePipe"), // for StandardPlugins
            .product(name: "FitZoom", package: "ImagePipe"),
            .product(name: "CircleCrop", package: "ImagePipe"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
import PackageDescription

// A third-party stage for ImagePipe: `sepia`, usable three ways —
//   compiled into your own tool (the Sepia library),
//   in your own build of the command (my-imagepipe),
//   or loaded by the stock `imagepipe --plugin` at run time (libSepiaPlugin.so).
let package = Package(
    name: "CustomStage",
    products: [
        .library(name: "Sepia", targets: ["Sepia"]),
        .library(name: "SepiaPlugin", type: .dynamic, targets: ["SepiaPlugin"]),
        .executable(name: "my-imagepipe", targets: ["my-imagepipe"]),
    ],
    dependencies: [
        .package(name: "ImagePipe", path: "../.."),
    ],
    targets: [
        .target(name: "Sepia", dependencies: [.product(name: "ImagePipeCore", package: "ImagePipe")]),
        .target(name: "SepiaPlugin", dependencies: ["Sepia", .product(name: "ImagePipePluginKit", package: "ImagePipe")]),
        .executableTarget(name: "my-imagepipe", dependencies: ["Sepia", .product(name: "ImagePipeCommand", package: "ImagePipe"),
                                                         .product(name: "ImagePipeStages", package: "ImagePipe")]),
        .testTarget(name: "SepiaTests", dependencies: ["Sepia"]),
    ],
    swiftLanguageModes: [.v6]
)

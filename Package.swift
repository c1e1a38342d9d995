// swift-tools-version:6.0
import PackageDescription

/// The stage plugins under Plugins/, one module each.
///
/// No target carries unsafe flags, so a tagged version can be a dependency. The pixel loops
/// (SIMD, generic arithmetic) run some 20× slower unoptimized: the Makefile builds debug
/// builds with `-Xswiftc -O` for the tests and samples.
let pluginNames = ["FitZoom", "Letterbox", "SquareSlice", "CircleCrop", "AnchorRotate", "Geometry", "Tone", "Filters", "Alpha", "Compose"]
let plugins = pluginNames.map { Target.Dependency(stringLiteral: $0) }

let package = Package(
    name: "ImagePipe",
    products: [
        .library(name: "ImagePipeCore", targets: ["ImagePipeCore"]),
        .library(name: "ImagePipe", targets: ["ImagePipe"]),
        .library(name: "ImagePipeStages", targets: ["ImagePipeStages"]),
        .library(name: "ImagePipeCommand", targets: ["ImagePipeCommand"]),
        .library(name: "ImagePipePluginKit", targets: ["ImagePipePluginKit"]),
        .executable(name: "imagepipe", targets: ["imagepipe"]),
    ] + pluginNames.map { .library(name: $0, targets: [$0]) }, // so an embedding package can `import FitZoom`
    targets: [
        .systemLibrary(
            name: "CGdkPixbuf",
            pkgConfig: "gdk-pixbuf-2.0",
            providers: [.apt(["libgdk-pixbuf-2.0-dev", "libglib2.0-dev"])]
        ),
        // libsoup 3 serves `imagepipe edit`'s page; only the command links it.
        .systemLibrary(name: "CSoup", pkgConfig: "libsoup-3.0", providers: [.apt(["libsoup-3.0-dev"])]),
        // Pango renders the text stage's watermarks: the GNOME text stack gdk-pixbuf belongs to,
        // which shapes any script (HarfBuzz) and finds fonts through fontconfig; PangoCairo draws it.
        // fontconfig itself names a font that has the characters a text's fonts lack.
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // zlib streams the PNG encoder's deflate for large pictures (libdeflate needs the whole input at once).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Colour, metadata and the formats gdk-pixbuf cannot write well (docs/formats.md says why each).
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpmux", providers: [.apt(["libwebp-dev"])]),
        // libheif and libavif are opened on first use, not linked (CLibraryLoader says why): these
        // targets hold their headers' forwarders. libheif-dev and libavif-dev give the headers.
        .target(name: "CLibraryLoader"),
        .target(name: "CAvif", dependencies: ["CLibraryLoader"]),
        .target(name: "CHeif", dependencies: ["CLibraryLoader"]),
        .systemLibrary(name: "CImageQuant", pkgConfig: "imagequant", providers: [.apt(["libimagequant-dev"])]),
        .systemLibrary(name: "CGIF", pkgConfig: "cgif", providers: [.apt(["libcgif-dev"])]),
        // giflib has no pkg-config file: its module map links libgif by name.
        .systemLibrary(name: "CGifLib", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CSpng", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        // libjxl for JPEG XL both ways, and its thread pool (libjxl_threads, linked by the module map).
        .systemLibrary(name: "CJXL", pkgConfig: "libjxl", providers: [.apt(["libjxl-dev"])]),
        // libarchive writes a tile pyramid into one ZIP file as its tiles are made (libvips'
        // dzsave uses libgsf; libarchive is the streaming archive writer Debian's tools share).
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .target(name: "CImagePipePlugin"),
        .target(name: "CJPEGStrict", dependencies: ["CPixelKernels"], linkerSettings: [.linkedLibrary("jpeg")]),
        // libtiff directly for TIFF both ways (docs/formats.md says why); C because TIFFGetField
        // and TIFFSetField are variadic.
        .target(name: "CTiffCodec", linkerSettings: [.linkedLibrary("tiff")]),
        // The resampler's integer column pass, in C for its AVX2 version (pixel_kernels.h says why).
        .target(name: "CPixelKernels"),
        .target(name: "ImagePipeCore", dependencies: ["CGdkPixbuf", "CPixelKernels"]),
        .target(name: "ImagePipe", dependencies: ["ImagePipeCore", "CGdkPixbuf", "CDeflate", "CZlib", "CImagePipePlugin", "CJPEGStrict", "CTiffCodec", "CLCMS2", "CExif",
                                                 "CWebP", "CAvif", "CHeif", "CImageQuant", "CGIF", "CGifLib", "CSpng", "CJXL", "CArchive"]),
        .target(name: "ImagePipePluginKit", dependencies: ["ImagePipeCore", "CImagePipePlugin", "CGdkPixbuf"]),
        .target(name: "FitZoom", dependencies: ["ImagePipeCore"], path: "Plugins/FitZoom"),
        .target(name: "Letterbox", dependencies: ["ImagePipeCore"], path: "Plugins/Letterbox"),
        .target(name: "SquareSlice", dependencies: ["ImagePipeCore"], path: "Plugins/SquareSlice"),
        .target(name: "CircleCrop", dependencies: ["ImagePipeCore"], path: "Plugins/CircleCrop"),
        .target(name: "AnchorRotate", dependencies: ["ImagePipeCore"], path: "Plugins/AnchorRotate"),
        .target(name: "Geometry", dependencies: ["ImagePipeCore"], path: "Plugins/Geometry"),
        .target(name: "Tone", dependencies: ["ImagePipeCore"], path: "Plugins/Tone"),
        .target(name: "Filters", dependencies: ["ImagePipeCore"], path: "Plugins/Filters"),
        .target(name: "Alpha", dependencies: ["ImagePipeCore"], path: "Plugins/Alpha"),
        .target(name: "Compose", dependencies: ["ImagePipe", "CPangoCairo"], path: "Plugins/Compose"),
        // The editor's page, script and style are files of their own, compiled into the program.
        // The stock stages in one product, for a program that wants them without the command
        // (and so without libsoup).
        .target(name: "ImagePipeStages", dependencies: ["ImagePipe"] + plugins),
        .target(name: "ImagePipeCommand", dependencies: ["ImagePipe", "ImagePipeStages", "CSoup"],
                resources: [.embedInCode("Edit/editor.html"), .embedInCode("Edit/editor.js"), .embedInCode("Edit/editor.css")]),
        .executableTarget(name: "imagepipe", dependencies: ["ImagePipeCommand"]),
        .target(name: "PipelineFuzzing", dependencies: ["ImagePipeCommand", "ImagePipeStages", "CImagePipePlugin"]),
        .executableTarget(name: "imagepipe-fuzz", dependencies: ["PipelineFuzzing"]),
        .executableTarget(name: "imagepipe-fuzz-decode", dependencies: ["PipelineFuzzing"]),
        .executableTarget(name: "imagepipe-fuzz-ledger", dependencies: ["PipelineFuzzing"]),
        .executableTarget(name: "imagepipe-fuzz-lossless", dependencies: ["PipelineFuzzing"]),
        .executableTarget(name: "imagepipe-fuzz-http", dependencies: ["PipelineFuzzing"]),
        .executableTarget(name: "imagepipe-fuzz-schema", dependencies: ["PipelineFuzzing"]),
        .target(name: "TestSupport", dependencies: ["ImagePipe", "CLCMS2", "CHeif"], path: "Tests/TestSupport"),
        .testTarget(name: "ImagePipeTests", dependencies: ["ImagePipe", "ImagePipePluginKit", "CImagePipePlugin", "CAvif", "CLibraryLoader", "CPixelKernels", "TestSupport"]),
        .testTarget(name: "FitZoomTests", dependencies: ["FitZoom", "TestSupport"]),
        .testTarget(name: "LetterboxTests", dependencies: ["Letterbox", "TestSupport"]),
        .testTarget(name: "SquareSliceTests", dependencies: ["SquareSlice", "TestSupport"]),
        .testTarget(name: "CircleCropTests", dependencies: ["CircleCrop", "TestSupport"]),
        .testTarget(name: "AnchorRotateTests", dependencies: ["AnchorRotate", "TestSupport"]),
        .testTarget(name: "GeometryTests", dependencies: ["Geometry", "TestSupport"]),
        .testTarget(name: "ToneTests", dependencies: ["Tone", "TestSupport"]),
        .testTarget(name: "FiltersTests", dependencies: ["Filters", "TestSupport"]),
        .testTarget(name: "AlphaTests", dependencies: ["Alpha", "TestSupport"]),
        .testTarget(name: "ComposeTests", dependencies: ["Compose", "TestSupport"]),
        .testTarget(name: "ImagePipeCommandTests", dependencies: ["ImagePipeCommand", "ImagePipeStages", "PipelineFuzzing", "TestSupport", "imagepipe"]),
    ],
    swiftLanguageModes: [.v6]
)

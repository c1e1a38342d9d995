#!/bin/bash
# What a third-party stage package costs to build: the sample sepia plugin
# (Samples/CustomStage's Sepia and SepiaPlugin targets) as a package of its own, built cold
# (an empty build folder, so the framework is compiled too) in debug as `swift build` does by
# default, once against ImagePipeCore (what stage packages use) and once against the whole
# ImagePipe product, one after the other in the same run. For each: the wall time of the build
# and the shared libraries the plugin names (readelf's NEEDED), apart from libc's and Swift's.
#
# usage: Benchmarks/stage_package.sh [REPOSITORY]   (default: this checkout)
set -euo pipefail
repository=$(cd "${1:-$(dirname "$0")/..}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The libraries every Swift program on Linux names: the C library's and the Swift runtime's.
runtime='^(libc|libm|libdl|libpthread|librt|ld-linux.*|libgcc_s|libstdc\+\+|libswift.*|libFoundation.*|libdispatch|libBlocksRuntime)\.so'

build() { # PRODUCT: the framework product the Sepia target depends on
    local package="$work/$1"
    mkdir -p "$package/Sources"
    cp -r "$repository/Samples/CustomStage/Sources/Sepia" "$repository/Samples/CustomStage/Sources/SepiaPlugin" "$package/Sources/"
    if [ "$1" = ImagePipe ]; then sed -i 's/^import ImagePipeCore$/import ImagePipe/' "$package"/Sources/Sepia/*.swift; fi
    cat > "$package/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "StageBuild",
    products: [.library(name: "SepiaPlugin", type: .dynamic, targets: ["SepiaPlugin"])],
    dependencies: [.package(name: "ImagePipe", path: "$repository")],
    targets: [
        .target(name: "Sepia", dependencies: [.product(name: "$1", package: "ImagePipe")]),
        .target(name: "SepiaPlugin", dependencies: ["Sepia", .product(name: "ImagePipePluginKit", package: "ImagePipe")]),
    ],
    swiftLanguageModes: [.v6]
)
EOF
    (cd "$package" && swift package resolve >/dev/null 2>&1)
    local start end
    start=$(date +%s.%N)
    (cd "$package" && swift build --product SepiaPlugin >"$package/build.log" 2>&1) || { tail -20 "$package/build.log"; exit 1; }
    end=$(date +%s.%N)
    local plugin="$package/.build/debug/libSepiaPlugin.so"
    local needed others
    needed=$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    others=$(echo "$needed" | grep -Ev "$runtime" || true)
    printf '%-14s cold build %6.1f s   %2d libraries beyond libc and Swift: %s\n' "$1" \
        "$(echo "$end - $start" | bc)" "$(echo "$others" | grep -c . || true)" "$(echo $others)"
}

echo "The sample sepia plugin as a package of its own, built cold (debug) on $(nproc) cores:"
build ImagePipeCore
build ImagePipe

import Foundation
@testable import ImagePipe
@testable import ImagePipeCore
import Testing
import TestSupport

/// Pictures with embedded profiles come out in sRGB as Little CMS's own `transicc` computes it,
/// within one level; `load color=keep` and `save profile=` do what they say.
///
/// Each test picture is a grid of flat 8x8 patches, probed at their centres: a flat block
/// survives JPEG at quality 100 unchanged but for the YCbCr rounding, so the reference is
/// computed from the stored values that ImagePipe itself decodes with `color=keep`.
@Suite struct ColorManagementTests {
    static let rgbPatches: [[UInt8]] = [
        [255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255], [0, 0, 0], [128, 128, 128], [200, 100, 50], [30, 180, 220],
        [250, 240, 10], [90, 20, 160], [10, 10, 10], [245, 245, 240], [64, 200, 64], [255, 128, 0], [128, 0, 255], [180, 150, 120],
    ]

    /// A 32x32 picture of 16 flat 8x8 patches (channels: 1 grey, 3 RGB).
    static func patches(_ colors: [[UInt8]]) throws -> Image {
        try Image.make(size: Size(32, 32), hasAlpha: false) { writer in
            for y in 0..<32 {
                let row = writer.row(y)
                for x in 0..<32 {
                    let color = colors[(y / 8) * 4 + x / 8]
                    for c in 0..<3 { row[x * 3 + c] = color.count == 1 ? color[0] : color[c] }
                }
            }
        }
    }

    static func probes(_ image: Image) -> [[Int]] {
        (0..<16).map { index in
            let color = image.pixel(x: (index % 4) * 8 + 4, y: (index / 4) * 8 + 4)
            return [Int(color.red), Int(color.green), Int(color.blue)]
        }
    }

    static func expectWithinOneLevel(_ actual: [[Int]], _ expected: [[Int]], _ what: String) {
        for (index, (a, e)) in zip(actual, expected).enumerated() {
            #expect(zip(a, e).allSatisfy { abs($0 - $1) <= 1 }, "\(what) patch \(index): \(a), transicc says \(e)")
        }
    }

    @Test func aDisplayP3PhonePhotoComesOutAsTransiccSays() throws {
        let directory = try TemporaryDirectory()
        let p3 = ColorReference.displayP3()
        let p3Path = try directory.write(p3, to: "p3.icc")
        // A JPEG as a phone writes it: P3 pixels with the profile in APP2.
        let tagged = try Self.patches(Self.rgbPatches).withMetadata(ImageMetadata(iccProfile: p3))
        let jpeg = try tagged.encoded(as: .jpeg, options: SaveOptions(quality: 100))
        let stored = try Image.decode(jpeg, options: LoadOptions(color: .keep))
        #expect(stored.metadata.iccProfile == p3)
        let converted = try Image.decode(jpeg)
        #expect(converted.metadata.iccProfile == nil && converted.metadata.sourceProfile == p3)
        let reference = try ColorReference.transicc(profile: p3Path, Self.probes(stored).map { $0.map(Double.init) })
        Self.expectWithinOneLevel(Self.probes(converted), reference, "Display P3")
        // The conversion matters: P3's green is far outside sRGB's.
        #expect(Self.probes(stored)[1] != Self.probes(converted)[1])
        #expect(reference[1][0] == 0 && reference[1][1] == 255)
    }

    @Test func aCMYKJPEGWithItsProfileComesOutAsTransiccSays() throws {
        let directory = try TemporaryDirectory()
        let cmyk: [[UInt8]] = [
            [0, 0, 0, 0], [255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 0], [0, 0, 0, 255], [128, 64, 32, 16], [40, 200, 180, 0],
            [255, 255, 0, 0], [0, 255, 255, 0], [255, 0, 255, 0], [60, 60, 60, 60], [20, 10, 0, 100], [200, 120, 0, 30],
            [0, 90, 230, 10], [10, 10, 10, 230], [128, 128, 128, 0],
        ]
        let path = directory.file("cmyk.jpg")
        let values = cmyk.map { "(\($0.map(String.init).joined(separator: ",")))" }.joined(separator: ",")
        // Pillow writes CMYK JPEGs as Photoshop does: inverted, with an Adobe marker.
        try ColorReference.python("""
            from PIL import Image
            colors = [\(values)]
            im = Image.new('CMYK', (32, 32))
            px = im.load()
            for y in range(32):
                for x in range(32):
                    px[x, y] = colors[(y // 8) * 4 + x // 8]
            im.save('\(path)', quality=100, icc_profile=open('\(ColorReference.cmyk)', 'rb').read())
            """)
        let decoded = try Image.load(path: path)
        let reference = try ColorReference.transicc(profile: ColorReference.cmyk, cmyk.map { $0.map { Double($0) / 2.55 } })
        Self.expectWithinOneLevel(Self.probes(decoded), reference, "CMYK")
        #expect(decoded.metadata.sourceProfile != nil && decoded.metadata.iccProfile == nil)
    }

    @Test func aCMYKJPEGWithoutAProfileTakesThePlainFormula() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("plain.jpg")
        try ColorReference.python("""
            from PIL import Image
            im = Image.new('CMYK', (16, 8), (255, 0, 0, 0))
            im.paste((0, 0, 0, 128), (8, 0, 16, 8))
            im.save('\(path)', quality=100)
            """)
        let decoded = try Image.load(path: path)
        #expect(Synthetic.close(decoded.pixel(x: 4, y: 4), Color(red: 0, green: 255, blue: 255), tolerance: 1))
        #expect(Synthetic.close(decoded.pixel(x: 12, y: 4), Color(red: 127, green: 127, blue: 127), tolerance: 1))
    }

    @Test func anAdobeRGBTIFFComesOutAsTransiccSays() throws {
        let adobe = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ColorReference.adobeRGB)))
        let tiff = try Self.patches(Self.rgbPatches).withMetadata(ImageMetadata(iccProfile: adobe)).encoded(as: .tiff)
        let decoded = try Image.decode(tiff)
        #expect(decoded.metadata.sourceProfile == adobe)
        let reference = try ColorReference.transicc(profile: ColorReference.adobeRGB, Self.rgbPatches.map { $0.map(Double.init) })
        Self.expectWithinOneLevel(Self.probes(decoded), reference, "Adobe RGB")
        #expect(Self.probes(decoded)[6] != [200, 100, 50])
    }

    /// Every pixel of a picture of many colors, against lcms2's `tificc` converting the same file.
    @Test(arguments: ["Adobe RGB", "Display P3", "ProPhoto RGB"])
    func everyPixelOfATIFFMatchesTificc(profileName: String) throws {
        let directory = try TemporaryDirectory()
        let profilePath: String
        switch profileName {
        case "Display P3": profilePath = try directory.write(ColorReference.displayP3(), to: "p3.icc")
        case "ProPhoto RGB": profilePath = "/usr/share/color/icc/colord/ProPhotoRGB.icc"
        default: profilePath = ColorReference.adobeRGB
        }
        let profile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: profilePath)))
        let picture = try Synthetic.image(64, 64) { x, y in
            Color(red: UInt8(x * 4 + x / 16), green: UInt8(y * 4 + y / 16), blue: UInt8((x + y) * 2 + (x * y) % 3))
        }
        let input = try directory.write(picture.withMetadata(ImageMetadata(iccProfile: profile)).encoded(as: .tiff), to: "in.tif")
        let reference = directory.file("tificc.tif")
        try ColorReference.tificc(input, profile: profilePath, to: reference)
        let expected = try Image.load(path: reference, options: LoadOptions(color: .keep))
        let converted = try Image.load(path: input)
        #expect(converted.metadata.sourceProfile == profile && expected.size == converted.size)
        var worst = 0, changed = 0
        for y in 0..<64 {
            for x in 0..<64 {
                let a = converted.pixel(x: x, y: y), e = expected.pixel(x: x, y: y), p = picture.pixel(x: x, y: y)
                worst = max(worst, abs(Int(a.red) - Int(e.red)), abs(Int(a.green) - Int(e.green)), abs(Int(a.blue) - Int(e.blue)))
                if a != p { changed += 1 }
            }
        }
        #expect(worst <= 1, "\(profileName): \(worst) levels from tificc")
        #expect(changed > 64 * 64 / 2, "\(profileName): the conversion changed most pixels (\(changed))")
    }

    @Test func aGreyPNGWithAProfileComesOutAsTransiccSays() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("grey.png")
        let levels: [UInt8] = [0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 255]
        try ColorReference.python("""
            from PIL import Image
            levels = [\(levels.map(String.init).joined(separator: ","))]
            im = Image.new('L', (32, 32))
            px = im.load()
            for y in range(32):
                for x in range(32):
                    px[x, y] = levels[(y // 8) * 4 + x // 8]
            im.save('\(path)', icc_profile=open('\(ColorReference.grey)', 'rb').read())
            """)
        let decoded = try Image.load(path: path)
        let reference = try ColorReference.transicc(profile: ColorReference.grey, levels.map { [Double($0)] })
        Self.expectWithinOneLevel(Self.probes(decoded), reference, "grey")
        #expect(Self.probes(decoded)[8] != [128, 128, 128]) // gamma 2.2 is not sRGB's curve at mid grey
    }

    @Test func transformsAreMadeOncePerProfile() throws {
        let profile = try Self.freshProfile()
        let jpeg = try Self.patches(Self.rgbPatches).withMetadata(ImageMetadata(iccProfile: profile)).encoded(as: .jpeg, options: SaveOptions(quality: 100))
        func reuses() -> Int? {
            ColorTransform.reuseCount(from: profile, to: ICCProfile.sRGB.bytes, input: .rgb, output: .rgb, intent: .perceptual)
        }
        #expect(reuses() == nil, "not made before the first picture")
        _ = try Image.decode(jpeg)
        #expect(reuses() == 0)
        for _ in 0..<5 { _ = try Image.decode(jpeg) }
        #expect(reuses() == 5, "made once, found five times")
    }

    /// A profile nobody has opened yet: Adobe RGB with a profile ID of its own (Little CMS does
    /// not check the ID), so that no other test has it in the caches.
    static func freshProfile() throws -> [UInt8] {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: ColorReference.adobeRGB)))
        withUnsafeBytes(of: UUID().uuid) { for (i, byte) in $0.enumerated() { bytes[84 + i] = byte } }
        return bytes
    }

    @Test func aBatchOpensEachProfileOnceAndSharesItSafely() throws {
        let profile = try Self.freshProfile()
        let opened = try #require(ICCProfile.cached(profile))
        #expect(ICCProfile.cached(Array(profile)) === opened, "the same bytes, the same opened profile")
        #expect(ICCProfile.cached(try Self.freshProfile()) !== opened)
        // Many pictures with one new profile decoded at once, as a batch's threads do: each gets
        // the one transform, and the same pixels as a decode on its own.
        let shared = try Self.freshProfile()
        let jpeg = try Self.patches(Self.rgbPatches).withMetadata(ImageMetadata(iccProfile: shared)).encoded(as: .jpeg, options: SaveOptions(quality: 100))
        let results = Locked<[[[Int]]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let image = try? Image.decode(jpeg) { results.withLock { $0.append(Self.probes(image)) } }
        }
        let alone = Self.probes(try Image.decode(jpeg))
        #expect(results.withLock { $0.count } == 8 && results.withLock { $0.allSatisfy { $0 == alone } })
        #expect(alone != Self.probes(try Image.decode(jpeg, options: LoadOptions(color: .keep))), "converted from Adobe RGB")
        let sRGB = ICCProfile.sRGB
        let source = try #require(ICCProfile.cached(shared))
        let transforms = Locked<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let made = try? ColorTransform.make(from: source, to: sRGB, input: .rgba, output: .rgba, intent: .relative) {
                transforms.withLock { $0.append(ObjectIdentifier(made)) }
            }
        }
        #expect(Set(transforms.withLock { $0 }).count == 1 && transforms.withLock { $0.count } == 8, "one transform, made once")
    }

    @Test func saveProfileChoosesWhatIsEmbedded() throws {
        let directory = try TemporaryDirectory()
        let p3 = ColorReference.displayP3()
        let jpeg = try Self.patches(Self.rgbPatches).withMetadata(ImageMetadata(iccProfile: p3)).encoded(as: .jpeg, options: SaveOptions(quality: 100))
        let input = try directory.write(jpeg, to: "phone.jpg")
        let stored = Self.probes(try Image.decode(jpeg, options: LoadOptions(color: .keep)))
        let converted = Self.probes(try Image.decode(jpeg))
        func run(_ text: String) throws -> Image {
            let result = try CommandRunner.run(["run", "-e", text, input, "-o", directory.file("out.png")])
            #expect(result.status == 0, "\(text): \(result.standardError)")
            return try Image.load(path: directory.file("out.png"), options: LoadOptions(color: .keep))
        }
        // Default: sRGB pixels, no profile (what the colors need).
        var out = try run("save")
        #expect(out.metadata.sourceProfile == nil)
        Self.expectWithinOneLevel(Self.probes(out), converted, "default")
        out = try run("save profile=srgb")
        #expect(try out.metadata.sourceProfile.map { try ICCProfile(bytes: $0).isSRGB } == true)
        out = try run("save profile=keep")
        #expect(out.metadata.sourceProfile == p3)
        // Back to P3 from sRGB: within a level of what was stored, except where sRGB had clipped.
        for index in [3, 4, 5, 6, 10, 11, 15] {
            #expect(zip(Self.probes(out)[index], stored[index]).allSatisfy { abs($0 - $1) <= 1 }, "keep patch \(index)")
        }
        out = try run("load color=keep | save")
        #expect(out.metadata.sourceProfile == p3)
        #expect(Self.probes(out) == stored)
        out = try run("load color=keep | save profile=none")
        #expect(out.metadata.sourceProfile == nil)
        Self.expectWithinOneLevel(Self.probes(out), converted, "none")
        out = try run("save profile=\(ColorReference.adobeRGB)")
        #expect(try out.metadata.sourceProfile.map { try ICCProfile(bytes: $0).name }?.contains("Adobe") == true)
        let bad = try CommandRunner.run(["run", "-e", "save profile=\(ColorReference.cmyk)", input, "-o", directory.file("cmyk.png")])
        #expect(bad.status == 1 && bad.standardError.contains("only RGB profiles"))
    }

    @Test func keepWritesExactlyTheMetadataAsked() throws {
        let directory = try TemporaryDirectory()
        let xmp = Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF/></x:xmpmeta>".utf8)
        // A camera JPEG stored sideways (EXIF orientation 6) with an XMP packet.
        let plain = try Synthetic.gradient(40, 20).withMetadata(ImageMetadata(xmp: xmp)).encoded(as: .jpeg, options: SaveOptions(keep: .xmp))
        let input = try directory.write(Synthetic.withExifOrientation(plain, orientation: 6), to: "camera.jpg")
        for format in ["jpg", "png", "webp", "avif"] {
            func saved(_ text: String) throws -> ImageMetadata {
                let output = directory.file("out.\(format)")
                let result = try CommandRunner.run(["run", "-e", text, input, "-o", output])
                #expect(result.status == 0, "\(text): \(result.standardError)")
                return try Image.load(path: output, options: LoadOptions(applyOrientation: false)).metadata
            }
            var metadata = try saved("save")
            #expect(metadata.exif == nil && metadata.xmp == nil && metadata.sourceProfile == nil, "\(format) keep=none")
            metadata = try saved("save keep=exif")
            #expect(metadata.exif.map { ExifBlock($0).summary.orientation } == 1, "\(format): turned, so orientation 1")
            #expect(metadata.xmp == nil)
            metadata = try saved("load auto-orient=false | save keep=exif")
            #expect(metadata.exif.map { ExifBlock($0).summary.orientation } == 6, "\(format): not turned, so still 6")
            metadata = try saved("save keep=xmp")
            #expect(metadata.xmp == xmp && metadata.exif == nil, "\(format) keep=xmp")
            metadata = try saved("save keep=all")
            #expect(metadata.xmp == xmp && metadata.exif != nil && metadata.sourceProfile == nil, "\(format) keep=all (no profile to keep)")
        }
    }
}

import Testing
import ImagePipe
@testable import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// The IIIF Image API 3.0 and 2.1 of `imagepipe serve --iiif`: every form of region, size,
/// rotation, quality and format read (and refused with the status the specification gives), the
/// information document, and the pipeline each request becomes, run on a small picture of four
/// colored quarters with pixel probes; then where 2.1 differs (its sizes, canonical forms and
/// information). The official validator drives a real server in IIIFValidatorTests.
@Suite struct IIIFTests {
    private static let red = Color(red: 230, green: 20, blue: 20), green = Color(red: 20, green: 200, blue: 40)
    private static let blue = Color(red: 30, green: 40, blue: 220), yellow = Color(red: 240, green: 220, blue: 30)

    /// 200×100: red top-left, green top-right, blue bottom-left, yellow bottom-right.
    private static func quarters() throws -> Image {
        try Synthetic.image(200, 100) { x, y in y < 50 ? (x < 100 ? red : green) : (x < 100 ? blue : yellow) }
    }

    private func status(_ body: () throws -> Void) -> UInt32? {
        do { try body() } catch let error as ServeError { return error.status } catch { return 0 }
        return nil
    }

    @Test func regionsAreReadAndCutToThePicture() throws {
        let picture = Size(200, 100)
        #expect(try IIIFRegion(parsing: "full").rect(in: picture) == Rect(x: 0, y: 0, width: 200, height: 100))
        #expect(try IIIFRegion(parsing: "square").rect(in: picture) == Rect(x: 50, y: 0, width: 100, height: 100))
        #expect(try IIIFRegion(parsing: "10,20,30,40").rect(in: picture) == Rect(x: 10, y: 20, width: 30, height: 40))
        // Past the edge: cut to the picture.
        #expect(try IIIFRegion(parsing: "150,50,100,100").rect(in: picture) == Rect(x: 150, y: 50, width: 50, height: 50))
        #expect(try IIIFRegion(parsing: "pct:50,50,50,50").rect(in: picture) == Rect(x: 100, y: 50, width: 100, height: 50))
        #expect(try IIIFRegion(parsing: "pct:10.5,0,20.25,100").rect(in: picture) == Rect(x: 21, y: 0, width: 41, height: 100))
        #expect(try IIIFRegion(parsing: "pct:.5,0,99.5,100").rect(in: picture) == Rect(x: 1, y: 0, width: 199, height: 100))
        // Outside the picture, or empty: 400.
        for text in ["200,0,10,10", "0,100,10,10", "0,0,0,10", "0,0,10,0", "pct:100,0,10,10", "pct:0,0,0.1,10"] {
            #expect(status { _ = try IIIFRegion(parsing: text).rect(in: picture) } == 400, "\(text)")
        }
        // Bad syntax: 400.
        for text in ["", "ful", "1,2,3", "1,2,3,4,5", "-1,0,10,10", "+1,0,10,10", "1e2,0,10,10", "1.5,0,10,10", "pct:1,2,3",
                     "pct:1e1,0,10,10", "pct:-1,0,10,10", "pct:.,0,1,1", "0x10,0,1,1", " 1,0,1,1", "squares"] {
            #expect(status { _ = try IIIFRegion(parsing: text) } == 400, "\(text)")
        }
    }

    @Test func sizesScaleTheRegionAndEnlargeOnlyWithCaret() throws {
        let region = Size(200, 100)
        func pixels(_ text: String) throws -> Size { try IIIFSize(parsing: text, version: .v3).pixels(of: region) }
        #expect(try pixels("max") == region)
        #expect(try pixels("^max") == region)
        #expect(try pixels("100,") == Size(100, 50))
        #expect(try pixels(",25") == Size(50, 25))
        #expect(try pixels("pct:50") == Size(100, 50))
        #expect(try pixels("pct:12.5") == Size(25, 13))
        #expect(try pixels("150,20") == Size(150, 20))
        #expect(try pixels("!50,50") == Size(50, 25))
        #expect(try pixels("!150,30") == Size(60, 30))
        #expect(try pixels("!200,100") == region)
        #expect(try pixels("1,") == Size(1, 1))
        // Larger than the region: only with ^.
        for text in ["201,", ",101", "pct:101", "300,100", "200,101", "!400,300"] {
            #expect(status { _ = try IIIFSize(parsing: text, version: .v3).pixels(of: region) } == 400, "\(text)")
        }
        #expect(try pixels("^400,") == Size(400, 200))
        #expect(try pixels("^,300") == Size(600, 300))
        #expect(try pixels("^pct:150") == Size(300, 150))
        #expect(try pixels("^300,50") == Size(300, 50))
        #expect(try pixels("^!400,300") == Size(400, 200))
        #expect(try pixels("^!100,300") == Size(100, 50), "^ allows enlarging, it does not ask for it")
        // Empty sizes and bad syntax: 400.
        for text in ["0,", ",0", "0,0", "pct:0", "pct:0.1", "full", "", ",", "!100,", "!,100", "^", "^^max", "10,10,10", "-5,", "pct:",
                     "w,h", "1e3,", "!0,10"] {
            #expect(status { _ = try IIIFSize(parsing: text, version: .v3).pixels(of: region) } == 400, "\(text)")
        }
    }

    @Test func rotationsQualitiesAndFormats() throws {
        #expect(try IIIFRotation(parsing: "0") == IIIFRotation())
        #expect(try IIIFRotation(parsing: "!90") == IIIFRotation(mirrored: true, degrees: 90))
        #expect(try IIIFRotation(parsing: "22.5").degrees == 22.5)
        #expect(try IIIFRotation(parsing: "360").turn == 0)
        #expect(try IIIFRotation(parsing: "270").isQuarterTurns && !(try IIIFRotation(parsing: "45").isQuarterTurns))
        for text in ["-90", "361", "360.5", "!", "!!90", "90deg", "", "1e2", "abc"] {
            #expect(status { _ = try IIIFRotation(parsing: text) } == 400, "\(text)")
        }
        for quality in ["default", "color", "gray", "bitonal"] { #expect(try IIIFQuality(parsing: quality).rawValue == quality) }
        for text in ["grey", "native", "Default", ""] { #expect(status { _ = try IIIFQuality(parsing: text) } == 400, "\(text)") }
        #expect(try IIIFFormat(parsing: "tif").mediaType == "image/tiff")
        #expect(try IIIFFormat(parsing: "jpg").imageFormat == .jpeg)
        // Formats the specification names but that are not made here: 501; others 400.
        #expect(status { _ = try IIIFFormat(parsing: "jp2") } == 501)
        #expect(status { _ = try IIIFFormat(parsing: "pdf") } == 501)
        for text in ["jpeg", "JPG", "avif", "xyz", ""] { #expect(status { _ = try IIIFFormat(parsing: text) } == 400, "\(text)") }
    }

    @Test func addressesNameTheIdentifierFromTheEnd() throws {
        #expect(try IIIFRequest(path: "/iiif/3/photo.jpg/info.json") == IIIFRequest(path: "/iiif/3/photo.jpg/info.json"))
        let info = try IIIFRequest(path: "/iiif/3/a/b/photo.jpg/info.json")
        #expect(info.identifier == "a/b/photo.jpg" && info.kind == .info)
        let base = try IIIFRequest(path: "/iiif/3/photo.jpg")
        #expect(base.identifier == "photo.jpg" && base.kind == .base)
        let image = try IIIFRequest(path: "/iiif/3/a/photo.jpg/full/max/!90/gray.png")
        #expect(image.identifier == "a/photo.jpg")
        #expect(image.kind == .image(IIIFImageRequest(size: IIIFSize(.max), rotation: IIIFRotation(mirrored: true, degrees: 90),
                                                      quality: .gray, format: .png)))
        // No identifier, or one that leaves the root: 404, as an unknown identifier.
        for path in ["/iiif/3/", "/iiif/3/../secret.jpg/info.json", "/iiif/3/a//b.jpg/info.json",
                     "/iiif/3/./b.jpg/full/max/0/default.jpg"] {
            #expect(status { _ = try IIIFRequest(path: path) } == 404, "\(path)")
        }
        // The first fault in the specification's order.
        #expect(status { _ = try IIIFRequest(path: "/iiif/3/p.jpg/nowhere/max/0/default.jpg") } == 400)
        #expect(status { _ = try IIIFRequest(path: "/iiif/3/p.jpg/full/max/0/default.jp2") } == 501)
        #expect(status { _ = try IIIFRequest(path: "/iiif/3/p.jpg/full/huge/0/default.jp2") } == 400)
        #expect(IIIFRequest.escaped("a/b c-d.jpg") == "a%2Fb%20c-d.jpg")
    }

    @Test func requestsBecomePipelinesAndCanonicalForms() throws {
        let picture = Size(200, 100)
        func plan(_ path: String) throws -> (pipeline: String, canonical: String) {
            guard case let .image(image) = try IIIFRequest(path: "/iiif/3/p.jpg/" + path).kind else { throw ServeError(500, "not an image request") }
            return try image.plan(for: picture)
        }
        #expect(try plan("full/max/0/default.jpg") == ("save format=jpeg", "full/max/0/default.jpg"))
        #expect(try plan("full/100,/0/default.png") == ("resize 100x50 fit=fill | save format=png", "full/100,50/0/default.png"))
        #expect(try plan("square/max/0/color.jpg") == ("crop 50,0,100x100 | save format=jpeg", "50,0,100,100/max/0/color.jpg"))
        #expect(try plan("pct:0,0,100,100/^pct:150/!180/gray.webp")
            == ("resize 300x150 fit=fill | flop | rotate 180 | grayscale | save format=webp", "full/^300,150/!180/gray.webp"))
        #expect(try plan("0,0,50,50/max/30/bitonal.jpg")
            == ("crop 0,0,50x50 | rotate angle=30 canvas=expand background=white | threshold | save format=jpeg",
                "0,0,50,50/max/30/bitonal.jpg"))
        #expect(try plan("full/max/22.50/default.png").pipeline.contains("rotate angle=22.5 canvas=expand background=transparent"))
        #expect(try plan("full/max/360/default.tif") == ("save format=tiff", "full/max/0/default.tif"))
    }

    /// The pipeline of `path` (after the identifier, under `version`) run on `source`, read back.
    private func made(_ path: String, from source: String, in directory: TemporaryDirectory, version: IIIFVersion = .v3) throws -> Image {
        guard case let .image(image) = try IIIFRequest(path: version.prefix + "q/" + path).kind else { throw ServeError(500, "not an image request") }
        let picture = try Load().describe(in: RunContext(input: source)).size
        let text = try image.plan(for: picture).pipeline
        let (pipeline, _) = try ServeServer.servedPipeline(text, compiler: StandardPlugins.compiler)
        let output = directory.file("out.\(image.format.imageFormat.fileExtension)")
        try pipeline.run(in: RunContext(input: source, output: output, outputFormat: image.format.imageFormat))
        return try Image.load(path: output)
    }

    private func near(_ image: Image, _ x: Int, _ y: Int, _ color: Color, tolerance: Int = 30) -> Bool {
        Synthetic.close(image.pixel(x: x, y: y), color, tolerance: tolerance)
    }

    @Test func madePicturesHoldTheRightPixels() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.write(Self.quarters().encoded(as: .png), to: "q.png")
        // The top-right quarter, halved.
        let corner = try made("100,0,100,50/50,/0/default.png", from: source, in: directory)
        #expect(corner.size == Size(50, 25) && near(corner, 25, 12, Self.green, tolerance: 2))
        // A region past the edge is cut: the bottom-right quarter alone.
        let cut = try made("pct:50,50,80,80/max/0/default.png", from: source, in: directory)
        #expect(cut.size == Size(100, 50) && near(cut, 10, 10, Self.yellow, tolerance: 0))
        // Mirrored: green now top-left; turned 90° clockwise after: the top-left goes top-right.
        let mirrored = try made("full/max/!0/default.png", from: source, in: directory)
        #expect(near(mirrored, 10, 10, Self.green, tolerance: 0) && near(mirrored, 190, 90, Self.blue, tolerance: 0))
        let turned = try made("full/max/90/default.png", from: source, in: directory)
        #expect(turned.size == Size(100, 200) && near(turned, 90, 10, Self.red, tolerance: 0) && near(turned, 10, 190, Self.yellow, tolerance: 0))
        let both = try made("full/max/!90/default.png", from: source, in: directory)
        #expect(near(both, 90, 10, Self.green, tolerance: 0) && near(both, 10, 190, Self.blue, tolerance: 0))
        // Enlarged with ^, in JPEG.
        let large = try made("0,0,100,50/^200,/0/default.jpg", from: source, in: directory)
        #expect(large.size == Size(200, 100) && near(large, 100, 50, Self.red, tolerance: 12))
        // Gray: R = G = B; bitonal: only black and white.
        let gray = try made("full/max/0/gray.png", from: source, in: directory)
        let probe = gray.pixel(x: 150, y: 20)
        #expect(probe.red == probe.green && probe.green == probe.blue && probe.red > 60)
        let bitonal = try made("full/max/0/bitonal.png", from: source, in: directory)
        for (x, y) in [(10, 10), (150, 10), (10, 90), (150, 90)] {
            let value = bitonal.pixel(x: x, y: y)
            #expect([0, 255].contains(value.red) && value.red == value.green && value.green == value.blue)
        }
        #expect(bitonal.pixel(x: 150, y: 90).red == 255 && bitonal.pixel(x: 10, y: 90).red == 0, "yellow is light, blue dark")
        // An angle: the canvas grows to hold the turned picture; the corners it uncovers are
        // transparent in PNG, white in JPEG.
        let angled = try made("full/max/45/default.png", from: source, in: directory)
        #expect(angled.size.width > 200 && angled.size.height > 200)
        #expect(angled.pixel(x: 1, y: 1).alpha == 0 && angled.pixel(x: angled.size.width / 2, y: angled.size.height / 2).alpha == 255)
        let angledJPEG = try made("full/max/45/default.jpg", from: source, in: directory)
        #expect(near(angledJPEG, 1, 1, Color(red: 255, green: 255, blue: 255), tolerance: 6))
        // TIFF and GIF are made too.
        #expect(try made("full/50,/0/default.tif", from: source, in: directory).size == Size(50, 25))
        #expect(try made("full/50,/0/default.gif", from: source, in: directory).size == Size(50, 25))
    }

    @Test func aSmallSizeOfABigJPEGDecodesReduced() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.write(Synthetic.gradient(1600, 1200).encoded(as: .jpeg, options: SaveOptions(quality: 90)), to: "big.jpg")
        for (path, decodedBelow) in [("full/200,/0/default.jpg", 800), ("800,0,800,600/100,/0/default.jpg", 800),
                                     ("square/!100,100/90/gray.png", 800)] {
            guard case let .image(image) = try IIIFRequest(path: "/iiif/3/big.jpg/" + path).kind else { throw ServeError(500, "not an image request") }
            let (pipeline, _) = try ServeServer.servedPipeline(try image.plan(for: Size(1600, 1200)).pipeline, compiler: StandardPlugins.compiler)
            let plan = try pipeline.plan(in: RunContext(input: source))
            #expect(plan.shrinksOnLoad && plan.decodeSize.width <= decodedBelow, "\(path): decoded \(plan.decodeSize)")
        }
        // The region's pixels, not the picture's corner: the gradient's red grows along x.
        let right = try made("800,0,800,600/100,/0/default.png", from: source, in: directory)
        #expect(right.size == Size(100, 75) && right.pixel(x: 50, y: 37).red > 170)
    }

    @Test func informationOffersTheSizesAndTilesMadeFast() throws {
        // A JPEG's: 1/2, 1/4, 1/8 in the DCT (the sizes the halvings round up to anyway).
        let decoded = [Size(2500, 1500), Size(1250, 750), Size(625, 375)]
        let info = IIIFInfo(id: "http://example.org/iiif/3/big.jpg", size: Size(5000, 3000), decodedSizes: decoded, version: .v3)
        #expect(info.scaleFactors == [1, 2, 4, 8, 16])
        #expect(info.sizes.map(\.width) == [79, 157, 313, 625, 1250, 2500, 5000])
        let json = info.json
        #expect(json["type"]?.stringValue == "ImageService3" && json["profile"]?.stringValue == "level2")
        #expect(json["@context"]?.stringValue == "http://iiif.io/api/image/3/context.json")
        #expect(json["width"]?.numberValue == 5000 && json["height"]?.numberValue == 3000)
        let sizes = try #require(json["sizes"]?.arrayValue)
        #expect(sizes.first?["width"]?.numberValue == 79 && sizes.first?["height"]?.numberValue == 47)
        #expect(sizes.last?["width"]?.numberValue == 5000)
        #expect(json.text.contains("\"width\":5000") || json.text.contains("\"width\": 5000"), "whole numbers are written as integers")
        #expect(IIIFInfo(id: "x", size: Size(300, 200), decodedSizes: [], version: .v3).scaleFactors == [1])
        // A pyramid whose writer rounded its halvings down (libvips: 13564 rows → 3391 at 1/4,
        // 1695 at 1/8): its own levels are offered, not the halvings rounded up a pixel past them.
        let floored = [Size(12056, 6782), Size(6028, 3391), Size(3014, 1695), Size(1507, 847)]
        let pyramid = IIIFInfo(id: "p", size: Size(24112, 13564), decodedSizes: floored, version: .v3).sizes
        #expect(pyramid.suffix(5) == floored.reversed() + [Size(24112, 13564)], "\(pyramid)")
        #expect(IIIFInfo(id: "p", size: Size(24112, 13564), decodedSizes: [], version: .v3).sizes.contains(Size(3014, 1696)))
    }

    // Image API 2.1, under /iiif/2/: the parameters read as 3.0 reads them but the size.

    @Test func addressesNameTheirVersion() throws {
        #expect(IIIFVersion(path: "/iiif/2/p.jpg/info.json") == .v2 && IIIFVersion(path: "/iiif/3/p.jpg") == .v3)
        for path in ["/iiif/4/p.jpg/info.json", "/iiif/p.jpg/info.json", "/iiif/22/p.jpg", "/iiif/2", "/p.jpg"] {
            #expect(IIIFVersion(path: path) == nil, "\(path)")
        }
        let info = try IIIFRequest(path: "/iiif/2/a/b/photo.jpg/info.json")
        #expect(info.version == .v2 && info.identifier == "a/b/photo.jpg" && info.kind == .info)
        let base = try IIIFRequest(path: "/iiif/2/photo.jpg")
        #expect(base.version == .v2 && base.kind == .base)
        let image = try IIIFRequest(path: "/iiif/2/a/photo.jpg/square/full/!90/bitonal.tif")
        #expect(image.identifier == "a/photo.jpg")
        #expect(image.kind == .image(IIIFImageRequest(region: .square, size: IIIFSize(.max, version: .v2),
                                                      rotation: IIIFRotation(mirrored: true, degrees: 90), quality: .bitonal, format: .tif)))
        #expect(try IIIFRequest(path: "/iiif/3/p.jpg/info.json").version == .v3)
        for path in ["/iiif/2/", "/iiif/2/../secret.jpg/info.json", "/iiif/2/a//b.jpg/info.json", "/iiif/4/p.jpg/info.json"] {
            #expect(status { _ = try IIIFRequest(path: path) } == 404, "\(path)")
        }
        // The same region, rotation, quality and format, and the same first fault.
        #expect(status { _ = try IIIFRequest(path: "/iiif/2/p.jpg/nowhere/full/0/default.jpg") } == 400)
        #expect(status { _ = try IIIFRequest(path: "/iiif/2/p.jpg/full/full/0/native.jpg") } == 400, "1.x's native is no 2.1 quality")
        #expect(status { _ = try IIIFRequest(path: "/iiif/2/p.jpg/full/full/0/default.jp2") } == 501)
        #expect(status { _ = try IIIFRequest(path: "/iiif/2/p.jpg/full/^max/0/default.jp2") } == 400)
        #expect(status { _ = try IIIFRequest(path: "/iiif/3/p.jpg/full/full/0/default.jpg") } == 400, "3.0 has no size full")
    }

    @Test func version2SizesEnlargeWithoutCaretAndKnowFull() throws {
        let region = Size(200, 100)
        func pixels(_ text: String) throws -> Size { try IIIFSize(parsing: text, version: .v2).pixels(of: region) }
        #expect(try pixels("full") == region)
        #expect(try pixels("max") == region)
        #expect(try pixels("100,") == Size(100, 50))
        #expect(try pixels(",25") == Size(50, 25))
        #expect(try pixels("pct:12.5") == Size(25, 13))
        #expect(try pixels("150,20") == Size(150, 20))
        #expect(try pixels("!50,50") == Size(50, 25))
        // Larger than the region, as 3.0 makes it after ^ (sizeAboveFull).
        #expect(try pixels("400,") == Size(400, 200))
        #expect(try pixels(",300") == Size(600, 300))
        #expect(try pixels("pct:150") == Size(300, 150))
        #expect(try pixels("300,150") == Size(300, 150))
        #expect(try pixels("!400,300") == Size(400, 200), "!w,h: the best fit, larger too")
        // No ^ in 2.1, empty sizes and bad syntax: 400.
        for text in ["^max", "^400,", "^pct:150", "^!400,300", "0,", ",0", "pct:0", "Full", "", ",", "!100,", "-5,", "1e3,"] {
            #expect(status { _ = try IIIFSize(parsing: text, version: .v2).pixels(of: region) } == 400, "\(text)")
        }
    }

    @Test func version2CanonicalFormsWriteFullAndWidthComma() throws {
        func plan(_ path: String, of picture: Size = Size(200, 100)) throws -> (pipeline: String, canonical: String) {
            guard case let .image(image) = try IIIFRequest(path: "/iiif/2/p.jpg/" + path).kind else { throw ServeError(500, "not an image request") }
            return try image.plan(for: picture)
        }
        #expect(try plan("full/full/0/default.jpg") == ("save format=jpeg", "full/full/0/default.jpg"))
        #expect(try plan("full/max/0/default.jpg").canonical == "full/full/0/default.jpg")
        #expect(try plan("full/100,/0/default.png") == ("resize 100x50 fit=fill | save format=png", "full/100,/0/default.png"))
        #expect(try plan("full/,25/0/default.png").canonical == "full/50,/0/default.png")
        #expect(try plan("full/!50,50/0/default.png").canonical == "full/50,/0/default.png")
        #expect(try plan("full/150,20/0/default.png").canonical == "full/150,20/0/default.png")
        #expect(try plan("square/full/0/color.jpg") == ("crop 50,0,100x100 | save format=jpeg", "50,0,100,100/full/0/color.jpg"))
        #expect(try plan("pct:0,0,100,100/pct:150/!180/gray.webp")
            == ("resize 300x150 fit=fill | flop | rotate 180 | grayscale | save format=webp", "full/300,/!180/gray.webp"))
        #expect(try plan("0,0,50,50/full/22.50/bitonal.png").canonical == "0,0,50,50/full/22.5/bitonal.png")
        #expect(try plan("full/full/360/default.tif").canonical == "full/full/0/default.tif")
        // `w,` only when the width alone gives the same height: 2×5 of a 3×10 picture keeps its
        // aspect as `,5` asked, but `2,` would be 2×7.
        #expect(try plan("full/,5/0/default.png", of: Size(3, 10)).canonical == "full/2,5/0/default.png")
    }

    @Test func version2MadePicturesEnlargeTheRegion() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.write(Self.quarters().encoded(as: .png), to: "q.png")
        // The top-left quarter at twice its size, no ^: red all over, the edge inside too.
        let large = try made("0,0,100,50/200,/0/default.png", from: source, in: directory, version: .v2)
        #expect(large.size == Size(200, 100) && near(large, 10, 10, Self.red, tolerance: 2) && near(large, 190, 90, Self.red, tolerance: 2))
        // `!w,h` fits a box larger than the picture; mirrored, green comes top-left.
        let fitted = try made("full/!400,400/!0/default.png", from: source, in: directory, version: .v2)
        #expect(fitted.size == Size(400, 200) && near(fitted, 20, 20, Self.green, tolerance: 2) && near(fitted, 380, 180, Self.blue, tolerance: 2))
        #expect(try made("full/full/0/gray.png", from: source, in: directory, version: .v2).size == Size(200, 100))
    }

    @Test func version2InformationNamesItsProfile() throws {
        let info = IIIFInfo(id: "http://example.org/iiif/2/big.jpg", size: Size(5000, 3000), decodedSizes: [], version: .v2)
        let json = info.json
        #expect(json["@context"]?.stringValue == "http://iiif.io/api/image/2/context.json")
        #expect(json["@id"]?.stringValue == "http://example.org/iiif/2/big.jpg")
        #expect(json["id"] == nil && json["type"] == nil && json["extraFeatures"] == nil, "3.0's fields")
        #expect(json["protocol"]?.stringValue == "http://iiif.io/api/image")
        #expect(json["width"]?.numberValue == 5000 && json["height"]?.numberValue == 3000)
        let profile = try #require(json["profile"]?.arrayValue)
        #expect(profile.count == 2 && profile.first?.stringValue == "http://iiif.io/api/image/2/level2.json")
        let made = try #require(profile.last)
        func names(_ key: String) -> [String] { made[key]?.arrayValue?.compactMap { $0.stringValue } ?? [] }
        #expect(names("formats") == ["jpg", "png", "webp", "gif", "tif"])
        #expect(names("qualities") == ["default", "color", "gray", "bitonal"])
        let supports = names("supports")
        #expect(supports.contains("sizeAboveFull") && supports.contains("regionSquare") && supports.contains("mirroring"))
        #expect(!supports.contains("sizeUpscaling"), "3.0's name")
        // The same sizes and tiles as 3.0 offers.
        let three = IIIFInfo(id: "x", size: Size(5000, 3000), decodedSizes: [], version: .v3).json
        #expect(json["sizes"] == three["sizes"] && json["tiles"] == three["tiles"])
        let tile = try #require(json["tiles"]?.arrayValue?.first)
        #expect(tile["width"]?.numberValue == 512 && tile["scaleFactors"]?.arrayValue?.count == 5)
    }

    /// Samples/iiif2-detail.pipe is what the address in its first line becomes, stage for stage.
    @Test func theVersion2SampleIsTheServedPipeline() throws {
        let sample = SampleTests.samples.appendingPathComponent("iiif2-detail.pipe")
        let text = try String(contentsOf: sample, encoding: .utf8)
        let address = try #require(text.split(separator: "\n").first?.split(separator: " ").first { $0.hasPrefix("/iiif/2/") })
        guard case let .image(image) = try IIIFRequest(path: String(address)).kind else { throw ServeError(500, "not an image request") }
        let (pipeline, canonical) = try image.plan(for: Size(1280, 800))
        let stages = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: " | ")
        #expect(pipeline == stages + " | save format=png")
        #expect(canonical == "480,400,320,200/640,/!0/default.png")
    }
}

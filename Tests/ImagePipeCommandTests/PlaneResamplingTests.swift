import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// A `fit` (or a `resize` that only scales) that shrinks a JPEG decoded at full size is done by
/// its decoder, in the JPEG's planes: the chroma filtered at its own size (libjpeg's upsampling
/// folded into the weights), the colors made once, at the output's size. The RGB path decodes at
/// the same size as RGB (chroma upsampled, colors made, each pixel rounded to bytes) and
/// resamples that: against the float Lanczos3 of that RGB decode, its own error is rounding
/// alone, and the planes' stays near it (they do not see the RGB decode's rounding, which the
/// reference has; a chroma weight or place wrong by a sample shows at every edge of the
/// saturated bars).
@Suite struct PlaneResamplingTests {
    /// Color detail both ways: saturated red and blue bars whose edges fall between chroma
    /// samples, over ramps of each channel.
    static func picture(_ width: Int, _ height: Int) throws -> Image {
        try Synthetic.image(width, height) { x, y in
            if (x / 7 + y / 11) % 5 == 0 {
                return (x / 3) % 2 == 0 ? Color(red: 230, green: 20, blue: 30) : Color(red: 20, green: 40, blue: 220)
            }
            return Color(red: UInt8(x * 255 / width), green: UInt8(y * 255 / height), blue: UInt8((x + y) * 127 / (width + height)))
        }
    }

    /// The run's output (planes) and the RGB path's, with their PSNR against the float reference.
    static func outputs(of jpeg: [UInt8], fit: String) throws -> (planes: Image, rgb: Image, planesPSNR: Double, rgbPSNR: Double) {
        let directory = try TemporaryDirectory()
        let path = try directory.write(jpeg, to: "in.jpg")
        let pipeline = try StandardPlugins.compiler.compile("\(fit) | save out.png")
        let context = RunContext(input: path, outputDirectory: directory.path)
        let plan = try pipeline.plan(in: context)
        #expect(plan.decodeResampling != nil, "the decoder resamples")
        #expect(plan.decodeSize == plan.outputSize && plan.decodeWorkSize == plan.sourceSize)
        try pipeline.run(in: context)
        let planes = try Image.load(path: directory.file("out.png"))

        let load = try #require(pipeline.source as? Load)
        let description = try load.describe(in: context)
        let reduced = try load.load(in: context, description: description, atLeast: plan.decodeAtLeast)
        #expect(reduced.size == plan.decodeWorkSize)
        let rgb = try pipeline.transforms[0].apply(to: ReducedImage(image: reduced, fullSize: plan.sourceSize,
                                                                    mapping: description.mapping(toDecoded: reduced.size)))
        // (The RGB path's decode, `reduced`, is also what the reference resamples.)
        let whole = ReducedImage(image: reduced, fullSize: plan.sourceSize, mapping: description.mapping(toDecoded: reduced.size)).wholePicture
        let reference = FloatReference.resample(reduced, region: whole, to: plan.outputSize)
        return (planes, rgb, FloatReference.psnr(planes, against: reference), FloatReference.psnr(rgb, against: reference))
    }

    /// Outputs over a quarter of the picture's size: decoded at full size (`good` keeps twice the
    /// output), so a 4:2:0 or 4:2:2 picture's chroma is filtered at half size.
    @Test(arguments: [ChromaSubsampling.c420, .c422, .c444], [(Size(1203, 805), "fit 450x450"), (Size(1600, 1200), "fit 900x900"),
                                                               (Size(1203, 805), "resize 500x300 fit=fill")])
    func planesAreAsCloseAsTheRGBPath(chroma: ChromaSubsampling, picture: (size: Size, fit: String)) throws {
        let jpeg = try Self.picture(picture.size.width, picture.size.height).encoded(as: .jpeg, options: SaveOptions(quality: 92, chroma: chroma))
        let (planes, rgb, planesPSNR, rgbPSNR) = try Self.outputs(of: jpeg, fit: picture.fit)
        let size = "\(picture.size) \(picture.fit)"
        #expect(planes.size == rgb.size)
        #expect(rgbPSNR > 55 && planesPSNR > 45, "\(chroma) \(size): planes \(planesPSNR) dB, RGB \(rgbPSNR) dB")
        // Apart at the saturated bars' edges, where the RGB decode clamps each pixel before
        // the average and the planes average first (up to 27 levels in one channel here).
        #expect(SampleTests.largestDifference(planes, rgb) <= 32, "\(chroma) \(size)")
        #expect(ExactReductionTests.meanDifference(planes, rgb) < 0.5, "\(chroma) \(size)")
    }

    @Test func grayPicturesHaveOnePlane() throws {
        var gray = ImageMetadata()
        gray.grayOnly = true
        let picture = try Synthetic.image(900, 700) { x, y in
            let v = UInt8((x * 7 + y * 3) % 256)
            return Color(red: v, green: v, blue: v)
        }
        let (planes, rgb, planesPSNR, rgbPSNR) = try Self.outputs(of: picture.withMetadata(gray).encoded(as: .jpeg), fit: "fit 500x500")
        #expect(planesPSNR > 55 && rgbPSNR > 55, "planes \(planesPSNR) dB, RGB \(rgbPSNR) dB")
        // Both filter the same luma with the same weights: rounding apart, the same bytes.
        #expect(SampleTests.largestDifference(planes, rgb) <= 1)
        // One plane makes all three channels: every pixel is gray.
        var colored = 0
        for y in 0..<planes.height {
            for x in 0..<planes.width {
                let pixel = planes.pixel(x: x, y: y)
                if pixel.red != pixel.green || pixel.green != pixel.blue { colored += 1 }
            }
        }
        #expect(colored == 0)
    }

    /// A flat color stays that color: the planes' colors are converted with libjpeg's own
    /// constants, and the chroma weights sum to one.
    @Test func flatColorKeepsItsColor() throws {
        let picture = try Synthetic.image(640, 480) { _, _ in Color(red: 200, green: 40, blue: 90) }
        let (planes, rgb, _, _) = try Self.outputs(of: picture.encoded(as: .jpeg, options: SaveOptions(quality: 95)), fit: "fit 400x400")
        for (x, y) in [(0, 0), (200, 150), (399, 299)] {
            #expect(Synthetic.close(planes.pixel(x: x, y: y), rgb.pixel(x: x, y: y), tolerance: 1), "(\(x), \(y))")
        }
    }

    /// A picture stored turned (EXIF orientation 3, 6, 8) is resampled as stored and turned
    /// after: the planes' output is the RGB path's turned, and the streamed run's the ordinary
    /// run's byte for byte.
    @Test(arguments: [3, 6, 8])
    func turnedPicturesAreResampledAsStored(orientation: Int) throws {
        let directory = try TemporaryDirectory()
        let stored = try Self.picture(1000, 700).encoded(as: .jpeg, options: SaveOptions(quality: 92))
        _ = try directory.write(Synthetic.withExifOrientation(stored, orientation: UInt16(orientation)), to: "turned.jpg")
        let (planes, rgb, planesPSNR, _) = try Self.outputs(of: Synthetic.withExifOrientation(stored, orientation: UInt16(orientation)),
                                                           fit: "fit 400x400")
        #expect(planes.size == (orientation == 3 ? Size(400, 280) : Size(280, 400)))
        #expect(planesPSNR > 45, "orientation \(orientation): \(planesPSNR) dB")
        #expect(ExactReductionTests.meanDifference(planes, rgb) < 0.5, "orientation \(orientation)")
        let streamed = try CommandRunner.run(["run", "-e", "fit 400x400", "turned.jpg", "-o", "streamed.png"], in: directory.path)
        let ordinary = try CommandRunner.run(["run", "-e", "fit 400x400", "turned.jpg", "-o", "ordinary.png"],
                                             in: directory.path, environment: CommandRunner.wholePictures)
        #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
        let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.png")))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.png")))) && !a.isEmpty, "orientation \(orientation)")
    }

    /// Only a picture decoded at full size, and only a stage whose whole work is the resampling.
    @Test func whenTheDecoderResamples() throws {
        let directory = try TemporaryDirectory()
        let upright = try directory.write(Self.picture(800, 600).encoded(as: .jpeg), to: "upright.jpg")
        let turned = try directory.write(Synthetic.withExifOrientation(Self.picture(800, 600).encoded(as: .jpeg), orientation: 6), to: "turned.jpg")
        func resamples(_ text: String, _ path: String, scaling: ScalingMode = .good) throws -> Bool {
            var context = RunContext(input: path)
            context.loadOptions.scaling = scaling
            return try StandardPlugins.compiler.compile(text).plan(in: context).decodeResampling != nil
        }
        #expect(try resamples("fit 500x500", upright))
        #expect(!(try resamples("fit 100x100", upright)), "decoded at 1/4 in the DCT")
        #expect(!(try resamples("fit 500x500", upright, scaling: .best)), "best decodes RGB whole")
        #expect(try resamples("fit 500x500", turned))
        #expect(!(try resamples("fit 500x500 linear=true", upright)))
        #expect(!(try resamples("fit 1000x1000", upright)))
        #expect(!(try resamples("slice 500x400", upright)))
        #expect(try resamples("resize 500x", upright))
        #expect(try resamples("resize 500x500 fit=inside", upright))
        #expect(try resamples("resize 500x500", upright), "inside, the default, keeps the whole picture")
        #expect(!(try resamples("resize 500x500 fit=cover", upright)), "cover cuts the 4:3 picture")
        #expect(!(try resamples("resize 500x500 fit=contain", upright)), "contain adds bars")
        #expect(!(try resamples("fit 500x500", directory.write(Self.picture(800, 600).encoded(as: .png), to: "p.png"))))
    }
}

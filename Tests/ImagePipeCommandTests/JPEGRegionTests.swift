import Foundation
import Testing
import ImagePipe
import ImagePipeStages
import TestSupport

/// A run whose first stage reads a rectangle of a JPEG (a crop, a resize of a region: every IIIF
/// request) decodes only down to the rectangle's bottom, skipping the rows above it (entropy
/// decoding alone) and making only its iMCU columns: the pixels are those of a run that decodes
/// the whole picture (a traced one), whatever the chroma subsampling, scan order, restart
/// markers or DCT scaling, streamed or not.
@Suite struct JPEGRegionTests {
    @Test func aRegionIsTheWholeDecodesPixels() throws {
        let directory = try TemporaryDirectory()
        // A picture busy in every channel, 301x203 (no side a multiple of 8 or 16), and one
        // 1000 rows tall so that a streamed run's ring of rows wraps before and after the region.
        try ColorReference.python("""
            from PIL import Image
            d = '\(directory.path)'
            for name, (w, h) in [('wide', (301, 203)), ('tall', (67, 1000))]:
                im = Image.new('RGB', (w, h))
                im.putdata([((x * 7 + y * 3) % 256, (x * x + y) % 256, (x ^ y) % 256) for y in range(h) for x in range(w)])
                for sub, label in [(0, '444'), (1, '422'), (2, '420')]:
                    im.save(f'{d}/{name}-{label}.jpg', quality=85, subsampling=sub)
                    im.save(f'{d}/{name}-{label}p.jpg', quality=85, subsampling=sub, progressive=True)
                im.convert('L').save(f'{d}/{name}-gray.jpg', quality=85)
                im.save(f'{d}/{name}.ppm')
            """)
        for name in ["wide", "tall"] {
            let restart = try CommandRunner.runProgram("/usr/bin/cjpeg", ["-restart", "2", "-outfile", directory.file("\(name)-restart.jpg"),
                                                                            directory.file("\(name).ppm")])
            #expect(restart.status == 0, "\(restart.standardError)")
        }
        let compiler = StandardPlugins.compiler
        let pipelines = ["wide": ["crop 37,41,100x90", "crop 0,150,301x53", "crop 250,0,51x20", "resize 40x30 fit=fill region=33,21,170x120",
                                  "resize 20x15 fit=fill region=100,60,170x120"],
                         "tall": ["crop 5,400,40x100", "crop 0,990,67x10", "resize 20x30 fit=fill region=9,301,40x600"]]
        for (name, texts) in pipelines {
            for input in ["444", "422", "420", "444p", "422p", "420p", "gray", "restart"].map({ directory.file("\(name)-\($0).jpg") }) {
                for text in texts {
                    let pipeline = try compiler.compile(text + " | save format=png")
                    let plan = try pipeline.plan(in: RunContext(input: input))
                    #expect(plan.decodeRegion != nil && plan.decodeRegion != Rect(x: 0, y: 0, width: plan.decodeSize.width, height: plan.decodeSize.height),
                            "\(input) \(text)")
                    let reference = try Self.output(of: pipeline, input: input, run: .traced, in: directory)
                    for run in [Run.streamed, .whole] {
                        #expect(try Self.output(of: pipeline, input: input, run: run, in: directory) == reference, "\(input) \(text) \(run)")
                    }
                }
            }
        }
    }

    enum Run { case streamed, whole, traced, busy }

    /// With the cores kept busy by other pictures (the service, a batch of jobs), a small region
    /// of a large picture runs on one thread from a decode that writes only the region's pages:
    /// reserved as that region, not as the picture, and the same pixels as a traced run's, a
    /// profile's conversion included (only the region is converted).
    @Test func aSmallRegionAmongBusyCoresIsDecodedAsARegion() throws {
        let directory = try TemporaryDirectory()
        let picture = try Synthetic.image(3000, 2000) { x, y in Color(red: UInt8(x % 256), green: UInt8(y % 256), blue: UInt8((x + y) % 256)) }
        let profile = Array(try Data(contentsOf: URL(fileURLWithPath: ColorReference.adobeRGB)))
        for (name, metadata) in [("plain.jpg", ImageMetadata()), ("adobe.jpg", ImageMetadata(iccProfile: profile))] {
            let input = try directory.write(picture.withMetadata(metadata).encoded(as: .jpeg, options: SaveOptions(quality: 90)), to: name)
            for text in ["crop 1000,700,256x256", "resize 128x128 fit=fill region=2000,1000,512x512"] {
                let pipeline = try StandardPlugins.compiler.compile(text + " | save format=png")
                var context = RunContext(input: input, output: directory.file("out.png"))
                context.streamAboveBytes = RunContext.busyCoresStreamAbove
                let prepared = try pipeline.prepare(in: context)
                #expect(!pipeline.streams(in: context, prepared: prepared), "\(name) \(text)")
                let estimate = pipeline.estimatedPeakBytes(in: context, prepared: prepared)
                #expect(estimate - Plan.workingBytes < 3000 * 2000 * 4 / 4, "\(name) \(text): \(estimate)")
                let reference = try Self.output(of: pipeline, input: input, run: .traced, in: directory)
                #expect(try Self.output(of: pipeline, input: input, run: .busy, in: directory) == reference, "\(name) \(text)")
            }
        }
    }

    /// The file `pipeline` writes of `input`; a traced run decodes the whole picture.
    static func output(of pipeline: Pipeline, input: String, run: Run, in directory: TemporaryDirectory) throws -> [UInt8] {
        let path = directory.file("out.png")
        var context = RunContext(input: input, output: path)
        context.wholePictures = run == .whole || run == .traced
        if run == .busy { context.streamAboveBytes = RunContext.busyCoresStreamAbove }
        if run == .traced { context.trace = try TraceWriter(directory: directory.file("trace"), title: "in.jpg") }
        try pipeline.run(in: context)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The decode stops below the region: a JPEG cut short further down crops above the cut,
    /// where a run that decodes every row fails.
    @Test func aRegionAboveDamageIsRead() throws {
        let directory = try TemporaryDirectory()
        var bytes = try Synthetic.gradient(320, 480).encoded(as: .jpeg)
        bytes.removeLast(bytes.count * 4 / 10)
        _ = try directory.write(bytes, to: "cut.jpg")
        let above = try CommandRunner.run(["run", "-e", "crop 10,10,100x50", "cut.jpg", "-o", "above.png"], in: directory.path)
        let whole = try CommandRunner.run(["run", "-e", "crop 10,10,100x50", "cut.jpg", "-o", "whole.png"], in: directory.path,
                                          environment: CommandRunner.wholePictures)
        #expect(above.status == 0 && whole.status == 0, "\(above.standardError)\(whole.standardError)")
        let made = try Image.load(path: directory.file("above.png"))
        let expected = try Synthetic.gradient(320, 480).cropped(to: Rect(x: 10, y: 10, width: 100, height: 50))
        #expect(made.size == Size(100, 50) && SampleTests.largestDifference(made, expected) <= 8)
        let all = try CommandRunner.run(["run", "-e", "negate | crop 10,10,100x50", "cut.jpg", "-o", "all.png"], in: directory.path)
        #expect(all.status != 0 && all.standardError.contains("Premature end"), "\(all.standardError)")
    }
}

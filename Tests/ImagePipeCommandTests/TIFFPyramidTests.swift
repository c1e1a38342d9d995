import Foundation
import Testing
import ImagePipe
@testable import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// A TIFF pyramid (the smaller copies of the picture that libvips' `tiffsave --pyramid`, slide
/// scanners and map tools store after it, marked as reduced images) is read at its smallest level
/// still large enough for a plan that only shrinks, as a JPEG is decoded reduced in the DCT.
@Suite struct TIFFPyramidTests {
    /// A pyramid whose levels differ from its picture (a red picture, a blue half-size level, a
    /// green quarter-size one) shows which one a run read: each plan reads the level its size
    /// asks for, a plan that does not shrink the picture itself, streamed or not; the first
    /// directory's orientation turns every level.
    @Test func aShrinkingPlanReadsTheSmallestLevelLargeEnough() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            from PIL import Image
            d = '\(directory.path)'
            full = Image.new('RGB', (800, 600), (200, 30, 30))
            half = Image.new('RGB', (400, 300), (30, 30, 200))
            quarter = Image.new('RGB', (200, 150), (30, 200, 30))
            full.save(d + '/lying.tif', save_all=True, append_images=[half, quarter], tiffinfo={254: 1})
            full.save(d + '/turned.tif', save_all=True, append_images=[half, quarter], tiffinfo={254: 1, 274: 6})
            full.save(d + '/plain.tif')
            """)
        // The good scaling decodes at least twice the output: 150x113 wants 300x225, the half level.
        for (input, pipeline, decoded, color, size) in [("lying.tif", "fit 150x150", "400x300", Color(red: 30, green: 30, blue: 200), Size(150, 113)),
                                                        ("lying.tif", "fit 80x80", "200x150", Color(red: 30, green: 200, blue: 30), Size(80, 60)),
                                                        ("lying.tif", "crop 10,10,50x50", nil, Color(red: 200, green: 30, blue: 30), Size(50, 50)),
                                                        ("turned.tif", "fit 80x80", "150x200", Color(red: 30, green: 200, blue: 30), Size(60, 80)),
                                                        ("plain.tif", "fit 80x80", nil, Color(red: 200, green: 30, blue: 30), Size(80, 60))] {
            let explain = try CommandRunner.run(["explain", "-e", pipeline, input, "-o", "out.png"], in: directory.path)
            let said = decoded.map { ["as \($0)", "shrink-on-load"] } ?? ["decoded at full size"]
            #expect(said.allSatisfy(explain.standardOutput.contains), "\(input) \(pipeline): \(explain.standardOutput)")
            for (name, environment) in [("streamed", [String: String]()), ("whole", CommandRunner.wholePictures)] {
                let run = try CommandRunner.run(["run", "-e", pipeline, input, "-o", "\(name).png"], in: directory.path, environment: environment)
                #expect(run.status == 0, "\(run.standardError)")
                let made = try Image.load(path: directory.file("\(name).png"))
                let middle = made.pixel(x: made.size.width / 2, y: made.size.height / 2)
                #expect(made.size == size && Self.near(middle, color), "\(input) \(pipeline) \(name): \(made.size) \(middle)")
            }
        }
        // Without shrink-on-load, the picture itself.
        let full = try CommandRunner.run(["run", "--no-shrink-on-load", "-e", "fit 80x80", "lying.tif", "-o", "full.png"], in: directory.path)
        #expect(full.status == 0, "\(full.standardError)")
        #expect(Self.near(try Image.load(path: directory.file("full.png")).pixel(x: 40, y: 30), Color(red: 200, green: 30, blue: 30)))
    }

    /// A crop or a resize of a region first reads only the strips or tiles under it: a tiled
    /// TIFF whose last tile is damaged crops well away from that tile (a run that decodes it all
    /// fails), and the pixels are those of a run that decodes every tile (a traced one).
    @Test func aRegionReadsOnlyTheTilesUnderIt() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.write(Synthetic.gradient(512, 384).encoded(as: .png), to: "in.png")
        let made = try CommandRunner.runProgram("/usr/bin/vips", ["tiffsave", source, directory.file("tiled.tif"), "--tile",
                                                                   "--tile-width", "64", "--tile-height", "64", "--compression", "deflate"])
        #expect(made.status == 0, "\(made.standardError)")
        for pipeline in ["crop 70,10,100x90", "resize 50x40 fit=fill region=130,70,200x160"] {
            let explain = try CommandRunner.run(["explain", "-e", pipeline, "tiled.tif", "-o", "out.png"], in: directory.path)
            #expect(explain.standardOutput.contains(" reads is decoded"), "\(explain.standardOutput)")
            let read = try CommandRunner.run(["run", "-e", pipeline, "tiled.tif", "-o", "region.png"], in: directory.path)
            let traced = try CommandRunner.run(["run", "--trace", "trace", "-e", pipeline, "tiled.tif", "-o", "whole.png"], in: directory.path)
            #expect(read.status == 0 && traced.status == 0, "\(read.standardError)\(traced.standardError)")
            let region = try Data(contentsOf: URL(fileURLWithPath: directory.file("region.png")))
            #expect(region == (try Data(contentsOf: URL(fileURLWithPath: directory.file("whole.png")))), "\(pipeline)")
        }
        // The last tile's data overwritten: only a run that reads it fails.
        try ColorReference.python("""
            from PIL import Image
            path = '\(directory.path)/tiled.tif'
            offsets, counts = Image.open(path).tag_v2[324], Image.open(path).tag_v2[325]
            data = bytearray(open(path, 'rb').read())
            data[offsets[-1]:offsets[-1] + counts[-1]] = b'\\xff' * counts[-1]
            open('\(directory.path)/damaged.tif', 'wb').write(bytes(data))
            """)
        let near = try CommandRunner.run(["run", "-e", "crop 0,0,100x100", "damaged.tif", "-o", "near.png"], in: directory.path)
        #expect(near.status == 0, "\(near.standardError)")
        let all = try CommandRunner.run(["run", "-e", "negate | crop 0,0,100x100", "damaged.tif", "-o", "all.png"], in: directory.path)
        #expect(all.status != 0 && all.standardError.contains("damaged.tif"), "\(all.standardError)")
    }

    /// A pyramid whose writer rounded its halvings down (libvips: 13564 rows → 6782 → 3391 →
    /// 1695) is read at the level that stands for the scale asked, though that level is a pixel
    /// or two short of the plan's rounded-up target; the service offers the levels' own sizes.
    @Test func aLevelRoundedDownStillServesItsScale() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            from PIL import Image
            full = Image.new('RGB', (801, 603), (200, 30, 30))
            half = Image.new('RGB', (400, 301), (30, 30, 200))
            quarter = Image.new('RGB', (200, 150), (30, 200, 30))
            full.save('\(directory.path)/floored.tif', save_all=True, append_images=[half, quarter], tiffinfo={254: 1})
            """)
        // 1/8 of 801x603, rounded up, is 101x76; the good scaling wants twice that, 202x152, and
        // the quarter level (200x150) stands for it.
        let explain = try CommandRunner.run(["explain", "-e", "resize 101x76 fit=fill", "floored.tif", "-o", "out.png"], in: directory.path)
        #expect(explain.standardOutput.contains("as 200x150"), "\(explain.standardOutput)")
        let run = try CommandRunner.run(["run", "-e", "resize 101x76 fit=fill", "floored.tif", "-o", "out.png"], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        let made = try Image.load(path: directory.file("out.png"))
        #expect(made.size == Size(101, 76) && Self.near(made.pixel(x: 50, y: 38), Color(red: 30, green: 200, blue: 30)))
        let description = try Load().describe(in: RunContext(input: directory.file("floored.tif")))
        #expect(description.reducedSizes == [Size(400, 301), Size(200, 150)])
        let info = IIIFInfo(id: "x", size: description.size, decodedSizes: description.reducedSizes, version: .v3)
        #expect(info.sizes == [Size(51, 38), Size(101, 76), Size(200, 150), Size(400, 301), Size(801, 603)], "\(info.sizes)")
    }

    /// A tiled TIFF's streamed run is estimated from its header's tile height, not as the whole
    /// picture: a region of a 384 MB picture reserves a fraction of it, above what the run holds.
    @Test func aTiledTIFFIsEstimatedAsItStreams() throws {
        let directory = try TemporaryDirectory()
        let made = try CommandRunner.runProgram("/usr/bin/vips", ["black", directory.file("black.v"), "16000", "8000", "--bands", "3"])
        let tiled = try CommandRunner.runProgram("/usr/bin/vips", ["tiffsave", directory.file("black.v"), directory.file("big.tif"), "--tile",
                                                                    "--compression", "deflate"])
        #expect(made.status == 0 && tiled.status == 0, "\(made.standardError)\(tiled.standardError)")
        #expect(try ImageHeader.read(path: directory.file("big.tif")).bandRows == 128)
        let pipeline = try StandardPlugins.compiler.compile("crop 8000,4000,512x512")
        let context = RunContext(input: directory.file("big.tif"), output: directory.file("out.png"))
        let estimate = try #require(pipeline.estimatedStreamedPeakBytes(in: context, prepared: pipeline.prepare(in: context)))
        let run = try PeakMemory.run(["run", "-e", "crop 8000,4000,512x512", "big.tif", "-o", "out.png"], in: directory.path)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(estimate < 384_000_000 / 4 && run.peakBytes <= estimate, "estimate \(estimate), peak \(run.peakBytes)")
    }

    /// Whether two colors are the same but for rounding.
    static func near(_ a: Color, _ b: Color) -> Bool {
        abs(Int(a.red) - Int(b.red)) <= 2 && abs(Int(a.green) - Int(b.green)) <= 2 && abs(Int(a.blue) - Int(b.blue)) <= 2
    }

    /// A pyramid libvips wrote, of a smooth picture: a thumbnail from its level is the thumbnail
    /// of the whole picture within a small tolerance, and the header lists the levels.
    @Test func libvipsPyramidsThumbnailAsTheWholePicture() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.write(Synthetic.gradient(1024, 768).encoded(as: .png), to: "in.png")
        let made = try CommandRunner.runProgram("/usr/bin/vips", ["tiffsave", source, directory.file("pyramid.tif"), "--tile", "--pyramid",
                                                                   "--tile-width", "64", "--tile-height", "64"])
        #expect(made.status == 0, "\(made.standardError)")
        let header = try ImageHeader.read(path: directory.file("pyramid.tif"))
        #expect(header.reducedLevels == [Size(512, 384), Size(256, 192), Size(128, 96), Size(64, 48)], "\(header.reducedLevels)")
        // fit 100x100 wants at least 200x150 in the good scaling: the 256x192 level.
        let explain = try CommandRunner.run(["explain", "-e", "fit 100x100", "pyramid.tif", "-o", "level.png"], in: directory.path)
        #expect(explain.standardOutput.contains("as 256x192"), "\(explain.standardOutput)")
        for (name, arguments) in [("level", [String]()), ("full", ["--no-shrink-on-load"])] {
            let run = try CommandRunner.run(["run"] + arguments + ["-e", "fit 100x100", "pyramid.tif", "-o", "\(name).png"], in: directory.path)
            #expect(run.status == 0, "\(run.standardError)")
        }
        let (level, full) = (try Image.load(path: directory.file("level.png")), try Image.load(path: directory.file("full.png")))
        #expect(level.size == Size(100, 75) && full.size == level.size)
        #expect(SampleTests.largestDifference(level, full) <= 4)
    }
}

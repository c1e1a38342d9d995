import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// `save` writing tile pyramids (docs/pyramids.md): levels, tile names and sizes, the files
/// viewers read, the halving, blank tiles, ZIPs, atomic landing, and libvips' dzsave's tiles.
@Suite(.timeLimit(.minutes(10))) struct PyramidTests {
    /// A picture with detail everywhere, every pixel known: no two neighbours alike.
    static func busy(_ width: Int, _ height: Int) throws -> Image {
        try Synthetic.image(width, height) { x, y in
            Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y + 11) % 251), blue: UInt8((y * 5 + x) % 256))
        }
    }

    /// `picture` written as a PNG input (lossless: every pixel of the tiles can be checked).
    static func input(_ picture: Image, in directory: TemporaryDirectory, name: String = "in.png") throws -> String {
        try directory.write(picture.encoded(as: .png), to: name)
    }

    /// Runs `save` on `input` with `output` as the run's output.
    @discardableResult
    static func run(_ save: Save, input: String, output: String) throws -> RunResult {
        try Pipeline(sink: save).run(in: RunContext(input: input, output: output))
    }

    static func save(_ layout: PyramidLayout? = nil, format: ImageFormat = .png, tileSize: Int? = nil, overlap: Int? = nil,
                     skipBlanks: Int? = nil, container: PyramidContainer? = nil, shrink: PyramidShrink = .mean) -> Save {
        var pyramid = PyramidOptions()
        pyramid.layout = layout
        pyramid.tileSize = tileSize
        pyramid.overlap = overlap
        pyramid.skipBlanks = skipBlanks
        pyramid.container = container
        pyramid.shrink = shrink
        return Save(format: format, pyramid: pyramid)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    static func entries(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    // MARK: levels and tiles

    @Test func levelsHalveRoundingUpDownToOnePixelForDeepZoomAndOneTileForTheOthers() {
        let deep = PyramidGeometry(layout: .deepzoom, size: Size(1000, 300), tileSize: 254, overlap: 1)
        #expect(deep.levels.map(\.width) == [1000, 500, 250, 125, 63, 32, 16, 8, 4, 2, 1])
        #expect(deep.levels.map(\.height) == [300, 150, 75, 38, 19, 10, 5, 3, 2, 1, 1])
        #expect(deep.levelNumber(0) == 10)
        #expect(PyramidGeometry(layout: .deepzoom, size: Size(1, 1), tileSize: 254, overlap: 1).levels == [Size(1, 1)])
        #expect(PyramidGeometry(layout: .deepzoom, size: Size(1, 5), tileSize: 254, overlap: 1).levels == [Size(1, 5), Size(1, 3), Size(1, 2), Size(1, 1)])
        let google = PyramidGeometry(layout: .google, size: Size(600, 300), tileSize: 256, overlap: 0)
        #expect(google.levels == [Size(600, 300), Size(300, 150), Size(150, 75)])
        #expect(google.tileCount == 3 * 2 + 2 * 1 + 1)
        #expect(PyramidGeometry(layout: .zoomify, size: Size(256, 256), tileSize: 256, overlap: 0).levels.count == 1)
        // Deep Zoom's tiles reach the overlap past their sides, where the level has pixels.
        #expect(deep.tileRect(at: 0, column: 0, row: 0) == (0, 0, 255, 255))
        #expect(deep.tileRect(at: 0, column: 1, row: 1) == (253, 253, 256, 47))
        #expect(deep.tileRect(at: 0, column: 3, row: 0) == (761, 0, 239, 255))
    }

    @Test func deepZoomWritesTheDziAndEveryTileWithItsOverlapStreamed() throws {
        let directory = try TemporaryDirectory()
        let picture = try Self.busy(600, 400)
        // A JPEG input streams; a PNG one too. Here PNG, so that the tiles are the picture's pixels.
        let input = try Self.input(picture, in: directory)
        let output = directory.file("photo.dzi")
        let save = Self.save(format: .png)
        let context = RunContext(input: input, output: output)
        let pipeline = Pipeline(sink: save)
        #expect(pipeline.streams(in: context, prepared: try pipeline.prepare(in: context)), "a pyramid save streams")
        try pipeline.run(in: context)
        let dzi = try String(contentsOfFile: output, encoding: .utf8)
        #expect(dzi == """
            <?xml version="1.0" encoding="UTF-8"?>
            <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
              Format="png"
              Overlap="1"
              TileSize="254"
              >
              <Size 
                Height="400"
                Width="600"
              />
            </Image>

            """)
        let files = directory.file("photo_files")
        // 600x400 down to 1x1: 11 levels, numbered 0 (1x1) to 10 (full size).
        #expect(Self.entries(files) == (0...10).map(String.init).sorted())
        #expect(Self.entries(files + "/10") == ["0_0.png", "0_1.png", "1_0.png", "1_1.png", "2_0.png", "2_1.png"])
        #expect(Self.entries(files + "/0") == ["0_0.png"])
        let sizes: [String: Size] = ["0_0": Size(255, 255), "1_0": Size(256, 255), "2_0": Size(93, 255),
                                     "0_1": Size(255, 147), "1_1": Size(256, 147), "2_1": Size(93, 147)]
        for (name, size) in sizes {
            #expect(try Image.load(path: "\(files)/10/\(name).png").size == size, "\(name)")
        }
        // Tile 1_1 starts one pixel before its 254-pixel step, both ways.
        let tile = try Image.load(path: files + "/10/1_1.png")
        for (x, y) in [(0, 0), (255, 0), (17, 146), (255, 146)] {
            #expect(tile.pixel(x: x, y: y) == picture.pixel(x: 253 + x, y: 253 + y), "(\(x), \(y))")
        }
        #expect(try Image.load(path: files + "/0/0_0.png").size == Size(1, 1))
        // No temporary folder is left beside it.
        #expect(Self.entries(directory.path) == ["in.png", "photo.dzi", "photo_files"])
    }

    @Test func eachLevelIsTheMeanOfTwoByTwoBoxesAnOddEdgePairedWithItself() throws {
        let directory = try TemporaryDirectory()
        // 3x3: the level below is 2x2; its right column and bottom row average the edge with itself.
        let values: [[UInt8]] = [[0, 10, 200], [31, 40, 100], [7, 8, 9]]
        let picture = try Synthetic.image(3, 3) { x, y in Color(red: values[y][x], green: 255 - values[y][x], blue: 128) }
        let input = try Self.input(picture, in: directory)
        try Self.run(Self.save(format: .png), input: input, output: directory.file("box.dzi"))
        let below = try Image.load(path: directory.file("box_files/1/0_0.png"))
        #expect(below.size == Size(2, 2))
        #expect(below.pixel(x: 0, y: 0).red == 20) // (0 + 10 + 31 + 40) / 4 = 20.25, rounded
        #expect(below.pixel(x: 1, y: 0).red == 150) // (200 + 200 + 100 + 100) / 4
        #expect(below.pixel(x: 0, y: 1).red == 8) // (7 + 8 + 7 + 8) / 4 = 7.5, rounded up
        #expect(below.pixel(x: 1, y: 1).red == 9)
        #expect(below.pixel(x: 0, y: 0).green == 235) // (255 + 245 + 224 + 215) / 4 = 234.75
        // nearest takes each box's top-left pixel.
        try Self.run(Self.save(format: .png, shrink: .nearest), input: input, output: directory.file("near.dzi"))
        let near = try Image.load(path: directory.file("near_files/1/0_0.png"))
        #expect([near.pixel(x: 0, y: 0).red, near.pixel(x: 1, y: 0).red, near.pixel(x: 0, y: 1).red] == [0, 200, 7])
    }

    @Test func onePixelAndOnePixelWidePicturesMakeTheirLevels() throws {
        let directory = try TemporaryDirectory()
        let dot = try Self.input(Synthetic.image(1, 1) { _, _ in Color(red: 9, green: 8, blue: 7) }, in: directory, name: "dot.png")
        try Self.run(Self.save(format: .png), input: dot, output: directory.file("dot.dzi"))
        #expect(Self.entries(directory.file("dot_files")) == ["0"])
        #expect(try Image.load(path: directory.file("dot_files/0/0_0.png")).pixel(x: 0, y: 0) == Color(red: 9, green: 8, blue: 7))
        let line = try Self.input(Self.busy(1, 700), in: directory, name: "line.png")
        try Self.run(Self.save(format: .png), input: line, output: directory.file("line.dzi"))
        // 700 → 350 → 175 → 88 → 44 → 22 → 11 → 6 → 3 → 2 → 1: 11 levels.
        #expect(Self.entries(directory.file("line_files")).count == 11)
        #expect(Self.entries(directory.file("line_files/10")) == ["0_0.png", "0_1.png", "0_2.png"])
        #expect(try Image.load(path: directory.file("line_files/10/0_2.png")).size == Size(1, 700 - 507))
        // A tile of one pixel: every pixel its own tile.
        let small = try Self.input(Self.busy(3, 2), in: directory, name: "small.png")
        try Self.run(Self.save(format: .png, tileSize: 1, overlap: 0), input: small, output: directory.file("ones.dzi"))
        #expect(Self.entries(directory.file("ones_files/2")).count == 6)
        #expect(try Image.load(path: directory.file("ones_files/2/2_1.png")).pixel(x: 0, y: 0) == Self.busy(3, 2).pixel(x: 2, y: 1))
    }

    // MARK: the other layouts

    @Test func iiifWritesInfoJSONAndRegionSizeTilesForVersionsTwoAndThree() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.input(Self.busy(700, 300), in: directory)
        try Self.run(Self.save(.iiif3, format: .jpeg, tileSize: 256), input: input, output: directory.file("v3"))
        let root = directory.file("v3")
        // Levels 700x300, 350x150, 175x75: the full size's tiles are regions of 256, the next of 512 pixels.
        #expect(Self.exists(root + "/0,0,256,256/256,256/0/default.jpg"))
        #expect(Self.exists(root + "/512,256,188,44/188,44/0/default.jpg"))
        #expect(Self.exists(root + "/512,0,188,300/94,150/0/default.jpg"))
        #expect(try Image.load(path: root + "/512,0,188,300/94,150/0/default.jpg").size == Size(94, 150))
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/info.json"))) as! [String: Any]
        #expect(info["type"] as? String == "ImageService3")
        #expect(info["id"] as? String == "https://example.com/iiif/v3")
        #expect(info["width"] as? Int == 700 && info["height"] as? Int == 300)
        let tiles = (info["tiles"] as? [[String: Any]])?.first
        #expect(tiles?["scaleFactors"] as? [Int] == [1, 2, 4])
        #expect(tiles?["width"] as? Int == 256)

        var save = Self.save(.iiif, format: .jpeg, tileSize: 256)
        save.pyramid.iiifBase = "http://127.0.0.1:8000/iiif"
        try Self.run(save, input: input, output: directory.file("v2"))
        #expect(Self.exists(directory.file("v2/512,256,188,44/188,/0/default.jpg")))
        let info2 = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("v2/info.json")))) as! [String: Any]
        #expect(info2["@id"] as? String == "http://127.0.0.1:8000/iiif/v2")
        #expect((info2["profile"] as? [Any])?.first as? String == "http://iiif.io/api/image/2/level0.json")
    }

    @Test func zoomifyGroupsTilesBy256FromTheSmallestLevel() throws {
        let directory = try TemporaryDirectory()
        // 16-pixel tiles of 300x40: level 5 is 300x40 (19x3 tiles), then 150x20 (10x2), 75x10 (5x1),
        // 38x5 (3x1), 19x3 (2x1) and level 0, 10x2, the first within a tile: 88 tiles.
        let input = try Self.input(Self.busy(300, 40), in: directory)
        try Self.run(Self.save(.zoomify, format: .jpeg, tileSize: 16), input: input, output: directory.file("z"))
        let properties = try String(contentsOfFile: directory.file("z/ImageProperties.xml"), encoding: .utf8)
        #expect(properties == "<IMAGE_PROPERTIES WIDTH=\"300\" HEIGHT=\"40\" NUMTILES=\"88\" NUMIMAGES=\"1\" VERSION=\"1.8\" TILESIZE=\"16\" />\n")
        #expect(Self.entries(directory.file("z")) == ["ImageProperties.xml", "TileGroup0"])
        #expect(Self.exists(directory.file("z/TileGroup0/0-0-0.jpg")))
        #expect(Self.exists(directory.file("z/TileGroup0/5-18-2.jpg")) && Self.exists(directory.file("z/TileGroup0/3-4-0.jpg")))
        #expect(Self.entries(directory.file("z/TileGroup0")).count == 88)
        // 543 tiles of 16 on 400x256 (25x16 + 13x8 + 7x4 + 4x2 + 2x1 + 1): tile 256 opens TileGroup1.
        let wide = try Self.input(Self.busy(400, 256), in: directory, name: "wide.png")
        try Self.run(Self.save(.zoomify, format: .jpeg, tileSize: 16), input: wide, output: directory.file("zw"))
        #expect(Self.entries(directory.file("zw")) == ["ImageProperties.xml", "TileGroup0", "TileGroup1", "TileGroup2"])
        // Tiles before the full size: 1 + 2 + 8 + 28 + 104 = 143; its tile (column 4, row 4) is number 143 + 4 * 25 + 4 = 247.
        #expect(Self.exists(directory.file("zw/TileGroup0/5-4-4.jpg")))
        #expect(Self.exists(directory.file("zw/TileGroup0/5-12-4.jpg"))) // 255
        #expect(Self.exists(directory.file("zw/TileGroup1/5-13-4.jpg"))) // 256
    }

    @Test func googleTilesArePaddedAndBlankOnesLeftOut() throws {
        let directory = try TemporaryDirectory()
        // A white picture with a dark square at the top left: only the tiles it touches are written.
        let picture = try Synthetic.image(600, 300) { x, y in x < 100 && y < 100 ? Color(red: 20, green: 40, blue: 60) : .white }
        let input = try Self.input(picture, in: directory)
        try Self.run(Self.save(.google, format: .png), input: input, output: directory.file("g"))
        let root = directory.file("g")
        #expect(Self.entries(root) == ["0", "1", "2", "blank.png"])
        #expect(Self.entries(root + "/2") == ["0"])
        #expect(Self.entries(root + "/2/0") == ["0.png"])
        #expect(Self.entries(root + "/0/0") == ["0.png"])
        // The smallest level (150x75) padded to 256 with the background.
        let small = try Image.load(path: root + "/0/0/0.png")
        #expect(small.size == Size(256, 256))
        #expect(small.pixel(x: 10, y: 10) == Color(red: 20, green: 40, blue: 60))
        #expect(small.pixel(x: 200, y: 200) == .white)
        #expect(try Image.load(path: root + "/blank.png").size == Size(256, 256))
        // skip-blanks=-1 writes every tile.
        try Self.run(Self.save(.google, format: .png, skipBlanks: -1), input: input, output: directory.file("all"))
        #expect(Self.entries(directory.file("all/2")) == ["0", "1"])
        #expect(Self.entries(directory.file("all/2/1")) == ["0.png", "1.png", "2.png"])
    }

    @Test func aZipHoldsTheSameFilesUnderTheName() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.input(Self.busy(300, 200), in: directory)
        try Self.run(Self.save(format: .jpeg), input: input, output: directory.file("folder.dzi"))
        try Self.run(Self.save(.deepzoom, format: .jpeg), input: input, output: directory.file("packed.zip"))
        #expect(!Self.exists(directory.file("packed_files")) && !Self.exists(directory.file("packed.dzi")))
        // Python's zipfile reads it back: names, and the bytes of a tile and of the .dzi.
        let listing = try CommandRunner.runProgram("/usr/bin/python3", ["-c", """
            import sys, zipfile, hashlib
            z = zipfile.ZipFile(sys.argv[1])
            for i in z.infolist(): print(i.filename, i.compress_type, hashlib.sha1(z.read(i)).hexdigest())
            """, directory.file("packed.zip")])
        let lines = listing.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        let names = Set(lines.map { $0[0] })
        #expect(names.contains("packed/packed.dzi"))
        #expect(names.contains("packed/packed_files/9/1_0.jpeg"))
        #expect(names.contains("packed/packed_files/0/0_0.jpeg"))
        let folderTiles = 1 + Set(try FileManager.default.subpathsOfDirectory(atPath: directory.file("folder_files")).filter { $0.hasSuffix(".jpeg") }).count
        #expect(names.count == folderTiles)
        #expect(lines.allSatisfy { $0[1] == "0" }, "entries are stored")
        let tile = try Data(contentsOf: URL(fileURLWithPath: directory.file("folder_files/9/1_0.jpeg")))
        let entry = try #require(lines.first { $0[0] == "packed/packed_files/9/1_0.jpeg" })
        let hash = try CommandRunner.runProgram("/usr/bin/sha1sum", [directory.file("folder_files/9/1_0.jpeg")]).standardOutput.prefix(40)
        #expect(entry[2] == String(hash), "\(tile.count) bytes")
    }

    // MARK: failures

    @Test func aFailedRunLeavesNothingAndAForeignFolderIsNeverReplaced() throws {
        let directory = try TemporaryDirectory()
        let jpeg = try Self.busy(400, 300).encoded(as: .jpeg, options: SaveOptions(quality: 90))
        let broken = try directory.write(Array(jpeg.prefix(jpeg.count / 2)) + [0xFF, 0xD9], to: "broken.jpg")
        _ = try? Self.run(Self.save(format: .jpeg), input: broken, output: directory.file("broken.dzi"))
        #expect(Self.entries(directory.path).allSatisfy { !$0.contains("broken_files") && !$0.hasSuffix(".dzi") && !$0.contains("imagepipe") },
                "\(Self.entries(directory.path))")

        // A folder that is not a Google pyramid is refused, untouched.
        let good = try Self.input(Self.busy(300, 200), in: directory)
        let mine = directory.file("mine")
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: false)
        _ = try directory.write("keep me", to: "mine/notes.txt")
        #expect(throws: (any Error).self) { try Self.run(Self.save(.google, format: .jpeg), input: good, output: mine) }
        #expect(Self.entries(mine) == ["notes.txt"])
        // A pyramid of the layout is replaced whole.
        try Self.run(Self.save(.google, format: .jpeg, skipBlanks: -1), input: good, output: directory.file("g"))
        _ = try directory.write("stale", to: "g/stale.txt")
        try Self.run(Self.save(.google, format: .jpeg), input: good, output: directory.file("g"))
        #expect(!Self.exists(directory.file("g/stale.txt")))
        #expect(Self.exists(directory.file("g/blank.png")))
        #expect(Self.entries(directory.path).allSatisfy { !$0.contains("imagepipe") })
    }

    @Test func settingsThatCannotBeWrittenAreRefusedSayingWhy() throws {
        let directory = try TemporaryDirectory()
        let input = try Self.input(Self.busy(30, 20), in: directory)
        let cases: [(String, String, String)] = [
            ("save out.dzi format=gif", "out.dzi", "jpeg, png, webp or avif"),
            ("save out.jpg tile-size=256", "out.jpg", "tile pyramids"),
            ("save out.dzi overlap=300 tile-size=254", "out.dzi", "more than the tile size"),
            ("save out layout=google overlap=2", "out", "only Deep Zoom"),
            ("save - layout=deepzoom", "-", "standard output"),
            ("save out.zip", "out.zip", "layout="),
        ]
        for (text, output, words) in cases {
            let error = try #require(throws: (any Error).self, "\(text)") {
                let pipeline = try TestRegistry.compiler.compile(text)
                try pipeline.run(in: RunContext(input: input, output: directory.file(output)))
            }
            #expect("\(error)".contains(words), "\(text): \(error)")
        }
        #expect(Self.entries(directory.path) == ["in.png"])
    }

    @Test func explainTellsTheLayoutLevelsAndTiles() throws {
        let directory = try TemporaryDirectory()
        let pipeline = try TestRegistry.compiler.compile("save photo.dzi quality=90")
        let save = try #require(pipeline.sink as? Save)
        let context = RunContext(input: directory.file("in.jpg"), output: nil)
        // 1000x300 at 254: levels 10 to 0 hold 4x2, 2x1 and one tile each for the other 9.
        #expect(save.pyramidSummary(size: Size(1000, 300), in: context) == "deepzoom pyramid in a folder: 11 levels, 19 tiles of 254 px, overlap 1, jpeg")
        #expect(Self.save(.google, format: .webp).pyramidSummary(size: Size(600, 300), in: RunContext(output: "tiles"))
                == "google pyramid in a folder: 3 levels, 9 tiles of 256 px, webp, blank tiles (within 5) left out")
    }

    // MARK: libvips

    /// The same tiles as `vips dzsave` on the same settings, pixel for pixel (PNG tiles: nothing
    /// but the layout and the halving can differ), on a picture of odd sides.
    @Test func theTilesAreLibvipsDzsavesTiles() throws {
        let vips = "/usr/bin/vips"
        try #require(FileManager.default.isExecutableFile(atPath: vips), "libvips-tools is in the Makefile's TEST_PACKAGES: run make test once, or apt-get install libvips-tools")
        let directory = try TemporaryDirectory()
        let input = try Self.input(Self.busy(1013, 517), in: directory)
        let settings: [(PyramidLayout, [String])] = [
            (.deepzoom, ["--tile-size", "254", "--overlap", "1"]),
            (.google, ["--layout", "google", "--tile-size", "256", "--overlap", "0", "--skip-blanks", "-1"]),
            (.zoomify, ["--layout", "zoomify", "--tile-size", "128", "--overlap", "0"]),
            (.iiif3, ["--layout", "iiif3", "--tile-size", "256", "--overlap", "0"]),
            (.iiif, ["--layout", "iiif", "--tile-size", "256", "--overlap", "0"]),
        ]
        for (layout, vipsArguments) in settings {
            let ours = directory.file("ours-\(layout.rawValue)"), theirs = directory.file("vips-\(layout.rawValue)")
            let tileSize = Int(vipsArguments[vipsArguments.firstIndex(of: "--tile-size")! + 1])!
            try Self.run(Self.save(layout, format: .png, tileSize: tileSize, skipBlanks: -1), input: input, output: layout == .deepzoom ? ours + ".dzi" : ours)
            let ran = try CommandRunner.runProgram(vips, ["dzsave", input, theirs, "--suffix", ".png"] + vipsArguments)
            #expect(ran.status == 0, "\(ran.standardError)")
            let root = layout == .deepzoom ? (ours + "_files", theirs + "_files") : (ours, theirs)
            let tiles = try FileManager.default.subpathsOfDirectory(atPath: root.1).filter { $0.hasSuffix(".png") && $0 != "blank.png" }.sorted()
            let mine = try FileManager.default.subpathsOfDirectory(atPath: root.0).filter { $0.hasSuffix(".png") && $0 != "blank.png" }.sorted()
            #expect(tiles == mine, "\(layout): the same tile names")
            #expect(tiles.count > 10, "\(layout): \(tiles.count) tiles")
            var worst = 0
            for tile in tiles where mine.contains(tile) {
                let a = try Image.load(path: root.0 + "/" + tile), b = try Image.load(path: root.1 + "/" + tile)
                #expect(a.size == b.size, "\(tile)")
                guard a.size == b.size else { continue }
                for y in 0..<a.height {
                    for x in 0..<a.width {
                        let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                        worst = max(worst, abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)), abs(Int(p.blue) - Int(q.blue)))
                    }
                }
            }
            #expect(worst <= 1, "\(layout): tiles differ by up to \(worst)")
            // The description viewers read, as libvips writes it (IIIF's info.json lists one more scale factor).
            if let file = ["deepzoom": ".dzi", "zoomify": "/ImageProperties.xml"][layout.rawValue] {
                #expect(try String(contentsOfFile: ours + file, encoding: .utf8) == String(contentsOfFile: theirs + file, encoding: .utf8), "\(layout)")
            }
        }
    }

    // MARK: the viewer

    /// Samples/pyramid-viewer opens the sample's pyramid in headless Chromium (from the disk,
    /// allowed to read files), zoomed in 3×: it draws the full-size level, every tile of the view
    /// there, and the screenshot is the photo, not the page's background. Selenium drives the
    /// browser (Tests/Browser/viewer_test.py) and waits in real time for the viewer to say it is
    /// complete: a virtual-time budget ran out under a whole test run's load.
    @Test func theViewerDrawsThePyramidInHeadlessChromium() throws {
        try #require(SeleniumBrowser.available, "needs Debian's chromium, chromium-driver and python3-selenium: make test installs them")
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Samples")
        let directory = try TemporaryDirectory()
        let text = try String(contentsOf: samples.appendingPathComponent("pyramid.pipe"), encoding: .utf8)
        let pipeline = try TestRegistry.compiler.compile(text)
        try pipeline.run(in: RunContext(input: samples.appendingPathComponent("images/boats.jpg").path, output: nil, outputDirectory: directory.path))
        try FileManager.default.copyItem(atPath: samples.appendingPathComponent("pyramid-viewer/index.html").path, toPath: directory.file("index.html"))
        let page = "file://\(directory.path)/index.html?dzi=boats.dzi&zoom=3&x=0.42&y=0.62"
        let shot = directory.file("shot.png")
        let result = try CommandRunner.runProgram(SeleniumBrowser.python, [SeleniumBrowser.script("viewer_test.py"), page, shot])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError.suffix(600))")
        #expect(result.standardOutput.contains("\"level\": \"11\""), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("\"complete\": \"true\""), "\(result.standardOutput)")
        let picture = try Image.load(path: shot)
        #expect(picture.size == Size(960, 600))
        var background = 0, samplesTaken = 0
        for y in stride(from: 5, to: 600, by: 20) {
            for x in stride(from: 5, to: 960, by: 20) {
                samplesTaken += 1
                if Synthetic.close(picture.pixel(x: x, y: y), Color(red: 0x1d, green: 0x1f, blue: 0x21), tolerance: 3) { background += 1 }
            }
        }
        #expect(background * 50 < samplesTaken, "\(background) of \(samplesTaken) samples show the page's background, not tiles")
    }
}

import Foundation
import Testing
import ImagePipe
import TestSupport

/// The streamed run from the command: `explain` says when it applies, its files are the
/// ordinary run's (`IMAGEPIPE_WHOLE_PICTURES=1`), and in a batch a JPEG that fails halfway
/// fails alone.
@Suite struct StreamedRunCommandTests {
    /// Whether `explain`'s row of the stage written `stage` says `words`.
    static func row(of stage: String, in explanation: String, says words: String) -> Bool {
        explanation.split(separator: "\n").contains { $0.contains("  \(stage)  ") && $0.contains(words) }
    }

    static func photo(_ width: Int, _ height: Int) throws -> [UInt8] {
        try Synthetic.image(width, height) { x, y in Color(red: UInt8(x % 256), green: UInt8((x ^ y) % 256), blue: UInt8(y % 256)) }
            .encoded(as: .jpeg, options: SaveOptions(quality: 92))
    }

    @Test func explainSaysWhenTheRunStreams() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(120, 90), to: "in.jpg")
        let streamed = try CommandRunner.run(["explain", "-e", "grayscale | gamma 2", "in.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(streamed.status == 0 && streamed.standardOutput.contains("streamed: 32 rows at a time go through the stages into the encoder"),
                "\(streamed.standardOutput)\(streamed.standardError)")
        // Area stages stream too, through windows of rows.
        let area = try CommandRunner.run(["explain", "-e", "grayscale | blur 2 | sharpen", "in.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(area.standardOutput.contains("streamed: 32 rows at a time"), "\(area.standardOutput)")
        #expect(Self.row(of: "blur 2", in: area.standardOutput, says: "area stage: each strip from 6 rows above and below, its rows about ")
                && Self.row(of: "sharpen", in: area.standardOutput, says: "area stage: each strip from 3 rows above and below")
                && Self.row(of: "grayscale", in: area.standardOutput, says: "point stage, on each strip in place"), "\(area.standardOutput)")
        // A stage that measures the picture first reads it twice.
        let surveyed = try CommandRunner.run(["explain", "-e", "grayscale | normalize", "in.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(surveyed.standardOutput.contains("(read twice: the first read lets normalize measure every pixel, the second streams through what it found)"),
                "\(surveyed.standardOutput)")
        // An encoder that takes a whole picture is fed the rows gathered, and explain says what that holds.
        let webp = try CommandRunner.run(["explain", "-e", "grayscale", "in.jpg", "-o", "out.webp"], in: directory.path)
        #expect(webp.standardOutput.contains("streamed: 32 rows at a time")
                && webp.standardOutput.contains("(the last rows gathered into the output picture, for an encoder that takes it whole: about "),
                "\(webp.standardOutput)")
        // Not streamed: the memory line gives the run's own reason.
        for (pipeline, output, reason) in [("tee - | grayscale", "out.png", "as a tee to standard output, or with a stage that takes whole pictures")] {
            let ordinary = try CommandRunner.run(["explain", "-e", pipeline, "in.jpg", "-o", output], in: directory.path)
            #expect(ordinary.status == 0 && !ordinary.standardOutput.contains("streamed:")
                    && ordinary.standardOutput.contains("at the peak, whole pictures, \(reason)"), "\(pipeline) → \(output): \(ordinary.standardOutput)")
        }
        // A whole stage streams behind the picture gathered before it.
        let smart = try CommandRunner.run(["explain", "-e", "grayscale | crop 100x100 position=attention | gamma 1.2", "in.jpg", "-o", "out.jpg"],
                                          in: directory.path)
        #expect(smart.standardOutput.contains("streamed: ") && smart.standardOutput.contains("whole stage: the picture before it gathered in memory"),
                "\(smart.standardOutput)")
        // The switch the tests compare with: every stage on the whole picture.
        let asked = try CommandRunner.run(["explain", "-e", "grayscale", "in.jpg", "-o", "out.jpg"], in: directory.path,
                                          environment: CommandRunner.wholePictures)
        #expect(!asked.standardOutput.contains("streamed:") && asked.standardOutput.contains("whole pictures, as IMAGEPIPE_WHOLE_PICTURES asks"),
                "\(asked.standardOutput)")
        let piped = try CommandRunner.run(["explain", "-e", "grayscale", "-", "-o", "out.jpg"], in: directory.path,
                                          input: Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("in.jpg")))))
        #expect(piped.standardOutput.contains("streamed: 32 rows at a time") && piped.standardOutput.contains("(decoded whole first, as its decoder"),
                "\(piped.standardOutput)\(piped.standardError)")
    }

    /// A picture whose decoder gives only whole pictures (BMP, GIF, a CMYK JPEG, a WebP with
    /// alpha), or that comes from standard input, is decoded whole and its rows streamed from
    /// there through the stages: the file is the ordinary run's byte for byte, orientation tag
    /// included (the decode turned it upright already).
    @Test func picturesDecodedWholeStreamToTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            from PIL import Image
            d = '\(directory.path)'
            rgb = Image.radial_gradient('L').resize((300, 200)).convert('RGB')
            rgb.paste((200, 40, 10), (20, 30, 90, 70))
            rgba = rgb.copy()
            rgba.putalpha(Image.linear_gradient('L').resize((300, 200)))
            rgb.save(d + '/in.bmp'); rgb.save(d + '/in.gif'); rgba.save(d + '/in.webp', lossless=True)
            exif = Image.Exif()
            exif[0x0112] = 6
            rgb.convert('CMYK').save(d + '/in.jpg', exif=exif.tobytes(), quality=95)
            """)
        for file in ["in.bmp", "in.gif", "in.webp", "in.jpg", "-"] {
            let input: [UInt8] = file == "-" ? Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("in.bmp")))) : []
            let explain = try CommandRunner.run(["explain", "-e", "blur 2", file, "-o", "out.png"], in: directory.path, input: input)
            #expect(explain.standardOutput.contains("(decoded whole first, as its decoder"), "\(file): \(explain.standardOutput)")
            for (pipeline, output) in [("blur 2 | resize 60% | sharpen", "png"), ("gamma 1.2 | rotate 90 | crop 10,10,100x80", "jpg")] {
                try Self.expectStreamsToTheOrdinaryBytes(pipeline, file, output: output, in: directory, standardInput: input)
            }
        }
        // The CMYK JPEG's orientation tag (6) was applied once: 200 wide after the turn by 90.
        let turned = try Image.load(path: directory.file("streamed.jpg"))
        #expect(turned.size == Size(100, 80))
    }

    /// A JPEG decoded whole (CMYK, or from standard input) is decoded reduced when the stages
    /// only shrink it, as a file's rows are, and the reduced picture streams through them.
    @Test func picturesDecodedWholeAndReducedStreamToTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            from PIL import Image
            d = '\(directory.path)'
            rgb = Image.radial_gradient('L').resize((1200, 800)).convert('RGB')
            rgb.paste((200, 40, 10), (80, 120, 360, 280))
            exif = Image.Exif()
            exif[0x0112] = 6
            rgb.convert('CMYK').save(d + '/cmyk.jpg', exif=exif.tobytes(), quality=95)
            rgb.save(d + '/rgb.jpg', exif=exif.tobytes(), quality=95)
            """)
        for file in ["cmyk.jpg", "-"] {
            let input: [UInt8] = file == "-" ? Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("rgb.jpg")))) : []
            for (pipeline, output) in [("fit 150x150", "png"), ("resize 20% | sharpen", "jpg"), ("circle-crop size=100 | grayscale", "png")] {
                let explain = try CommandRunner.run(["explain", "-e", pipeline, file, "-o", "out.\(output)"], in: directory.path, input: input)
                #expect(explain.standardOutput.contains("(decoded whole first, as its decoder") && explain.standardOutput.contains("decoded at 1/"),
                        "\(file) \(pipeline): \(explain.standardOutput)")
                try Self.expectStreamsToTheOrdinaryBytes(pipeline, file, output: output, in: directory, standardInput: input)
            }
        }
        // Turned upright once: the 1200x800 picture is 800 wide on its side, fitted to 100x150.
        #expect(try Image.load(path: directory.file("streamed.png")).size == Size(100, 100))
        #expect(try ImageHeader.read(path: directory.file("ordinary.jpg")).storedSize == Size(160, 240))
    }

    /// Whether a file streams is known from its header, before any decoding: an animated WebP
    /// takes the animation's run; a WebP with alpha and a CMYK JPEG are decoded whole and then
    /// streamed; the others stream as they are decoded. `explain` says so and estimates by rows.
    @Test func explainKnowsFromTheHeaderWhichFilesStream() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            from PIL import Image
            d = '\(directory.path)'
            rgb = Image.radial_gradient('L').resize((300, 200)).convert('RGB')
            rgba = rgb.copy()
            rgba.putalpha(128)
            rgb.save(d + '/opaque.png'); rgba.save(d + '/alpha.png')
            rgb.save(d + '/opaque.webp'); rgba.save(d + '/alpha.webp')
            rgb.save(d + '/animated.webp', save_all=True, append_images=[Image.new('RGB', (300, 200), (255, 0, 0))], duration=100)
            rgb.save(d + '/rgb.jpg'); rgb.convert('CMYK').save(d + '/cmyk.jpg')
            """)
        for (file, streams) in [("opaque.png", true), ("alpha.png", true), ("opaque.webp", true), ("alpha.webp", true),
                                ("animated.webp", false), ("rgb.jpg", true), ("cmyk.jpg", true)] {
            let explain = try CommandRunner.run(["explain", "-e", "gamma 1.2", file, "-o", "out.png"], in: directory.path)
            #expect(explain.status == 0 && explain.standardOutput.contains("streamed: 32 rows at a time") == streams, "\(file): \(explain.standardOutput)")
            #expect(explain.standardOutput.contains("rows of the streamed run") == streams, "\(file): \(explain.standardOutput)")
        }
    }

    @Test func theStreamedFileIsTheOrdinaryRunsByteForByte() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(300, 211), to: "in.jpg")
        // The stock area stages among them: each strip from its window of rows.
        for pipeline in ["grayscale", "modulate saturation=1.4 hue=30deg | tint orange", "save quality=70 progressive=true",
                         "blur 3 | sharpen amount=2", "median 5 | gamma 1.5 | convolve 3x3 1,2,1,2,4,2,1,2,1", "blur 40 | negate | blur 0.5",
                         // Resample stages, from windows of rows at their own sizes (the default kernel, the run's).
                         "crop 11,7,250x190 | grayscale", "resize 130x90 | sharpen", "resize 500x400 fit=contain background=white | blur 2",
                         "blur 1 | resize 70x | crop 5,5,50x30 | negate",
                         // letterbox with opaque bars: centered where smaller, cut at its offset where larger.
                         "letterbox 400x300 color=#203040", "fit 200x200 | letterbox 260x180 | sharpen", "letterbox 200x150 offset=0.2,0.8 | blur 1",
                         "letterbox 250x260 offset=10px,30px",
                         // slice at native size (a crop) and zoomed in past the cover (a scale).
                         "slice 120x90 zoom=1000 offset=30px,20px | sharpen", "slice 160x100 zoom=2.5 offset=0.8,0.3",
                         // circle-mask on an opaque picture: each row painted where it lies, the ring across strips.
                         "circle-mask", "circle-mask ring=true gap=20 | blur 1", "fit 250x250 | circle-mask fill=#ff000080 ring=true ring-width=6 dash=10,5",
                         // Stages that survey the picture first, then stream as point stages.
                         "normalize", "blur 2 | normalize lower=5% | sharpen", "normalize | resize 50% | normalize upper=90%"] {
            let streamed = try CommandRunner.run(["run", "-e", pipeline, "in.jpg", "-o", "streamed.jpg"], in: directory.path)
            let ordinary = try CommandRunner.run(["run", "-e", pipeline, "in.jpg", "-o", "ordinary.jpg"], in: directory.path, environment: CommandRunner.wholePictures)
            #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
            let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.jpg")))
            let b = try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.jpg")))
            #expect(a == b && !a.isEmpty, "\(pipeline)")
            let explain = try CommandRunner.run(["explain", "-e", pipeline, "in.jpg", "-o", "out.jpg"], in: directory.path)
            #expect(explain.standardOutput.contains("streamed: 32 rows at a time"), "\(pipeline): \(explain.standardOutput)")
        }
    }

    /// `pipeline` on `input` into `output` (an extension): `explain` says it streams, and the
    /// streamed file (`streamed.EXT`) is the ordinary run's (`ordinary.EXT`, of whole pictures)
    /// byte for byte.
    /// `standardInput` is what the runs read when `input` is `-`.
    static func expectStreamsToTheOrdinaryBytes(_ pipeline: String, _ input: String, output: String, in directory: TemporaryDirectory,
                                                environment: [String: String] = [:], standardInput: [UInt8] = []) throws {
        let explain = try CommandRunner.run(["explain", "-e", pipeline, input, "-o", "out.\(output)"], in: directory.path, input: standardInput,
                                            environment: environment)
        #expect(explain.standardOutput.contains("streamed:"), "\(input) \(pipeline) → \(output): \(explain.standardOutput)")
        let streamed = try CommandRunner.run(["run", "-e", pipeline, input, "-o", "streamed.\(output)"], in: directory.path, input: standardInput,
                                             environment: environment)
        let ordinary = try CommandRunner.run(["run", "-e", pipeline, input, "-o", "ordinary.\(output)"], in: directory.path, input: standardInput,
                                             environment: CommandRunner.wholePictures)
        #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.\(output)")))
        #expect(bytes == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.\(output)")))) && !bytes.isEmpty,
                "\(input) \(pipeline) → \(output)")
    }

    /// A `tee` streams: each writes its file from the rows that pass it, on a thread of its own,
    /// byte for byte as the ordinary run writes it, wherever it stands: among point stages, after
    /// an area, resample or turning stage, before a crop that leaves rows out, before a survey
    /// (trim, whose first read writes nothing), after alpha came (flattened into a JPEG, with the
    /// save's warning), several at once, as JPEG, PNG and TIFF. So does a `branch`: its groups
    /// but the last from the rows at the branch, each through its own stages (a tee among them
    /// fed by the group's chain), the last in the run's own chain, a tee and a survey in it too.
    @Test func teesAndBranchesStreamTheirFilesToTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(try Self.photo(403, 301), to: "in.jpg")
        for (pipeline, tees) in [("tee {mode}-a.jpg | blur 2", ["a.jpg"]),
                                 ("grayscale | tee {mode}-a.jpg | fit 200x200 | tee {mode}-b.png | sharpen", ["a.jpg", "b.png"]),
                                 ("fit 300x300 | tee {mode}-a.tif | crop 10,10,60x40", ["a.tif"]),
                                 ("tee {mode}-a.png | trim", ["a.png"]),
                                 ("rotate 90 | tee {mode}-a.jpg quality=70 | rotate angle=20", ["a.jpg"]),
                                 ("circle-crop | tee {mode}-a.jpg | tee {mode}-b.png | tee {mode}-c.tif | resize 50%", ["a.jpg", "b.png", "c.tif"]),
                                 ("blur 2 | branch { fit 200x200 | save {mode}-a.jpg } { crop 5,5,50x60 | sharpen | save {mode}-b.tif } { tee {mode}-c.png | flop | save {mode}.png }",
                                  ["a.jpg", "b.tif", "c.png"]),
                                 ("branch { save {mode}-a.jpg } { rotate 90 | gamma 1.2 | save {mode}.png }", ["a.jpg"]),
                                 ("circle-crop | branch { resize 50% | save {mode}-a.jpg } { save {mode}.png }", ["a.jpg"]),
                                 // A survey in the last group: its read writes nothing, the run's own writes every file.
                                 ("fit 300x300 | branch { save {mode}-a.jpg } { normalize | save {mode}.png }", ["a.jpg"]),
                                 ("branch { flop | save {mode}-a.png } { blur 1 | tee {mode}-b.jpg | trim | sharpen | save {mode}.png }",
                                  ["a.png", "b.jpg"]),
                                 // Tees in a group beside the last: fed by the group's own chain.
                                 ("branch { grayscale | tee {mode}-c.png | blur 1 | tee {mode}-d.jpg quality=70 | rotate 90 | save {mode}-a.jpg } { resize 50% | save {mode}.png }",
                                  ["c.png", "d.jpg", "a.jpg"]),
                                 // Branches within groups: their groups but the last are side outputs of side outputs,
                                 // or of the run's own chain down its last groups.
                                 ("branch { fit 200x200 | branch { save {mode}-a.jpg } { sharpen | tee {mode}-c.png | save {mode}-b.png } } { blur 1 | save {mode}.png }",
                                  ["a.jpg", "b.png", "c.png"]),
                                 ("blur 1 | branch { save {mode}-a.jpg } { fit 200x200 | branch { rotate 90 | save {mode}-b.jpg } { grayscale | save {mode}.png } }",
                                  ["a.jpg", "b.jpg"]),
                                 ("branch { branch { branch { save {mode}-a.png } { flop | save {mode}-b.png } } { save {mode}-c.jpg } } { resize 50% | branch { save {mode}-d.tif } { normalize | save {mode}.png } }",
                                  ["a.png", "b.png", "c.jpg", "d.tif"]),
                                 // A smart crop in a group beside the last: that group's chain gathers the picture for it.
                                 ("branch { blur 1 | crop 120x90 position=attention | tee {mode}-b.jpg | sharpen | save {mode}-a.png } { flop | save {mode}.png }",
                                  ["a.png", "b.jpg"]),
                                 // Encoders that take a whole picture: their rows gathered beside the run.
                                 ("tee {mode}-a.webp | fit 200x200 | tee {mode}-b.gif | tee {mode}-c.png palette=true | blur 1", ["a.webp", "b.gif", "c.png"]),
                                 ("branch { fit 100x100 | save {mode}-a.avif speed=10 } { save {mode}-b.bmp } { sharpen | save {mode}.png }", ["a.avif", "b.bmp"])] {
            func named(_ mode: String) -> String { pipeline.replacingOccurrences(of: "{mode}", with: mode) }
            let explain = try CommandRunner.run(["explain", "-e", named("explained"), "in.jpg"] + (pipeline.contains("branch") ? [] : ["-o", "out.png"]),
                                                in: directory.path)
            #expect(explain.standardOutput.contains("streamed:"), "\(pipeline): \(explain.standardOutput)")
            #expect(!(pipeline.contains("normalize") || pipeline.contains("trim")) || explain.standardOutput.contains("read twice"),
                    "\(pipeline): \(explain.standardOutput)")
            for mode in ["streamed", "ordinary"] {
                let output = pipeline.contains("branch") ? [] : ["-o", "\(mode).png"]
                let run = try CommandRunner.run(["run", "-e", named(mode), "in.jpg"] + output, in: directory.path,
                                                environment: mode == "ordinary" ? CommandRunner.wholePictures : [:])
                #expect(run.status == 0, "\(pipeline): \(run.standardError)")
                #expect(!pipeline.contains("circle-crop") || run.standardError.contains("streamed-a.jpg: JPEG has no alpha") || mode == "ordinary",
                        "\(run.standardError)")
            }
            for file in ["png"] + tees {
                let name = file == "png" ? "" : "-" + file
                let streamed = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed\(file == "png" ? ".png" : name)")))
                let ordinary = try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary\(file == "png" ? ".png" : name)")))
                #expect(streamed == ordinary && !streamed.isEmpty, "\(pipeline): \(file)")
            }
        }
    }

    /// A streamed tee or branch writes nothing when the run fails: a decode that breaks off
    /// halfway, an output that cannot be written, a tee or group that cannot write its own file.
    /// None of them hangs.
    @Test func aFailedRunLeavesNoTeeFile() throws {
        let directory = try TemporaryDirectory()
        let photo = try Self.photo(403, 301)
        _ = try directory.write(photo, to: "in.jpg")
        _ = try directory.write(Array(photo.prefix(photo.count / 2)), to: "cut.jpg")
        for (input, pipeline, output, said) in [("cut.jpg", "tee teed.jpg | blur 2", "out.jpg", "cut.jpg"),
                                                ("cut.jpg", "branch { fit 50x50 | save teed.jpg } { flop | save out.png }", "", "cut.jpg"),
                                                ("in.jpg", "branch { save missing/teed.jpg } { save out.png }", "", "missing/teed.jpg"),
                                                ("in.jpg", "tee teed.png | blur 2", "missing/out.jpg", "missing/out.jpg"),
                                                ("in.jpg", "tee missing/teed.jpg | sharpen", "out.jpg", "missing/teed.jpg"),
                                                // A tee in a group beside the last, and the group's file beside it.
                                                ("in.jpg", "branch { blur 1 | tee missing/teed.jpg | save teed.png } { save out.png }", "", "missing/teed.jpg"),
                                                ("cut.jpg", "branch { tee teed.jpg | flop | save teed.png } { save out.png }", "", "cut.jpg")] {
            let named = output.isEmpty ? [] : ["-o", output]
            let explain = try CommandRunner.run(["explain", "-e", pipeline, "in.jpg"] + named, in: directory.path)
            #expect(explain.standardOutput.contains("streamed:"), "\(pipeline): \(explain.standardOutput)")
            #expect(!(pipeline.contains("normalize") || pipeline.contains("trim")) || explain.standardOutput.contains("read twice"),
                    "\(pipeline): \(explain.standardOutput)")
            let run = try CommandRunner.run(["run", "-e", pipeline, input] + named, in: directory.path)
            #expect(run.status == 1 && run.standardError.contains(said), "\(pipeline): \(run.status) \(run.standardError)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "in.jpg" && $0 != "cut.jpg" }
            #expect(left.isEmpty, "\(pipeline) left \(left)")
        }
    }

    /// Stages that add alpha (or drop it) stream: their level's rows are RGBA from there on, the
    /// same bytes as the whole picture at once; into a JPEG, which has no alpha, the rows are
    /// flattened onto the save's background as the whole picture is.
    @Test func alphaAddedOnTheWayStreamsToTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(300, 211), to: "in.jpg")
        _ = try directory.write(Self.photo(1203, 803), to: "large.jpg")
        _ = try directory.write(Synthetic.image(90, 40, alpha: true) { x, y in Color(red: 9, green: 9, blue: 9, alpha: UInt8(x * 2 + y)) }.encoded(as: .png),
                                to: "mask.png")
        for (input, pipeline) in [("in.jpg", "ensure-alpha"),
                                  // The masking blends give the picture the overlay's alpha.
                                  ("in.jpg", "composite mask.png blend=dest-in gravity=south | blur 1"), ("in.jpg", "composite mask.png blend=dest-out tile=true"), ("in.jpg", "ensure-alpha 0.5 | blur 2 | crop 3,5,200x150"),
                                  ("in.jpg", "circle-crop"), ("in.jpg", "circle-crop position=top-left gap=10 | sharpen"),
                                  ("in.jpg", "fit 250x250 | circle-mask fill=transparent ring=true"), ("in.jpg", "circle-crop | flatten"),
                                  ("in.jpg", "ensure-alpha | remove-alpha | grayscale"), ("in.jpg", "circle-crop | resize 50%"),
                                  // Turns and warps after alpha: their tile caches keep RGBA.
                                  ("in.jpg", "ensure-alpha 0.5 | rotate 90 | blur 1"), ("in.jpg", "circle-crop | rotate angle=20 background=transparent | flip"),
                                  // Surveys after alpha: they look at RGBA rows (transparent pixels count for nothing).
                                  ("in.jpg", "circle-crop | normalize"), ("in.jpg", "ensure-alpha 0.7 | trim | blur 1"),
                                  // Translucent borders and bars: resample stages that give RGBA rows.
                                  ("in.jpg", "extend top=20 left=7 bottom=45 color=#ff000060 | blur 1"),
                                  ("in.jpg", "letterbox 320x400 color=#0000ff80"), ("in.jpg", "circle-crop | letterbox 300x200 color=#00000000"),
                                  // The avatar from a decode reduced in the DCT, its windows on the reduced rows.
                                  ("large.jpg", "circle-crop size=128"), ("large.jpg", "fit 600x600 | circle-crop size=90")] {
            for output in ["png", "tif", "jpg"] {
                try Self.expectStreamsToTheOrdinaryBytes(pipeline, input, output: output, in: directory)
            }
        }
        let avatar = try Image.load(path: directory.file("streamed.png"))
        #expect(avatar.hasAlpha && avatar.pixel(x: 0, y: 0).alpha == 0 && avatar.pixel(x: 45, y: 45).alpha == 255)
        // Flattened onto the background the save names, and said so, as the ordinary run says it.
        let flattened = try CommandRunner.run(["run", "-e", "circle-crop | save background=#ff0000", "in.jpg", "-o", "red.jpg"],
                                              in: directory.path)
        #expect(flattened.standardError.contains("red.jpg: JPEG has no alpha; flattened onto #ff0000"), "\(flattened.standardError)")
        let corner = try Image.load(path: directory.file("red.jpg")).pixel(x: 0, y: 0)
        #expect(corner.red > 240 && corner.green < 20, "\(corner)")
    }

    /// `extend`'s edge modes stream as resample stages: a border copies, mirrors or repeats input
    /// rows, the window reaching back to the picture's top where a repeated bottom border shows
    /// it again; borders wider than the picture wrap. The ordinary run's bytes, in every mode.
    @Test func extendsEdgeModesStreamToTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(300, 211), to: "in.jpg")
        for pipeline in ["extend top=30 right=17 bottom=90 left=5 mode=mirror | blur 1", "extend top=40 bottom=12 left=300 mode=repeat",
                         "extend top=500 right=3 bottom=700 mode=mirror | fit 200x200", "extend top=9 bottom=250 right=9 mode=copy | rotate 90",
                         "grayscale | extend bottom=211 mode=repeat | sharpen"] {
            for output in ["png", "jpg"] {
                try Self.expectStreamsToTheOrdinaryBytes(pipeline, "in.jpg", output: output, in: directory)
            }
        }
        let tiled = try Image.load(path: directory.file("streamed.png"))
        #expect(tiled.size == Size(300, 422) && tiled.pixel(x: 10, y: 5) == tiled.pixel(x: 10, y: 216), "the repeated picture below the picture")
    }

    /// A whole stage (a smart crop) streams behind the picture gathered before it: the stages
    /// before stream into it, those after stream from its output, two in one chain, to the
    /// ordinary run's bytes.
    @Test func aWholeStageStreamsBehindTheGatheredPicture() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(300, 211), to: "in.jpg")
        for pipeline in ["crop 120x90 position=attention | blur 1", "blur 1 | resize 100x100 position=entropy | grayscale",
                         "circle-crop size=80 position=attention", "sharpen | slice 90x60 offset=entropy | rotate 90",
                         "gamma 1.2 | crop 100x100 position=attention | fit 50x50 | crop 40x40 position=entropy"] {
            try Self.expectStreamsToTheOrdinaryBytes(pipeline, "in.jpg", output: "png", in: directory)
        }
        // What the stage noted (the window it chose) reaches the run's JSON as it does on whole
        // pictures, for the pipeline's own stages and a branch's groups' (the last, and one beside it).
        for (pipeline, output) in [("blur 1 | crop 120x90 position=attention | grayscale", ["-o", "n.png"]),
                                   ("branch { save a.png } { crop 60x60 position=entropy | blur 1 | save b.png }", []),
                                   ("branch { gamma 1.2 | crop 50x70 position=attention | save c.png } { crop 60x60 position=entropy | save d.png }", []),
                                   ("branch { branch { crop 50x50 position=attention | save e.png } { save f.png } } { fit 100x100 | branch { save g.png } { crop 40x40 position=entropy | save h.png } }", [])] {
            let streamed = try CommandRunner.run(["run", "--json", "-e", pipeline, "in.jpg"] + output, in: directory.path)
            let whole = try CommandRunner.run(["run", "--json", "-e", pipeline, "in.jpg"] + output, in: directory.path,
                                              environment: CommandRunner.wholePictures)
            #expect(streamed.status == 0 && whole.status == 0, "\(streamed.standardError)\(whole.standardError)")
            // The notes, with the group and stage each belongs to, are the JSON's last field.
            func notes(_ json: String) -> String? {
                guard json.contains(#""name":"window""#), let range = json.range(of: #""notes":"#) else { return nil }
                return String(json[range.lowerBound...])
            }
            #expect(notes(streamed.standardOutput) != nil && notes(streamed.standardOutput) == notes(whole.standardOutput),
                    "\(pipeline): \(streamed.standardOutput) \(whole.standardOutput)")
        }
    }

    /// A PNG with alpha streams as RGBA rows (an alpha color type, gray with alpha, a palette
    /// with tRNS), through every class of stage, to the ordinary run's bytes; into a
    /// JPEG the rows are flattened as the whole picture is.
    @Test func aPNGWithAlphaStreamsItsRGBARows() throws {
        let directory = try TemporaryDirectory()
        try ColorReference.python("""
            from PIL import Image
            d = '\(directory.path)'
            rgb = Image.radial_gradient('L').resize((301, 203)).convert('RGB')
            alpha = Image.linear_gradient('L').resize((301, 203))
            rgba = rgb.copy(); rgba.putalpha(alpha); rgba.save(d + '/rgba.png')
            la = rgb.convert('L'); la.putalpha(alpha); la.save(d + '/la.png')
            rgba.convert('P', palette=Image.ADAPTIVE).save(d + '/palette.png', transparency=0)
            exif = Image.Exif()
            exif[0x0112] = 6
            rgba.save(d + '/turned.png', exif=exif.tobytes())
            """)
        // (turned.png is stored on its side: its RGBA rows go through a tile cache first.)
        for file in ["rgba.png", "la.png", "palette.png", "turned.png"] {
            for (pipeline, output) in [("gamma 1.2", "png"), ("blur 2 | resize 50%", "png"), ("crop 2,7,150x140 | sharpen", "tif"),
                                       ("circle-crop size=90", "png"), ("flatten background=#336699 | grayscale", "jpg"),
                                       ("remove-alpha | median 3", "png"), ("resize 120x", "jpg")] {
                try Self.expectStreamsToTheOrdinaryBytes(pipeline, file, output: output, in: directory)
            }
        }
        let kept = try Image.load(path: directory.file("streamed.png"))
        #expect(!kept.hasAlpha) // the last PNG pipeline removed it
        _ = try CommandRunner.run(["run", "-e", "gamma 1", "rgba.png", "-o", "same.png"], in: directory.path)
        let same = try Image.load(path: directory.file("same.png")), source = try Image.load(path: directory.file("rgba.png"))
        #expect(same.hasAlpha && same.pixel(x: 0, y: 100) == source.pixel(x: 0, y: 100) && same.pixel(x: 300, y: 100) == source.pixel(x: 300, y: 100))
    }

    /// Shrink-on-load streams: the JPEG decoded reduced in the DCT, row by row, into the first
    /// stage's windows mapped onto the reduced rows as the whole run maps them, in each scaling
    /// mode and for a picture stored turned (EXIF orientation 6).
    @Test func aReducedDecodeStreamsToTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        let photo = try Self.photo(1203, 803)
        _ = try directory.write(photo, to: "in.jpg")
        _ = try directory.write(Synthetic.withExifOrientation(photo, orientation: 6), to: "turned.jpg")
        for input in ["in.jpg", "turned.jpg"] {
            for pipeline in ["fit 150x150", "resize 200x120 | sharpen", "resize 140x140 fit=contain background=white | grayscale",
                             "resize 90x | crop 3,4,60x30", "slice 150x150", "slice 120x80 zoom=1.2 offset=0.2,0.8 | sharpen"] {
                for mode in ["good", "fast"] {
                    let explain = try CommandRunner.run(["explain", "--scaling", mode, "-e", pipeline, input, "-o", "out.png"], in: directory.path)
                    #expect(explain.standardOutput.contains("decoded at 1/") && explain.standardOutput.contains("streamed:"),
                            "\(input) \(mode) \(pipeline): \(explain.standardOutput)\(explain.standardError)")
                    let streamed = try CommandRunner.run(["run", "--scaling", mode, "-e", pipeline, input, "-o", "streamed.png"], in: directory.path)
                    let ordinary = try CommandRunner.run(["run", "--scaling", mode, "-e", pipeline, input, "-o", "ordinary.png"],
                                                         in: directory.path, environment: CommandRunner.wholePictures)
                    #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
                    let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.png")))
                    #expect(a == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.png")))) && !a.isEmpty,
                            "\(input) \(mode) \(pipeline)")
                }
            }
        }
    }

    /// A stage that surveys the picture (`normalize`) streams from every input that hands out
    /// rows: the survey sees the picture as the ordinary run's stage sees it (upright, color
    /// managed, after the stages before), so the files are the same byte for byte. A file that
    /// fails during the survey fails the run with the decoder's message and writes nothing.
    @Test func aSurveyingStageStreamsFromEveryInput() throws {
        let directory = try TemporaryDirectory()
        let photo = try Self.photo(331, 207)
        _ = try directory.write(photo, to: "in.jpg")
        _ = try directory.write(Synthetic.withExifOrientation(photo, orientation: 6), to: "turned.jpg")
        let picture = try Image.decode(photo)
        _ = try directory.write(picture.encoded(as: .png), to: "in.png")
        _ = try directory.write(picture.encoded(as: .tiff), to: "in.tif")
        for input in ["in.jpg", "turned.jpg", "in.png", "in.tif"] {
            for pipeline in ["normalize lower=3% upper=97%", "flip | normalize | blur 1"] {
                let explain = try CommandRunner.run(["explain", "-e", pipeline, input, "-o", "out.png"], in: directory.path)
                #expect(explain.standardOutput.contains("read twice"), "\(input) \(pipeline): \(explain.standardOutput)")
                let streamed = try CommandRunner.run(["run", "-e", pipeline, input, "-o", "streamed.png"], in: directory.path)
                let ordinary = try CommandRunner.run(["run", "-e", pipeline, input, "-o", "ordinary.png"], in: directory.path, environment: CommandRunner.wholePictures)
                #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
                let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.png")))
                #expect(a == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.png")))) && !a.isEmpty, "\(input) \(pipeline)")
            }
        }
        let big = try Self.photo(900, 700)
        _ = try directory.write(Array(big.prefix(big.count * 6 / 10)), to: "cut.jpg")
        let cut = try CommandRunner.run(["run", "-e", "normalize", "cut.jpg", "-o", "cut.png"], in: directory.path)
        #expect(cut.status == 1 && cut.standardError.contains("cut.jpg: corrupt image"), "\(cut.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("cut.png")))
    }

    /// A WebP keeps its EXIF (and here its profile's neighbour, XMP) after the image data: the
    /// chunk walk finds them before the first row, so a streamed WebP is turned, color managed
    /// and carries its metadata as in the ordinary run, byte for byte.
    @Test func aWebPStreamsTurnedAndColorManaged() throws {
        let directory = try TemporaryDirectory()
        let p3 = try directory.write(ColorReference.displayP3(), to: "p3.icc")
        _ = try directory.write(Self.photo(331, 207), to: "in.jpg")
        try ColorReference.python("""
            from PIL import Image
            im = Image.open('\(directory.file("in.jpg"))')
            exif = Image.Exif()
            exif[0x0112] = 6
            im.save('\(directory.file("in.webp"))', quality=90, exif=exif.tobytes(), icc_profile=open('\(p3)', 'rb').read(),
                    xmp=b'<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>')
            data = open('\(directory.file("in.webp"))', 'rb').read()
            assert data.index(b'VP8 ') < data.index(b'EXIF') < data.index(b'XMP '), 'the metadata lies after the image data'
            """)
        for output in ["out.png", "out.jpg", "out.tif"] {
            let pipeline = "gamma 1.2 | blur 1"
            let explain = try CommandRunner.run(["explain", "-e", pipeline, "in.webp", "-o", output], in: directory.path)
            #expect(explain.standardOutput.contains("streamed: 32 rows at a time") && explain.standardOutput.contains("207x331"),
                    "\(explain.standardOutput)")
            let streamed = try CommandRunner.run(["run", "-e", pipeline, "in.webp", "-o", "streamed-" + output], in: directory.path)
            let ordinary = try CommandRunner.run(["run", "-e", pipeline, "in.webp", "-o", "ordinary-" + output], in: directory.path, environment: CommandRunner.wholePictures)
            #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
            let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed-" + output)))
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary-" + output)))) && !a.isEmpty, "\(output)")
            #expect(try Image.load(path: directory.file("streamed-" + output)).size == Size(207, 331), "turned by its EXIF")
        }
        // Converted from P3 (its green is far outside sRGB): the same WebP without its profile
        // comes out otherwise.
        try ColorReference.python("""
            from PIL import Image
            im = Image.open('\(directory.file("in.jpg"))')
            im.save('\(directory.file("plain.webp"))', quality=90)
            """)
        _ = try CommandRunner.run(["run", "-e", "load auto-orient=false | gamma 1.2 | blur 1", "plain.webp", "-o", "plain.png"], in: directory.path)
        _ = try CommandRunner.run(["run", "-e", "load auto-orient=false | gamma 1.2 | blur 1", "in.webp", "-o", "managed.png"], in: directory.path)
        let plain = try Image.load(path: directory.file("plain.png")), managed = try Image.load(path: directory.file("managed.png"))
        // At x 10, y 200 (red 10, green 194, blue 200): a cyan P3 holds and sRGB does not, its
        // red clipped to 0.
        let a = plain.pixel(x: 10, y: 200), b = managed.pixel(x: 10, y: 200)
        #expect(plain.size == managed.size && a.red > 8 && b.red == 0, "\(a) without the profile, \(b) with it")
    }

    /// A PNG's XMP in an iTXt chunk after its image data (where text chunks may lie) is walked
    /// to before the first row: the streamed file carries it, as the ordinary run's does.
    @Test func aPNGsMetadataAfterItsImageDataStreamsToo() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(331, 207), to: "in.jpg")
        try ColorReference.python("""
            import struct, zlib
            from PIL import Image
            Image.open('\(directory.file("in.jpg"))').save('\(directory.file("plain.png"))')
            data = open('\(directory.file("plain.png"))', 'rb').read()
            body = b'XML:com.adobe.xmp\\0\\0\\0\\0\\0<x:xmpmeta xmlns:x="adobe:ns:meta/">after-the-pixels</x:xmpmeta>'
            chunk = struct.pack('>I', len(body)) + b'iTXt' + body + struct.pack('>I', zlib.crc32(b'iTXt' + body) & 0xffffffff)
            end = data.rindex(b'IEND') - 4
            open('\(directory.file("in.png"))', 'wb').write(data[:end] + chunk + data[end:])
            """)
        for output in ["out.jpg", "out.png"] {
            let explain = try CommandRunner.run(["explain", "-e", "gamma 1.2 | save keep=xmp", "in.png", "-o", output], in: directory.path)
            #expect(explain.standardOutput.contains("streamed: 32 rows at a time"), "\(explain.standardOutput)")
            let streamed = try CommandRunner.run(["run", "-e", "gamma 1.2 | save keep=xmp", "in.png", "-o", "streamed-" + output], in: directory.path)
            let ordinary = try CommandRunner.run(["run", "-e", "gamma 1.2 | save keep=xmp", "in.png", "-o", "ordinary-" + output],
                                                 in: directory.path, environment: CommandRunner.wholePictures)
            #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
            let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed-" + output)))
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary-" + output)))), "\(output)")
            #expect(a.range(of: Data("after-the-pixels".utf8)) != nil, "\(output) carries the XMP")
        }
    }

    /// A memory budget reserves what the run holds: a streamed run's rings of rows, not the
    /// whole pictures of the ordinary run. The same picture fits a budget streamed, and is
    /// refused it on whole pictures, or through a whole stage that gathers the picture; `explain`
    /// says which and how much.
    @Test func aStreamedRunReservesItsRowsNotThePicture() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(3000, 2000), to: "in.jpg")
        func estimate(_ pipeline: String, environment: [String: String] = [:]) throws -> (bytes: Double, streams: Bool) {
            let explained = try CommandRunner.run(["explain", "--json", "-e", pipeline, "in.jpg", "-o", "out.jpg"], in: directory.path,
                                                  environment: environment)
            guard case let .object(fields)? = JSONValue.parse(explained.standardOutput),
                  case let .number(bytes)? = fields.first(where: { $0.0 == "estimatedPeakBytes" })?.1,
                  case let .bool(streams)? = fields.first(where: { $0.0 == "streams" })?.1 else {
                Issue.record("explain --json: \(explained.standardOutput)\(explained.standardError)")
                return (0, false)
            }
            return (bytes, streams)
        }
        let streamed = try estimate("gamma 1.1"), whole = try estimate("gamma 1.1", environment: CommandRunner.wholePictures)
        let gathered = try estimate("gamma 1.1 | crop 2900x1900 position=attention")
        #expect(streamed.streams && !whole.streams && gathered.streams)
        // 3000x2000 RGB rows in a 4 MiB ring, libjpeg's coefficients for its Huffman tables
        // (18 MB), the libraries: far below two whole pictures and the encoder's copies. The
        // smart crop holds its input and output pictures (18 MB and 16.5 MB) beside that.
        #expect(streamed.bytes < 100 * 1_048_576 && whole.bytes > 120 * 1_048_576, "\(streamed) \(whole)")
        #expect(gathered.bytes > streamed.bytes + 34 * 1_000_000 && gathered.bytes < whole.bytes, "\(streamed) \(gathered) \(whole)")
        let text = try CommandRunner.run(["explain", "-e", "gamma 1.1", "in.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(text.standardOutput.contains("at the peak, rows of the streamed run (what --max-memory reserves)"), "\(text.standardOutput)")
        // Not streamed: the reason is named.
        let wholeText = try CommandRunner.run(["explain", "-e", "gamma 1.1", "in.jpg", "-o", "out.jpg"], in: directory.path,
                                              environment: CommandRunner.wholePictures)
        #expect(wholeText.standardOutput.contains("at the peak, whole pictures, as IMAGEPIPE_WHOLE_PICTURES asks"), "\(wholeText.standardOutput)")
        let budget = "\(Int(streamed.bytes) / 1_048_576 + 4)M"
        let fits = try CommandRunner.run(["run", "--max-memory", budget, "-e", "gamma 1.1", "in.jpg", "-o", "a.jpg"], in: directory.path)
        #expect(fits.status == 0, "\(fits.standardError)")
        let refused = try CommandRunner.run(["run", "--max-memory", budget, "-e", "gamma 1.1 | crop 2900x1900 position=attention", "in.jpg", "-o", "b.jpg"], in: directory.path)
        #expect(refused.status != 0 && refused.standardError.contains("needs about"), "\(refused.standardError)")
        // The gathering run makes the ordinary run's bytes.
        let roomy = try CommandRunner.run(["run", "-e", "gamma 1.1 | crop 2900x1900 position=attention", "in.jpg", "-o", "c.jpg"], in: directory.path)
        let ordinary = try CommandRunner.run(["run", "-e", "gamma 1.1 | crop 2900x1900 position=attention", "in.jpg", "-o", "d.jpg"], in: directory.path,
                                             environment: CommandRunner.wholePictures)
        #expect(roomy.status == 0 && ordinary.status == 0, "\(roomy.standardError)\(ordinary.standardError)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("c.jpg"))) == Data(contentsOf: URL(fileURLWithPath: directory.file("d.jpg"))))
    }

    /// libvips' "Speed and Memory Use" pipeline (a crop, a 0.9× linear resize, a 3×3
    /// sharpening convolution) streams end to end: crop and resize from windows of input rows,
    /// convolve from the rows around each strip. Its file is the ordinary run's byte for byte;
    /// resize streams in every scaling mode (each resamples with a kernel).
    @Test func theSpeedAndMemoryPipelineStreamsToTheOrdinaryRunsBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Self.photo(1000, 1000), to: "in.jpg")
        let pipeline = "crop 20,20,960x960 | resize 864x864 kernel=linear | convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8"
        let explain = try CommandRunner.run(["explain", "-e", pipeline, "in.jpg", "-o", "out.jpg"], in: directory.path)
        #expect(Self.row(of: "convolve 3x3 -1,-1,-1,-1,16,-1,-1,-1,-1 scale=8", in: explain.standardOutput,
                         says: "area stage: each strip from 1 row above and below"), "\(explain.standardOutput)")
        for stage in ["crop 20,20,960x960", "resize 864x864 kernel=linear"] {
            #expect(Self.row(of: stage, in: explain.standardOutput, says: "resample stage: each strip at its own size from the input rows it needs"),
                    "\(explain.standardOutput)")
        }
        let streamed = try CommandRunner.run(["run", "-e", pipeline, "in.jpg", "-o", "streamed.jpg"], in: directory.path)
        let ordinary = try CommandRunner.run(["run", "-e", pipeline, "in.jpg", "-o", "ordinary.jpg"], in: directory.path, environment: CommandRunner.wholePictures)
        #expect(streamed.status == 0 && ordinary.status == 0, "\(streamed.standardError)\(ordinary.standardError)")
        let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.jpg")))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.jpg")))))
        #expect(try Image.decode(Array(a)).size == Size(864, 864))
        let fast = try CommandRunner.run(["explain", "--scaling", "fast", "-e", "resize 864x864", "in.jpg", "-o", "out.jpg"], in: directory.path)
        let good = try CommandRunner.run(["explain", "-e", "resize 864x864", "in.jpg", "-o", "out.jpg"], in: directory.path)
        for mode in [fast, good] {
            #expect(Self.row(of: "resize 864x864", in: mode.standardOutput, says: "resample stage: each strip at its own size"),
                    "\(mode.standardOutput)\(mode.standardError)")
        }
    }

    @Test func inABatchAJPEGFailingHalfwayFailsAlone() throws {
        let directory = try TemporaryDirectory()
        let whole = try Self.photo(400, 300)
        try FileManager.default.createDirectory(atPath: directory.file("in"), withIntermediateDirectories: true)
        for name in ["a", "c", "d"] { _ = try directory.write(whole, to: "in/\(name).jpg") }
        _ = try directory.write(Array(whole.prefix(whole.count / 2)), to: "in/b.jpg")
        let result = try CommandRunner.run(["run", "-e", "grayscale", "in/a.jpg", "in/b.jpg", "in/c.jpg", "in/d.jpg", "--jobs", "2",
                                            "--out-dir", "out", "-o", "{stem}.jpg"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("b.jpg"), "\(result.standardError)")
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted()
        #expect(written == ["a.jpg", "c.jpg", "d.jpg"])
        for name in written { #expect(try Image.load(path: directory.file("out/" + name)).size == Size(400, 300)) }
    }
}

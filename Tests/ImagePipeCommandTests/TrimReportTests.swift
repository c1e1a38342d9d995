import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// `trim` on a JPEG of a bordered photo: the border's JPEG ringing is cut with it (the 3×3
/// median libvips' find_trim takes), and the size reported everywhere is the size written, with
/// the box kept in the notes.
@Suite struct TrimReportTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/boats.jpg").path
    /// Where the photo lies on its white border.
    static let content = Rect(x: 37, y: 41, width: 320, height: 200)

    /// The photo on a white border, as a JPEG at quality 75 (4:2:0): ringing spreads into the
    /// border along every edge, up to the 16-pixel chroma blocks.
    static func borderedJPEG() throws -> [UInt8] {
        let photo = try Image.load(path: Self.photo).scaled(to: content.size)
        let canvas = try Image.canvas(size: Size(400, 290), background: .white, placing: photo, at: (content.x, content.y))
        var options = SaveOptions()
        options.quality = 75
        return try canvas.encoded(as: .jpeg, options: options)
    }

    static func box(_ json: JSONValue?) -> Rect? {
        guard let value = json?["notes"]?.arrayValue?.first?["value"],
              let x = value["x"]?.numberValue, let y = value["y"]?.numberValue,
              let width = value["width"]?.numberValue, let height = value["height"]?.numberValue else { return nil }
        return Rect(x: Int(x), y: Int(y), width: Int(width), height: Int(height))
    }

    @Test func theRingingOfAJPEGBorderIsCutWithIt() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(try Self.borderedJPEG(), to: "bordered.jpg")
        var boxes: [Rect] = []
        for lineArt in [false, true] {
            let result = try CommandRunner.run(["run", "-e", "trim line-art=\(lineArt)", input, "-o", directory.file("out-\(lineArt).png"), "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let json = JSONValue.parse(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
            let box = try #require(Self.box(json), "\(result.standardOutput)")
            boxes.append(box)
            // The size reported is the size written, which is the box's.
            let written = try Image.load(path: directory.file("out-\(lineArt).png")).size
            #expect(written == box.size)
            #expect(json?["outputSize"]?.arrayValue?.compactMap(\.numberValue) == [Double(written.width), Double(written.height)])
        }
        let (smoothed, every) = (boxes[0], boxes[1])
        let inner = Self.content
        // Ringing darkens the white up to 18 levels (never lighter: it clips at 255), and the
        // median keeps what stays more than 10 below white across most of a 3×3 window: the
        // pixels next to the edge, within the 16-pixel chroma block. libvips' find_trim keeps
        // the same: 326x207+33+35 on this layout made with `imagepipe run`, as this does.
        for (outer, side) in [(inner.x - smoothed.x, "left"), (inner.y - smoothed.y, "top"),
                              (smoothed.x + smoothed.width - inner.x - inner.width, "right"),
                              (smoothed.y + smoothed.height - inner.y - inner.height, "bottom")] {
            #expect((0...6).contains(outer), "\(side): \(outer) px of border kept (\(smoothed))")
        }
        #expect(every.width * every.height > smoothed.width * smoothed.height, "line-art keeps more: \(every) vs \(smoothed)")
        #expect(every.x <= smoothed.x && every.y <= smoothed.y)
    }

    /// A streamed run surveys the picture for the box first, then crops it strip by strip: the
    /// same file and the same box as the whole picture at once (`--trace` takes the whole run).
    @Test func aStreamedTrimIsTheWholeRunsByteForByte() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(try Self.borderedJPEG(), to: "bordered.jpg")
        for pipeline in ["trim", "trim line-art=true | sharpen", "blur 1 | trim threshold=30 | resize 50%", "trim | normalize", "grayscale | trim"] {
            let explain = try CommandRunner.run(["explain", "-e", pipeline, "bordered.jpg", "-o", "out.png"], in: directory.path)
            #expect(explain.standardOutput.contains("streamed: 32 rows at a time") && explain.standardOutput.contains("read ") && explain.standardOutput.contains("surveying stage"),
                    "\(pipeline): \(explain.standardOutput)")
            let streamed = try CommandRunner.run(["run", "-e", pipeline, "bordered.jpg", "-o", "streamed.png", "--json"], in: directory.path)
            let whole = try CommandRunner.run(["run", "-e", pipeline, "bordered.jpg", "-o", "whole.png", "--json"],
                                              in: directory.path, environment: CommandRunner.wholePictures)
            #expect(streamed.status == 0 && whole.status == 0, "\(pipeline): \(streamed.standardError)\(whole.standardError)")
            let a = try Data(contentsOf: URL(fileURLWithPath: directory.file("streamed.png")))
            #expect(a == (try Data(contentsOf: URL(fileURLWithPath: directory.file("whole.png")))) && !a.isEmpty, "\(pipeline)")
            let box = { (text: String) in Self.box(JSONValue.parse(text.trimmingCharacters(in: .whitespacesAndNewlines))) }
            #expect(box(streamed.standardOutput) != nil && box(streamed.standardOutput) == box(whole.standardOutput),
                    "\(pipeline): \(streamed.standardOutput) \(whole.standardOutput)")
        }
    }

    /// In a branch's last group, whose stages go on in the streamed run's own chain, the box
    /// is noted under that group, as the run of whole pictures notes it.
    @Test func aStreamedTrimInABranchNotesItsBoxUnderItsGroup() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(try Self.borderedJPEG(), to: "bordered.jpg")
        let pipeline = "branch { resize 50% | save small.png } { grayscale | trim | save trimmed.png }"
        let explain = try CommandRunner.run(["explain", "-e", pipeline, "bordered.jpg"], in: directory.path)
        #expect(explain.standardOutput.contains("streamed: 32 rows at a time") && explain.standardOutput.contains("surveying stage"),
                "\(explain.standardOutput)")
        var boxes: [JSONValue] = []
        for environment in [[:], CommandRunner.wholePictures] {
            let result = try CommandRunner.run(["run", "-e", pipeline, "bordered.jpg", "--json"], in: directory.path, environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            let note = try #require(JSONValue.parse(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))?["notes"]?.arrayValue?.first,
                                    "\(result.standardOutput)")
            #expect(note["group"]?.stringValue == "{2}" && note["stage"]?.numberValue == 2 && note["stageName"]?.stringValue == "trim", "\(note)")
            boxes.append(try #require(note["value"]))
        }
        #expect(boxes[0] == boxes[1])
    }

    /// The scanner finds the whole picture's box from strips of any height.
    @Test func theBoxIsTheSameFromStripsOfAnyHeight() throws {
        let picture = try Image.decode(try Self.borderedJPEG())
        for smoothing in [true, false] {
            let whole = try picture.contentBounds(background: .white, threshold: 10, smoothing: smoothing)
            #expect(whole != nil && whole != Rect(x: 0, y: 0, width: picture.width, height: picture.height))
            for strip in [1, 2, 7, 32, 289] {
                var scanner = ContentBoxScanner(background: .white, threshold: 10, smoothing: smoothing)
                for top in stride(from: 0, to: picture.height, by: strip) {
                    let rows = try picture.cropped(to: Rect(x: 0, y: top, width: picture.width, height: min(strip, picture.height - top)))
                    try scanner.look(at: rows, at: StripPosition(top: top, pictureSize: picture.size))
                }
                #expect(scanner.isFinished && scanner.box == whole, "strips of \(strip), smoothing \(smoothing)")
            }
        }
    }

    @Test func aBatchLineSaysTheSizeWritten() throws {
        let directory = try TemporaryDirectory()
        let jpeg = try Self.borderedJPEG()
        _ = try directory.write(jpeg, to: "a.jpg")
        _ = try directory.write(jpeg, to: "b.jpg")
        let result = try CommandRunner.run(["run", "-e", "trim", "a.jpg", "b.jpg", "--out-dir", "out", "--format", "png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let written = try Image.load(path: directory.file("out/a.png")).size
        #expect(written.width < 400 && written.height < 290)
        #expect(result.standardError.contains("a.jpg → out/a.png (400x290 → \(written))"), "\(result.standardError)")
    }

    @Test func theLibrarySaysTheSizeWrittenToo() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(try Self.borderedJPEG(), to: "bordered.jpg")
        let pipeline = try PipelineCompiler(registry: StandardPlugins.registry).compile("trim | save \"\(directory.file("out.png"))\"")
        let result = try pipeline.run(in: RunContext(input: input))
        #expect(result.plan.outputSize == Size(400, 290), "the plan gives the upper bound")
        #expect(result.outputSize == (try Image.load(path: directory.file("out.png"))).size)
        #expect(result.outputSize.width < 400)
    }
}

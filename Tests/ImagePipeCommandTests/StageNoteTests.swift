import Foundation
import Testing
import ImagePipe
import TestSupport

/// What stages decide from the pixels (a smart crop's window) is reported: in `run --json` per
/// file and by `explain --pixels`, in the full picture's pixels even after a reduced decode.
@Suite struct StageNoteTests {
    /// A flat picture with a busy object near its right edge, where a smart crop must go.
    private func picture(scale: Int = 1, as format: ImageFormat = .png) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let object = Rect(x: 230 * scale, y: 35 * scale, width: 40 * scale, height: 30 * scale)
        let name = format == .png ? "object.png" : "object.jpg"
        _ = try directory.write(Synthetic.objectOnFlat(301 * scale, 100 * scale, object: object).encoded(as: format), to: name)
        return (directory, name)
    }

    private func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test(arguments: ["resize 100x100 fit=cover position=attention", "resize 100x100 fit=cover position=entropy",
                      "circle-crop position=attention", "slice 100x100 offset=entropy"])
    func runJSONSaysWhereTheWindowWent(stage: String) throws {
        let (directory, name) = try picture()
        let result = try CommandRunner.run(["run", "-e", stage, name, "-o", "out.png", "--json", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let file = try #require(try lines(result.standardOutput).first)
        let notes = try #require(file["notes"] as? [[String: Any]])
        #expect(notes.count == 1, "\(notes)")
        let note = try #require(notes.first)
        #expect(note["stage"] as? Int == 1 && note["stageName"] as? String == String(stage.split(separator: " ")[0]))
        #expect(note["name"] as? String == "window")
        let window = try #require(note["value"] as? [String: Any])
        let x = try #require(window["x"] as? Double), y = try #require(window["y"] as? Double)
        #expect(window["width"] as? Double == 100 && window["height"] as? Double == 100 && y == 0)
        // Over the object (x 230…270), not at the picture's centre (100) or its left.
        #expect(x >= 170 && x <= 201, "window at \(x)")
        #expect(note["text"] as? String == "100x100+\(Int(x))+0 (\(stage.split(separator: "=").last!))")
    }

    /// A stage in a branch's group is reported with its group's name and its place there: in a
    /// group the run makes apart (the first), in the last, whose stages go on in the streamed
    /// run's own chain, and in a group of a group.
    @Test(arguments: [
        ("branch { resize 100x100 fit=cover position=attention | save a.png } { save b.png }", "{1}"),
        ("branch { save b.png } { resize 100x100 fit=cover position=attention | save a.png }", "{2}"),
        ("branch { save b.png } { grayscale | branch { save c.png } { resize 100x100 fit=cover position=attention | save a.png } }", "{2} {2}"),
    ])
    func runJSONSaysWhichGroupDecided(pipeline: String, group: String) throws {
        for format in [ImageFormat.png, .jpeg] {
            let (directory, name) = try picture(scale: format == .jpeg ? 4 : 1, as: format)
            let result = try CommandRunner.run(["run", "-e", pipeline, name, "--json", "-q"], in: directory.path)
            #expect(result.status == 0, "\(result.standardError)")
            let notes = try #require(try lines(result.standardOutput).first?["notes"] as? [[String: Any]])
            #expect(notes.count == 1, "\(notes)")
            let note = try #require(notes.first)
            #expect(note["group"] as? String == group && note["stage"] as? Int == 1, "\(note)")
            #expect(note["stageName"] as? String == "resize" && note["name"] as? String == "window", "\(note)")
            let window = try #require(note["value"] as? [String: Any])
            let scale = format == .jpeg ? 4.0 : 1.0
            let x = try #require(window["x"] as? Double)
            #expect(window["width"] as? Double == 100 * scale && x >= 170 * scale && x <= 201 * scale, "\(format): \(window)")

            // explain --pixels shows the same on the stage's row, and writes nothing.
            let before = try directory.contents()
            let explain = try CommandRunner.run(["explain", "-e", pipeline, name, "--pixels"], in: directory.path)
            #expect(explain.status == 0, "\(explain.standardError)")
            let row = try #require(explain.standardOutput.split(separator: "\n").first { $0.contains("resize 100x100") }, "\(explain.standardOutput)")
            #expect(row.hasSuffix("; decided window \(note["text"] as? String ?? "?")"), "\(explain.standardOutput)")
            #expect(try directory.contents() == before)
        }
    }

    @Test func aStageThatDecidesNothingHasNoNotes() throws {
        let (directory, name) = try picture()
        let result = try CommandRunner.run(["run", "-e", "resize 100x100 fit=cover", name, "-o", "out.png", "--json", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try lines(result.standardOutput).first?["notes"] as? [Any] != nil)
        #expect((try lines(result.standardOutput).first?["notes"] as? [Any])?.isEmpty == true)
    }

    @Test func explainWithPixelsShowsTheChosenWindowAndWritesNothing() throws {
        let (directory, name) = try picture()
        let pipeline = "resize 100x100 fit=cover position=attention | tee t.png | save"
        let run = try CommandRunner.run(["run", "-e", pipeline, name, "-o", "run.png", "--json", "-q"], in: directory.path)
        let chosen = try #require((try lines(run.standardOutput).first?["notes"] as? [[String: Any]])?.first?["text"] as? String)
        try FileManager.default.removeItem(atPath: directory.file("run.png"))
        try FileManager.default.removeItem(atPath: directory.file("t.png"))

        let plain = try CommandRunner.run(["explain", "-e", pipeline, name, "-o", "out.png"], in: directory.path)
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.standardOutput.contains("chosen after decoding (attention)") && !plain.standardOutput.contains("decided"))

        let decoded = try CommandRunner.run(["explain", "-e", pipeline, name, "-o", "out.png", "--pixels"], in: directory.path)
        #expect(decoded.status == 0, "\(decoded.standardError)")
        let row = try #require(decoded.standardOutput.split(separator: "\n").first { $0.hasPrefix("1  resize") })
        #expect(row.hasSuffix("; decided window \(chosen)"), "\(decoded.standardOutput)")
        let json = try CommandRunner.run(["explain", "-e", pipeline, name, "-o", "out.png", "--pixels", "--json"], in: directory.path)
        let plan = try #require(JSONSerialization.jsonObject(with: Data(json.outputBytes)) as? [String: Any])
        let stages = try #require(plan["stages"] as? [[String: Any]])
        #expect((stages[1]["decided"] as? [[String: Any]])?.first?["text"] as? String == chosen)
        #expect((stages[2]["decided"] as? [Any])?.isEmpty == true)
        #expect(try directory.contents() == [name], "explain --pixels writes nothing, not even the tee")
    }

    /// After shrink-on-load the window is found in the reduced decode; the note maps it back.
    @Test func theWindowIsInTheFullPicturesPixelsAfterAReducedDecode() throws {
        let (directory, name) = try picture(scale: 4, as: .jpeg)
        let stage = "resize 100x100 fit=cover position=attention"
        let explain = try CommandRunner.run(["explain", "-e", stage, name, "-o", "out.png"], in: directory.path)
        #expect(explain.standardOutput.contains("shrink-on-load"), "\(explain.standardOutput)")
        let result = try CommandRunner.run(["run", "-e", stage, name, "-o", "out.png", "--json", "-q"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        let window = try #require((try lines(result.standardOutput).first?["notes"] as? [[String: Any]])?.first?["value"] as? [String: Any])
        #expect(window["width"] as? Double == 400 && window["height"] as? Double == 400, "\(window)")
        let x = try #require(window["x"] as? Double)
        #expect(x >= 680 && x <= 804, "window at \(x) of 1204")
    }
}

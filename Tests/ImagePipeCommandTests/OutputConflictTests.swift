import Foundation
import ImagePipe
import Testing
import TestSupport

/// `-o FILE` beside a pipeline that names its own output (`save FILE`, or a last `tee FILE`,
/// which ends the pipeline as its save) is an error naming both, where `-o` was dropped
/// without a word.
@Suite struct OutputConflictTests {
    @Test(arguments: [("save a.png", "save a.png"), ("grayscale | tee a.webp", "tee a.webp")])
    func dashOWithAnOutputInTheTextIsRefused(pipeline: String, named: String) throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", pipeline, "in.png", "-o", "b.png"], in: directory.path)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("the run's output 'b.png' and the pipeline's own '\(named)'"), "\(result.standardError)")
        #expect(try directory.contents() == ["in.png"], "nothing written")
    }

    /// Two outputs of one run are compared by the file they name, not by their spelling: a tee
    /// and a save of one file, spelt relative, with `./`, through `..`, or absolute, are refused
    /// before anything is written (the tee's picture was lost, with exit 0).
    @Test func oneFileSpeltTwoWaysIsWrittenTwice() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in.png")
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: true)
        for (tee, save) in [("./same.png", "same.png"), (directory.file("same.png"), "same.png"), ("sub/../same.png", "./same.png")] {
            let result = try CommandRunner.run(["run", "-e", "tee \(tee) | grayscale | save \(save)", "in.png"], in: directory.path)
            #expect(result.status == 2, "\(tee) and \(save): \(result.standardError)")
            #expect(result.standardError.contains("is written twice by one run"), "\(result.standardError)")
            #expect(!FileManager.default.fileExists(atPath: directory.file("same.png")))
        }
    }
}

/// A picture's outputs are all there or none is: when it fails after a `tee` wrote (its save
/// cannot be written, its time is up), the tee's file is taken back.
@Suite struct AllOrNothingOutputTests {
    @Test func aTeeIsTakenBackWhenTheSaveFails() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(40, 30).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", "tee a.jpg | grayscale | save missing/b.png", "in.png"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(try directory.contents() == ["in.png"], "the tee's a.jpg is gone with the failed save")
        // The same pipeline that succeeds keeps both.
        let fine = try CommandRunner.run(["run", "-e", "tee a.jpg | grayscale | save b.png", "in.png"], in: directory.path)
        #expect(fine.status == 0, "\(fine.standardError)")
        #expect(try directory.contents() == ["a.jpg", "b.png", "in.png"])
    }

    @Test func aTeeIsTakenBackWhenThePictureTimesOut() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(2500, 2500).encoded(as: .jpeg), to: "slow.jpg")
        let result = try CommandRunner.run(["run", "-e", "tee early.jpg quality=50 | \(InputLimitTests.slowWork) | save late.png",
                                            "slow.jpg", "--timeout", "1.5"], in: directory.path)
        #expect(result.status == 1 && result.standardError.contains("timed out"), "\(result.standardError)")
        #expect(try directory.contents() == ["slow.jpg"], "nothing of the picture is left, the tee's file neither")
    }
}

import Foundation
import Testing
import ImagePipe
@testable import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// `--max-memory`: pictures reserve their estimated cost before they start, so `--jobs` never
/// runs more than fits together, and a picture that can never fit fails alone.
@Suite struct MemoryBudgetTests {
    /// A flat picture: a few KB as PNG, its full size once decoded.
    private func flat(_ width: Int, _ height: Int) throws -> [UInt8] {
        try Image.filled(Color(red: 40, green: 90, blue: 200, alpha: 200), size: Size(width, height), hasAlpha: true).encoded(as: .png)
    }

    /// A smart crop the picture's size, run on whole pictures (`IMAGEPIPE_WHOLE_PICTURES`), so
    /// that a run costs whole pictures, as `cost` counts (streamed, it would cost rows and the
    /// gathered picture).
    private let pipeline = "crop 9999x9999 position=attention"
    private let whole = CommandRunner.wholePictures

    private func cost(_ width: Int, _ height: Int) throws -> Int {
        try StandardPlugins.compiler.compile(pipeline).plan(sourceSize: Size(width, height)).estimatedPeakBytes()
    }

    @Test func picturesThatFitOneAtATimeRunOneAfterTheOther() throws {
        let directory = try TemporaryDirectory()
        for name in ["a", "b"] { _ = try directory.write(try flat(2400, 2400), to: "\(name).png") }
        // Room for one of them, not for both.
        let one = try cost(2400, 2400)
        let budget = one * 3 / 2
        let result = try PeakMemory.run(["run", "-e", pipeline, "a.png", "b.png", "--out-dir", "out", "--jobs", "2",
                                         "--max-memory", "\(budget)"], in: directory.path, environment: whole)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted() == ["a.png", "b.png"])
        #expect(result.standardError.contains(": waits for memory: needs about \(MemoryBudget.describe(one))"), "\(result.standardError)")
        // Both at once would hold two decoded pictures and two cropped ones: 4 × 23 MB.
        #expect(result.peakBytes < budget, "peak \(result.peakBytes) bytes, budget \(budget)")
        // Without the budget both run at once, and nobody waits.
        let free = try PeakMemory.run(["run", "-e", pipeline, "a.png", "b.png", "--out-dir", "free", "--jobs", "2", "--max-memory", "0"],
                                      in: directory.path, environment: whole)
        #expect(free.status == 0 && !free.standardError.contains("waits for memory"), "\(free.standardError)")
    }

    @Test func aPictureThatCanNeverFitFailsAloneAndTheBatchGoesOn() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(try flat(600, 600), to: "small1.png")
        _ = try directory.write(try flat(5000, 4000), to: "huge.png")
        _ = try directory.write(try flat(600, 600), to: "small2.png")
        let budget = try cost(2000, 2000)
        let result = try CommandRunner.run(["run", "-e", pipeline, "small1.png", "huge.png", "small2.png", "--out-dir", "out", "--jobs", "2",
                                            "--max-memory", "\(budget)", "-q"], in: directory.path, environment: whole)
        #expect(result.status == 1)
        let needed = MemoryBudget.describe(try cost(5000, 4000))
        #expect(result.standardError == "imagepipe: huge.png: too large: a 5000x4000 picture making 5000x4000 needs about \(needed) of memory, more than the memory limit of \(MemoryBudget.describe(budget)); raise it with --max-memory\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted() == ["small1.png", "small2.png"])
        let bad = try CommandRunner.run(["run", "-e", pipeline, "small1.png", "-o", "x.png", "--max-memory", "plenty"], in: directory.path, environment: whole)
        #expect(bad.status == 2 && bad.standardError.contains("--max-memory needs a number of bytes"))
    }

    @Test func theEstimateCountsEveryPictureHeldAtOnce() throws {
        let plan = try StandardPlugins.compiler.compile("fit 1000x1000").plan(sourceSize: Size(4000, 2000))
        // decoded 4000x2000, the fit's input and 1000x500 output, two encoder copies of the output
        let pixels = 4000 * 2000 + (4000 * 2000 + 1000 * 500) + 2 * 1000 * 500
        #expect(plan.estimatedPeakBytes() == 4 * pixels + Plan.workingBytes)
        #expect(plan.estimatedPeakBytes(inputBytes: 1000) == 4 * pixels + Plan.workingBytes + 1000)
    }
}

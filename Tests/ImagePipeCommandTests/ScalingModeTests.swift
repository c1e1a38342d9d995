import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// The three scaling modes on a real photo, against a Double-precision Lanczos3 reduction of the
/// full-size decode: `best` is that reduction up to rounding (58.9 dB is the ceiling of 8-bit output), `good` loses a little to the DCT
/// reduction, `fast` (the DCT's box and gdk-pixbuf's bilinear) clearly more.
@Suite struct ScalingModeTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples/images/boats.jpg").path

    @Test func modesAgainstTheFloatReference() throws {
        let pipeline = try StandardPlugins.compiler.compile("fit 320x320")
        let full = try Image.load(path: Self.photo)
        let reference = FloatReference.resample(full, region: Region(x: 0, y: 0, width: Double(full.width), height: Double(full.height)),
                                                to: Size(320, 200))
        var psnr: [ScalingMode: Double] = [:]
        for mode in ScalingMode.allCases {
            var context = RunContext(input: Self.photo)
            context.loadOptions.scaling = mode
            let plan = try pipeline.plan(in: context)
            #expect(plan.scaling == mode)
            #expect(plan.shrinksOnLoad == (mode != .best), "\(mode)")
            let directory = try TemporaryDirectory()
            context.output = directory.file("out.png")
            try pipeline.run(in: context)
            psnr[mode] = FloatReference.psnr(try Image.load(path: directory.file("out.png")), against: reference)
        }
        #expect(psnr[.best]! > 58, "best: \(psnr[.best]!) dB")
        #expect(psnr[.good]! > 45, "good: \(psnr[.good]!) dB")
        #expect(psnr[.good]! > psnr[.fast]! + 3, "good \(psnr[.good]!) dB against fast \(psnr[.fast]!) dB")
    }

    /// `load scaling=` wins over the run's option, and `explain` says which mode a run uses.
    @Test func loadParameterOverridesTheRunOption() throws {
        var context = RunContext(input: Self.photo)
        context.loadOptions.scaling = .fast
        let plan = try StandardPlugins.compiler.compile("load scaling=best | fit 320x320").plan(in: context)
        #expect(plan.scaling == .best && !plan.shrinksOnLoad)
        let explained = try CommandRunner.run(["explain", "--scaling", "fast", "-e", "fit 320x320", Self.photo, "-o", "x.png"])
        #expect(explained.standardOutput.contains("decoded at 1/4 as 320x200"), "\(explained.standardOutput)")
        #expect(explained.standardOutput.contains("scaling fast"), "\(explained.standardOutput)")
        let refused = try CommandRunner.run(["run", "--scaling", "fastest", "-e", "fit 10x10", Self.photo, "-o", "x.png"])
        #expect(refused.status == 2 && refused.standardError.contains("unknown scaling 'fastest': use one of fast, good, best"), "\(refused.standardError)")
    }
}

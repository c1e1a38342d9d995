import Foundation
import Testing
import ImagePipe
@testable import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// `--max-memory` counts what stages hold beside the picture (a caption's drawing, overlays),
/// and a source's ICC profile is capped: small files that would take hundreds of megabytes are
/// refused or bounded before the work.
@Suite struct MemoryAccountingTests {
    private let hugeCaption = "text \"Hello, world\" font=\"DejaVu Sans 2000\""

    private func tiny(in directory: TemporaryDirectory, _ name: String = "tiny.png") throws -> String {
        try directory.write(try Image.filled(Color(red: 40, green: 90, blue: 200), size: Size(10, 10)).encoded(as: .png), to: name)
    }

    @Test func aHugeCaptionOnATinyPictureIsRefusedBeforeItIsDrawn() throws {
        let directory = try TemporaryDirectory()
        _ = try tiny(in: directory)
        let result = try PeakMemory.run(["run", "-e", hugeCaption, "tiny.png", "-o", "out.png", "--max-memory", "100M"], in: directory.path)
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("tiny.png: too large: a 10x10 picture making 10x10 needs about ")
                && result.standardError.contains(" of it for text, more than the memory limit of 100M; raise it with --max-memory"), "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.png")))
        // Drawn, the caption took 973 MB; refused from its layout, a run stays near its baseline.
        #expect(result.peakBytes < 150 << 20, "peak \(result.peakBytes) bytes")
        // The same caption within the budget is drawn.
        let drawn = try CommandRunner.run(["run", "-e", hugeCaption, "tiny.png", "-o", "drawn.png", "--max-memory", "1G"], in: directory.path)
        #expect(drawn.status == 0, "\(drawn.standardError)")
    }

    /// Each PNG a streamed run writes beside its own (a branch's groups) counts its encoder's
    /// buffers: a hundred of them held 2.6 MiB each, past an estimate that counted none
    /// (684 MiB against 426M; now 703M against 697 MiB, `/usr/bin/time`).
    @Test func everyPNGWrittenBesideCountsItsEncoder() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(300, 200).encoded(as: .jpeg), to: "in.jpg")
        func estimate(groups: Int) throws -> Int {
            let text = "branch " + (1...groups).map { "{ save g\($0).png }" }.joined(separator: " ")
            let pipeline = try StandardPlugins.compiler.compile(text)
            let context = RunContext(input: input, outputDirectory: directory.path)
            return try #require(pipeline.estimatedStreamedPeakBytes(in: context, prepared: pipeline.prepare(in: context)))
        }
        let (one, many) = (try estimate(groups: 1), try estimate(groups: 21))
        #expect(many - one >= 20 * (3 << 19), "20 more PNGs beside add \(many - one) bytes")
    }

    @Test func explainMeasuresAHugeCaptionWithoutDrawingIt() throws {
        let directory = try TemporaryDirectory()
        _ = try tiny(in: directory)
        let result = try PeakMemory.run(["explain", "-e", hugeCaption, "tiny.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        // Drawing it to find its size took 505 MB.
        #expect(result.peakBytes < 120 << 20, "peak \(result.peakBytes) bytes")
        let text = try CommandRunner.run(["explain", "-e", hugeCaption, "tiny.png"], in: directory.path).standardOutput
        #expect(text.contains("DejaVu Sans 2000 px") && text.contains("beside the picture"), "\(text)")
        // Past the pixel limit, explain refuses it as the run would.
        let limited = try CommandRunner.run(["explain", "-e", hugeCaption, "tiny.png", "--max-pixels", "1000000"], in: directory.path)
        #expect(limited.status != 0 && limited.standardError.contains("more than the limit of 1000000"), "\(limited.standardError)")
    }

    /// Three overlays of `side`×`side`, flat RGBA (a few KB as PNG, 4·side² bytes decoded).
    private func overlays(_ side: Int, in directory: TemporaryDirectory) throws -> [String] {
        try ["o1.png", "o2.png", "o3.png"].map { name in
            try directory.write(Image.filled(Color(red: 250, green: 250, blue: 250, alpha: 100), size: Size(side, side)).encoded(as: .png), to: name)
        }
    }

    @Test func largeOverlaysAreCountedAgainstTheBudget() throws {
        let directory = try TemporaryDirectory()
        let paths = try overlays(3000, in: directory)
        for name in ["a.png", "b.png"] { _ = try tiny(in: directory, name) }
        let text = paths.map { "composite \($0)" }.joined(separator: " | ")
        let pipeline = try StandardPlugins.compiler.compile(text)
        // The run streams: its three stages, each holding its overlay, are at work at once.
        let context = RunContext(input: directory.file("a.png"), output: directory.file("out.png"))
        let prepared = try pipeline.prepare(in: context)
        #expect(pipeline.streams(in: context, prepared: prepared))
        let cost = pipeline.estimatedPeakBytes(in: context, prepared: prepared)
        // Each overlay decoded is 36 MB, beside a 10x10 picture.
        #expect(cost > Plan.workingBytes + 3 * 4 * 3000 * 3000)
        let refused = try CommandRunner.run(["run", "-e", text, "a.png", "-o", "out.png", "--max-memory", "\(cost - 1)"], in: directory.path)
        #expect(refused.status == 1 && refused.standardError.contains("needs about \(MemoryBudget.describe(cost)) of memory")
                && refused.standardError.contains("of it for composite"), "\(refused.standardError)")
        // Room for one picture's overlays at a time: the second waits. Two jobs on two cores or
        // fewer keep them busy, and a picture that fits then takes the ordinary run, holding one
        // overlay at a time: it reserves that run's cost.
        var batch = context
        batch.streamAboveBytes = RunContext.streamAboveBytes(picturesAtOnce: 2)
        let batchCost = pipeline.estimatedPeakBytes(in: batch, prepared: prepared)
        let waited = try CommandRunner.run(["run", "-e", text, "a.png", "b.png", "--out-dir", "out", "--jobs", "2",
                                            "--max-memory", "\(batchCost * 3 / 2)"], in: directory.path)
        #expect(waited.status == 0 && waited.standardError.contains(": waits for memory: needs about \(MemoryBudget.describe(batchCost))"),
                "\(waited.standardError)")
    }

    /// A 10x10 PNG whose iCCP chunk holds a profile of `bytes` bytes (a valid header, then zeros:
    /// a few KB compressed).
    private func pngWithProfile(of bytes: Int, in directory: TemporaryDirectory) throws -> String {
        let plain = try tiny(in: directory, "plain.png")
        let target = directory.file("profiled.png")
        let craft = """
            import struct, sys, zlib
            size, source, target = int(sys.argv[1]), sys.argv[2], sys.argv[3]
            header = struct.pack(">I4sI4s4s4s12s4s", size, b"lcms", 0x02100000, b"mntr", b"RGB ", b"XYZ ", bytes(12), b"acsp")
            profile = header + bytes(size - len(header))
            body = b"big\\0\\0" + zlib.compress(profile, 9)
            chunk = struct.pack(">I", len(body)) + b"iCCP" + body + struct.pack(">I", zlib.crc32(b"iCCP" + body))
            data = open(source, "rb").read()
            open(target, "wb").write(data[:33] + chunk + data[33:])
            """
        let result = try CommandRunner.runProgram("/usr/bin/python3", ["-c", craft, "\(bytes)", plain, target])
        #expect(result.status == 0, "\(result.standardError)")
        return target
    }

    @Test(.disabled(if: CommandRunner.binary.contains("/.build/tsan/"), "ThreadSanitizer's shadow memory inflates the peaks"))
    func aProfileOverTheCapIsDroppedWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let path = try pngWithProfile(of: 35 << 20, in: directory)
        let result = try PeakMemory.run(["run", "-e", "flip", path, "-o", "out.png"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("profiled.png: its ICC profile is larger than 4 MiB, the largest read (real ones are under 1 MB); ignored: the pixels are taken as sRGB"),
                "\(result.standardError)")
        // Inflated whole and opened, it took 230 MB; capped, no buffer past 4 MiB is made.
        #expect(result.peakBytes < 100 << 20, "peak \(result.peakBytes) bytes")
        let out = try Image.load(path: directory.file("out.png"), options: LoadOptions(color: .keep))
        #expect(out.metadata.sourceProfile == nil && out.metadata.iccProfile == nil)
        // Under the cap the same crafted profile is read, and refused as before: it has no tables
        // to convert with.
        let small = try pngWithProfile(of: 1 << 20, in: directory)
        let read = try CommandRunner.run(["run", "-e", "flip", small, "-o", "small.png"], in: directory.path)
        #expect(read.status == 1 && read.standardError.contains("its ICC profile cannot be used") && !read.standardError.contains("larger than"),
                "\(read.standardError)")
        #expect(throws: ImageError.self) { try ICCProfile(bytes: [UInt8](repeating: 0, count: ICCProfile.maxBytes + 1)) }
    }
}

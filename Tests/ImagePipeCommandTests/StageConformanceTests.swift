import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import TestSupport

/// Every stage of the registry, the stock ones and the sample plugin's, held to its class by
/// `StageConformance`: a stage is checked the moment it is registered, with no list of the
/// stages that stream to keep.
@Suite(.timeLimit(.minutes(10))) struct StageConformanceTests {
    /// Each stock stage's example, and forms of the stages whose example leaves a class or a
    /// path of theirs unchecked (a reduced resample, a warp, a survey that crops).
    static let texts: [String] = StandardPlugins.registry.stageNames.map { StandardPlugins.registry.entry(named: $0)!.schema.example }
        + ["composite logo.png gravity=center opacity=0.5", "composite logo.png blend=dest-in", "composite logo.png blend=dest-out gravity=south", "extend top=3 left=2 color=#ff000080",
           "extend top=3 right=40 bottom=50 left=2 mode=mirror", "extend top=45 right=3 bottom=4 mode=repeat", "extend top=2 bottom=70 left=1 mode=copy",
           "letterbox 40x40 color=#00000080",
           "resize 50%", "resize 13x9", "fit 13x9", "crop 2,1,5x3", "rotate 90", "rotate angle=30", "rotate angle=-17 canvas=expand",
           "blur 3", "sharpen", "median 5", "trim", "normalize"]

    /// The overlay the examples name (`logo.png`), made once in a folder kept for the process.
    static let folder = try? TemporaryDirectory()
    static let overlay: String? = {
        guard let directory = folder,
              let logo = try? Synthetic.image(9, 5, alpha: true, { x, y in Color(red: UInt8(x * 28), green: 200, blue: UInt8(y * 60), alpha: UInt8(60 + x * 20)) }),
              let bytes = try? logo.encoded(as: .png) else { return nil }
        return try? directory.write(bytes, to: "logo.png")
    }()

    @Test(arguments: texts)
    func everyStockStageKeepsItsClassesPromises(text: String) throws {
        let pipeline = try StandardPlugins.compiler.compile(text.replacingOccurrences(of: "logo.png", with: try #require(Self.overlay)))
        for stage in pipeline.transforms {
            #expect(StageConformance().findings(for: stage) == [], "\(text)")
        }
    }

    @Test(.enabled(if: PluginLoadingTests.samplePluginBuilt, "needs Samples/CustomStage built: run make samples"))
    func theSamplePluginsStagesKeepTheirClassesPromises() throws {
        var registry = StandardPlugins.registry
        try registry.loadPlugin(at: PluginLoadingTests.samplePlugin)
        let stock = Set(StandardPlugins.registry.stageNames)
        let names = registry.stageNames.filter { !stock.contains($0) }
        #expect(names.count >= 5, "\(names)")
        for name in names {
            let example = registry.entry(named: name)!.schema.example
            for stage in try PipelineCompiler(registry: registry).compile(example).transforms {
                #expect(StageConformance().findings(for: stage) == [], "\(example), through the plugin table")
            }
        }
    }

    /// The kit finds each broken promise, naming what broke.
    @Test(arguments: [
        (BrokenStage.Lie.growsAsAPoint, "must keep the picture's size"),
        (.blindToItsPlace, "differ from the whole picture's"),
        (.windowMovesBack, "must not move back"),
        (.sizeUntold, "outputSize(for:) says"),
    ])
    func theKitFindsEachBrokenPromise(lie: BrokenStage.Lie, expected: String) {
        let findings = StageConformance().findings(for: BrokenStage(lie: lie))
        #expect(findings.contains { $0.contains(expected) }, "\(findings)")
    }
}

/// A stage that breaks one promise of its class.
struct BrokenStage: Transform, DeclaredStage {
    enum Lie: Sendable, Equatable { case growsAsAPoint, blindToItsPlace, windowMovesBack, sizeUntold }
    static let declaration = StageDeclaration("test-broken", summary: "A stage that breaks a promise (test stage)", start: BrokenStage(lie: .sizeUntold), [])
    var lie: Lie

    var stageClass: StageClass { lie == .windowMovesBack ? .resample : .point }
    func outputSize(for input: Size) -> Size { lie == .sizeUntold ? Size(input.width + 1, input.height) : input }

    /// Darkens by the row's place in the picture; `blindToItsPlace` forgets a strip's place.
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let strip = try input.pixels.cropped(to: Rect(x: 0, y: rows.lowerBound - input.top, width: input.pixels.width, height: rows.count))
        let top = lie == .blindToItsPlace ? 0 : rows.lowerBound
        let made = try Image.make(size: strip.size, hasAlpha: strip.hasAlpha) { writer in
            for y in 0..<strip.height {
                let row = writer.row(y)
                for (i, byte) in strip.row(y).enumerated() { row[i] = byte / 2 &+ UInt8(truncatingIfNeeded: top + y) }
            }
        }
        // Only the whole picture grows: strips keep their size, as the run checks them.
        let whole = rows == 0..<input.picture.decodedSize.height
        return lie == .growsAsAPoint && whole ? try made.extended(top: 0, right: 0, bottom: 1, left: 0, mode: .color) : made
    }

    func inputRows(forOutput rows: Range<Int>, of input: DecodeReduction) throws -> Range<Int> {
        // Every other strip reaches back to the top: the next one's window starts below it again.
        (rows.lowerBound / max(1, rows.count)) % 2 == 1 ? 0..<rows.upperBound : rows
    }
}

import Testing
import ImagePipe
import Tone
import TestSupport

/// The tone stages that say they work row by row (point stages, so the run may stream them)
/// keep that promise: on strips of a picture they give the rows they give on the whole.
@Suite struct RowLocalToneTests {
    static let rowLocal = ["grayscale", "modulate", "gamma", "linear", "negate", "tint", "threshold"]

    @Test(arguments: [
        "grayscale", "grayscale linear=false", "modulate brightness=1.2 saturation=0.5 hue=40deg lightness=3", "gamma 2.2",
        "linear 1.3 -20", "negate", "tint red", "threshold 90", "threshold 90 grayscale=false",
    ])
    func onStripsAsOnTheWhole(text: String) throws {
        let pipeline = try PipelineCompiler(registry: Registry(plugins: [Registry.core, TonePlugin.plugin])).compile(text)
        let stage = try #require(pipeline.transforms.first)
        #expect(stage.stageClass == .point)
        let picture = try Synthetic.image(37, 70) { x, y in
            Color(red: UInt8((x * 13 + y) % 256), green: UInt8((x * y * 3) % 256), blue: UInt8((255 - y * 3) % 256))
        }
        let whole = try stage.apply(to: picture)
        for rows in [0..<32, 32..<64, 64..<70] {
            let strip = try stage.apply(to: picture.cropped(to: Rect(x: 0, y: rows.lowerBound, width: 37, height: rows.count)))
            #expect(strip.size == Size(37, rows.count) && !strip.hasAlpha)
            for y in rows {
                #expect(Array(strip.row(y - rows.lowerBound).prefix(37 * 3)) == Array(whole.row(y).prefix(37 * 3)), "\(text), row \(y)")
            }
        }
    }

    @Test func exactlyThePointStagesSaySo() throws {
        let saying = TonePlugin.plugin.stages.filter { definition in
            guard let stage = try? PipelineCompiler(registry: Registry(plugins: [Registry.core, TonePlugin.plugin]))
                .compile(definition.schema.example).transforms.first else { return false }
            return stage.stageClass == .point
        }.map(\.schema.name)
        // normalize reads the whole picture's histogram first.
        #expect(saying == Self.rowLocal)
    }
}

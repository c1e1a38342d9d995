import Foundation
import Testing
import ImagePipe
import Compose
import TestSupport

/// `composite` and `text` are point stages that know where their strip lies: streamed, each strip
/// gets the overlay's rows that fall on it, and the file is the ordinary run's byte for byte.
@Suite struct ComposeStreamingTests {
    /// The file `pipeline` writes, streamed or the ordinary way (`RunContext.wholePictures`).
    private func output(of pipeline: Pipeline, input: String, streamed: Bool, in directory: TemporaryDirectory) throws -> [UInt8] {
        let path = directory.file(streamed ? "streamed.png" : "ordinary.png")
        var context = RunContext(input: input, output: path)
        context.wholePictures = !streamed
        #expect(pipeline.streams(in: context, prepared: try pipeline.prepare(in: context)) == streamed)
        try pipeline.run(in: context)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func overlaysAcrossTheStripsSeamsStreamToTheOrdinaryBytes() throws {
        let directory = try TemporaryDirectory()
        // 203 rows: strips of 32 and a short last one; the overlay spans several seams.
        let input = try directory.write(Synthetic.gradient(120, 203).encoded(as: .tiff), to: "in.tif")
        let overlay = try directory.write(Synthetic.image(30, 45, alpha: true) { x, y in
            Color(red: UInt8(x * 8), green: 40, blue: UInt8(y * 5), alpha: (x + y) % 3 == 0 ? 255 : 100)
        }.encoded(as: .png), to: "overlay.png")
        let stages: [[any Transform]] = [
            [CompositeStage(overlay: overlay, gravity: .center)],
            [CompositeStage(overlay: overlay, gravity: .topLeft, offset: Point(x: 7, y: 19), opacity: 0.6, blend: .multiply, tile: true)],
            [TextStage("Seams", font: "Sans 40", color: Color(red: 250, green: 30, blue: 30), gravity: .left)],
            [CompositeStage(overlay: overlay, gravity: .bottom), TextStage("x", gravity: .top)],
        ]
        for transforms in stages {
            let pipeline = Pipeline(transforms: transforms, sink: Save())
            let streamed = try output(of: pipeline, input: input, streamed: true, in: directory)
            #expect(streamed == (try output(of: pipeline, input: input, streamed: false, in: directory)), "\(transforms)")
        }
        // The overlay is really there, at its place (centered: from 45,79), in the last strips: an
        // opaque pixel of it shows as it is.
        let placed = try output(of: Pipeline(transforms: [CompositeStage(overlay: overlay, gravity: .center)], sink: Save()), input: input,
                                streamed: true, in: directory)
        #expect(try Image.decode(placed).pixel(x: 45 + 28, y: 79 + 44) == Color(red: 224, green: 40, blue: 220))
    }

    /// The masking blends give the picture alpha, and say so before any pixel: point stages
    /// whose rows are RGBA from there on.
    @Test func maskingBlendsArePointStagesThatGiveAlpha() {
        #expect(CompositeStage(overlay: "a.png", blend: .destIn).stageClass == .point)
        #expect(CompositeStage(overlay: "a.png", blend: .destOut).outputHasAlpha(inputHasAlpha: false))
        #expect(!CompositeStage(overlay: "a.png").outputHasAlpha(inputHasAlpha: false))
        #expect(CompositeStage(overlay: "a.png").stageClass == .point)
        #expect(TextStage("a").stageClass == .point)
    }
}

import Foundation
import Testing
import ImagePipe
import Tone
import TestSupport

/// A picture the last stage made gray is written as a one-component JPEG (as libvips and
/// ImageMagick write gray pictures), streamed or not; everything else keeps three components.
@Suite struct GrayJPEGTests {
    let compiler = PipelineCompiler(registry: Registry(plugins: [Registry.core, TonePlugin.plugin]))

    /// The frame header's components of what `text` writes from `input`, and the decoded output.
    func written(_ text: String, from input: String, in directory: TemporaryDirectory) throws -> (components: Int, image: Image) {
        let output = directory.file("out.jpg")
        try? FileManager.default.removeItem(atPath: output) // so that a run writing elsewhere is not judged by the last one's file
        try compiler.compile(text).run(in: RunContext(input: input, output: output))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
        return (try #require(JPEGFrame(bytes)).sampling.count, try Image.decode(bytes))
    }

    static let colors = try! Synthetic.image(48, 40) { x, y in Color(red: UInt8(x * 5), green: UInt8(200 - y * 4), blue: UInt8((x * y) % 256)) }

    @Test(arguments: ["jpg", "png"]) // a JPEG input streams, a PNG one takes the ordinary run
    func grayStagesWriteOneComponentOthersThree(input format: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Self.colors.encoded(as: format == "jpg" ? .jpeg : .png), to: "in." + format)
        let gray = try written("grayscale", from: input, in: directory)
        #expect(gray.components == 1)
        // The pixels are the grayscale of the input, as three equal channels once decoded.
        let expected = try compiler.compile("grayscale").applyTransforms(to: Image.load(path: input))
        for (x, y) in [(0, 0), (20, 10), (47, 39)] {
            let p = gray.image.pixel(x: x, y: y)
            // Within what JPEG at the default quality 80 moves a pixel of this picture.
            #expect(p.red == p.green && p.green == p.blue && Synthetic.close(p, expected.pixel(x: x, y: y), tolerance: 8), "\(x),\(y)")
        }
        #expect(try written("threshold 100", from: input, in: directory).components == 1)
        #expect(try written("threshold 100 grayscale=false", from: input, in: directory).components == 3)
        #expect(try written("grayscale | tint red", from: input, in: directory).components == 3)
        #expect(try written("grayscale | gamma 2", from: input, in: directory).components == 3, "only the last stage says")
        // tee passes the picture on as it was: its copy and what comes after it stay gray.
        let copy = directory.file("copy.jpg")
        #expect(try written("grayscale | tee \(copy) | save", from: input, in: directory).components == 1)
        #expect(JPEGFrame(Array(try Data(contentsOf: URL(fileURLWithPath: copy))))?.sampling.count == 1)
        // An embedded RGB profile cannot describe a gray JPEG: three components then.
        #expect(try written("grayscale | save profile=srgb", from: input, in: directory).components == 3)
    }

    @Test func grayWithAlphaIsGrayOnlyOnAGrayBackground() throws {
        let directory = try TemporaryDirectory()
        let translucent = try Synthetic.image(16, 16, alpha: true) { x, _ in Color(red: 200, green: 30, blue: 90, alpha: UInt8(x * 16)) }
        let input = try directory.write(translucent.encoded(as: .png), to: "in.png")
        #expect(try written("grayscale | save background=white", from: input, in: directory).components == 1)
        let onRed = try written("grayscale | save background=red", from: input, in: directory)
        #expect(onRed.components == 3)
        let clear = onRed.image.pixel(x: 0, y: 8) // alpha 0: the background alone
        #expect(clear.red > 200 && clear.green < 40, "\(clear)")
    }
}

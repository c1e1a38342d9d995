import Testing
@testable import ImagePipeCommand
import ImagePipe
import ImagePipeStages
import TestSupport

/// ImageMagick's geometry and arguments: taken where they have one meaning here (and written
/// back in the language's own form), else answered with the exact replacement.
@Suite struct ImageMagickHabitTests {
    private let compiler = StandardPlugins.compiler

    private func refusal(_ text: String) -> String? {
        do {
            _ = try compiler.compile(text)
            return nil
        } catch {
            return error.diagnostics.first?.message
        }
    }

    @Test(arguments: [
        ("crop 400x300+10+20", "crop 10,20,400x300"),
        ("crop 50%x50%+0+0", "crop 0,0,50%x50%"),
        ("resize 640x480>", "resize 640x480 fit=inside upscale=false"),
        ("resize 640x480<", "resize 640x480 fit=inside downscale=false"),
        ("resize 640x480!", "resize 640x480 fit=fill"),
        ("resize 640x480^", "resize 640x480 fit=outside"),
        ("resize 640x>", "resize 640x fit=inside upscale=false"),
        ("modulate 110,140", "modulate brightness=1.1 saturation=1.4"),
        ("modulate 100,100,200", "modulate hue=180deg"),
        ("sharpen 0x1+1.5", "sharpen amount=1.5"),
        ("sharpen 0x2+1.5+0.02", "sharpen sigma=2 amount=1.5 threshold=5.1"),
        ("sharpen 0x0.5", "sharpen sigma=0.5"),
        ("text hi gravity=NorthWest", "text hi gravity=top-left"),
        ("text hi gravity=south-east", "text hi"),
        ("text hi gravity=center", "text hi gravity=center"),
    ])
    func takenAndWrittenTheLanguagesWay(written: String, canonical: String) throws {
        #expect(try compiler.compile(written).transforms.map(\.text) == [canonical])
    }

    @Test(arguments: [
        ("crop 400x300-10+20", "crop: invalid rect '400x300-10+20': ImageMagick's 400x300-10+20 reaches outside the picture (a negative offset); the rectangle must lie inside it: X,Y,WxH with X and Y from 0"),
        ("resize 640x480> fit=cover", "resize: '640x480>' means fit=inside, but fit is given as cover"),
        ("sharpen 3x1+2", "sharpen: ImageMagick's radius 3 has no parameter here (the blur reaches as far as its sigma needs, as ImageMagick's radius 0 does): write sharpen sigma=1 amount=2"),
    ])
    func answeredWithTheExactReplacement(written: String, message: String) {
        #expect(refusal(written) == message)
    }

    @Test func aSingleModulateNumberIsAmbiguous() {
        #expect(refusal("modulate 90") == "modulate: 90 is ambiguous: ImageMagick's -modulate 90 (percent) is brightness=0.9 here, a factor of 90 is brightness=90")
    }

    @Test func shrinkOnlyAndEnlargeOnlyResizes() throws {
        let shrink = try compiler.compile("resize 640x480>").transforms[0]
        #expect(try shrink.outputSize(for: Size(320, 200)) == Size(320, 200))
        #expect(try shrink.outputSize(for: Size(1280, 720)) == Size(640, 360))
        let enlarge = try compiler.compile("resize 640x480<").transforms[0]
        #expect(try enlarge.outputSize(for: Size(320, 200)) == Size(640, 400))
        #expect(try enlarge.outputSize(for: Size(1280, 720)) == Size(1280, 720))
        #expect(try enlarge.outputSize(for: Size(800, 200)) == Size(800, 200), "only a picture smaller on both sides grows")
    }

    @Test func imageMagicksCropCutsTheSamePixels() throws {
        let image = try Synthetic.gradient(60, 40)
        let geometry = try compiler.compile("crop 20x10+30+5").applyTransforms(to: image)
        let corner = try compiler.compile("crop 30,5,20x10").applyTransforms(to: image)
        #expect(geometry.size == Size(20, 10))
        #expect(geometry.pixel(x: 0, y: 0) == image.pixel(x: 30, y: 5))
        #expect(geometry.pixel(x: 19, y: 9) == corner.pixel(x: 19, y: 9))
    }

    @Test func convertWritesTheOutputsFormat() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Synthetic.gradient(16, 12).encoded(as: .png), to: "in.png")
        let output = directory.file("out.webp")
        #expect(try ConvertCommand(run: RunCommand(registry: StandardPlugins.registry)).main([input, output, "-q"]) == 0)
        #expect(try ImageInfo.read(path: output).format == .webp)
        #expect(throws: UsageError("convert takes an input and an output: imagepipe convert in.jpg out.png (got 1 names)")) {
            try ConvertCommand(run: RunCommand(registry: StandardPlugins.registry)).main([input])
        }
    }

    @Test func urlTakesTheExpressionAsRunDoes() throws {
        let command = URLCommand(registry: StandardPlugins.registry)
        #expect(try command.main(["--unsigned", "-e", "resize 300x", "a.jpg"]) == 0)
        #expect(throws: UsageError("url takes a pipeline and a source: imagepipe url -e 'resize 300x' photos/a.jpg: with -e, the source alone follows --key … --salt …")) {
            try command.main(["--unsigned", "-e", "resize 300x", "resize 300x", "a.jpg"])
        }
    }
}

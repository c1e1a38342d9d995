import CircleCrop
import FitZoom
import Foundation
import ImagePipe
import ImagePipeStages

// usage: embed-demo PHOTO OUTPUT_DIR
let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: embed-demo PHOTO OUTPUT_DIR\n".utf8))
    exit(2)
}
let (photo, outputDirectory) = (arguments[1], arguments[2])
try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)

do {
    // 1. Pipeline text, compiled against every stock stage, run on files.
    let fromText = try StandardPlugins.compiler.compile("fit 640x640 | circle-mask ring=true")
    let run = try fromText.run(in: RunContext(input: photo, output: outputDirectory + "/masked.png"))
    print("text pipeline: \(run.plan.sourceSize) → \(run.plan.outputSize), wrote \(run.outputs.joined(separator: ", "))")

    // 2. A pipeline built in Swift with the result builder, applied to a picture in memory.
    let avatar = try Pipeline {
        FitStage(1280, 720)
        try CircleCropStage(size: 256)
    }
    let image = try Image.load(path: photo)
    let round = try avatar.apply(to: image)
    print("built pipeline: \(image.size) → \(round.size), alpha \(round.hasAlpha)")

    // 3. Bytes in, bytes out: decode from memory, encode to PNG in memory.
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
    let png = try avatar.apply(to: Image.decode(bytes)).encoded(as: .png)
    try Data(png).write(to: URL(fileURLWithPath: outputDirectory + "/avatar.png"))
    print("bytes: \(bytes.count) in, \(png.count) PNG bytes out")

    // 4. The avatar editor's model: a user's zoom and drag in a 375x667 editor, bounced back
    //    so the circle stays covered, then cut out as the "OK" button does.
    let editor = CropViewport(viewport: Size(375, 667), gap: 20, imageSize: image.size)
    let state = editor.clamp(zoom: 2 * editor.minimumZoom, offset: Point(-500, 40))
    let (center, radius) = editor.circleInImage(state)
    print("editor: offset -500,40 bounced back to \(state.offset); circle center \(center), radius \(radius)")
    let chosen = try CircleCropStage(size: 128, viewport: editor.viewport, gap: editor.gap,
                                     zoom: state.zoom / editor.minimumZoom, offset: state.offset).apply(to: image)
    try Data(try chosen.encoded(as: .png)).write(to: URL(fileURLWithPath: outputDirectory + "/editor-avatar.png"))
    print("wrote \(outputDirectory)/avatar.png and \(outputDirectory)/editor-avatar.png")

    // 5. A batch, as `imagepipe run … --out-dir` runs it: the photo and a name that is no
    //    picture, two at a time; the bad one fails alone and the other is written.
    let missing = outputDirectory + "/no-such-photo.jpg"
    var batch = Batch(pipeline: fromText, inputs: [photo, missing], output: "{stem}-batch.png", outputDirectory: outputDirectory)
    batch.jobs = 2
    batch.progress = { event in
        if case let .finished(outcome) = event, let error = outcome.error { print("batch: failed: \(error)") }
    }
    let result = try batch.run()
    print("batch: \(result.written) written, \(result.failed) failed: \(result.outcomes.flatMap(\.outputs).joined(separator: ", "))")
} catch {
    FileHandle.standardError.write(Data("embed-demo: \(error)\n".utf8))
    exit(1)
}

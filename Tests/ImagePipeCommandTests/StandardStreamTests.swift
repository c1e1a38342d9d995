import Testing
@testable import ImagePipeCommand
import ImagePipe
import ImagePipeStages
import TestSupport

/// Standard input and output as the rest of the command reads and writes files, and a picture
/// given where the pipeline goes answered with the command that converts it.
@Suite struct StandardStreamTests {
    @Test func infoReadsStandardInput() throws {
        let png = try Synthetic.gradient(12, 10).encoded(as: .png)
        let result = try CommandRunner.run(["info", "-", "--json"], input: png)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix(#"{"file":"-","format":"png","width":12,"height":10,"#), "\(result.standardOutput)")
        let twice = try CommandRunner.run(["info", "-", "-"], input: png)
        #expect(twice.status == 2)
        #expect(twice.standardError == "imagepipe: standard input (-) can be read only once\n")
    }

    @Test func standardOutputTakesTheInputsFormat() throws {
        let directory = try TemporaryDirectory()
        let jpeg = try directory.write(Synthetic.gradient(8, 8).encoded(as: .jpeg), to: "photo.jpg")
        let save = Save()
        #expect(try save.target(in: RunContext(input: jpeg, output: "-")).format == .jpeg)
        // By its bytes, not its name.
        let gif = try directory.write(Synthetic.gradient(8, 8).encoded(as: .gif), to: "named.png")
        #expect(try save.target(in: RunContext(input: gif, output: "-")).format == .gif)
        #expect(try save.target(in: RunContext(input: "-", inputBytes: Synthetic.gradient(4, 4).encoded(as: .webp), output: "-")).format == .webp)
        #expect(try save.target(in: RunContext(input: jpeg, output: "-", outputFormat: .png)).format == .png)
        #expect(throws: StageError("writing to standard output needs a format, and the input's cannot be told; name one: save format=… or the run's output format",
                                   remedy: .nameOutputFormat)) {
            try save.target(in: RunContext(input: "-", inputBytes: Array("not a picture".utf8), output: "-"))
        }
        let heic = directory.file("photo.heic")
        try HEICWriter.write(Synthetic.gradient(8, 8), to: heic)
        #expect(throws: StageError("writing to standard output in the input's format, HEIF, which cannot be written here; name one: save format=… or the run's output format (\(ImageFormat.writableList))",
                                   remedy: .nameOutputFormat)) {
            try save.target(in: RunContext(input: heic, output: "-"))
        }
    }

    @Test func aPictureWhereThePipelineGoesGetsTheConvertingCommand() throws {
        let directory = try TemporaryDirectory()
        let gif = try directory.write(Synthetic.gradient(8, 8).encoded(as: .gif), to: "photo.gif")
        var parser = OptionParser(options: RunCommand.options)
        try parser.parse([gif, "-o", "x.webp", "--format", "webp"])
        #expect(throws: UsageError("'\(gif)' is a GIF picture, not a pipeline: to convert it, run imagepipe run -e save \(gif) -o x.webp --format webp")) {
            try PipelineArguments(parser, command: "run")
        }
        // The command it gives works.
        let result = try CommandRunner.run(["run", "-e", "save", gif, "-o", "x.webp"], in: directory.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try ImageInfo.read(path: directory.file("x.webp")).format == .webp)
    }
}

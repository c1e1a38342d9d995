import Foundation
import ImagePipe
import Testing
import TestSupport

/// `-o FILE` beside a pipeline that names its own output (`save FILE`, or a last `tee FILE`,
/// which ends the pipeline as its save) is an error naming both, where `-o` was dropped
/// without a word.
@Suite struct OutputConflictTests {
    @Test(arguments: [("save a.png", "save a.png"), ("grayscale | tee a.webp", "tee a.webp")])
    func dashOWithAnOutputInTheTextIsRefused(pipeline: String, named: String) throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(Synthetic.gradient(8, 8).encoded(as: .png), to: "in.png")
        let result = try CommandRunner.run(["run", "-e", pipeline, "in.png", "-o", "b.png"], in: directory.path)
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("-o 'b.png' and the pipeline's own '\(named)'"), "\(result.standardError)")
        #expect(try directory.contents() == ["in.png"], "nothing written")
    }
}

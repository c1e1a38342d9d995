import Foundation
import Testing
import PipelineFuzzing

/// Every input the fuzzer ever found a crash with (Tests/Fuzz/regressions), and the seed corpus
/// (the sample pipelines), pass the fuzz check.
@Suite struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var inputs: [String] {
        let regressions = root.appendingPathComponent("Tests/Fuzz/regressions").path
        let samples = root.appendingPathComponent("Samples").path
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: regressions)) ?? []).map { regressions + "/" + $0 }
        return found + ((try? FileManager.default.contentsOfDirectory(atPath: samples)) ?? []).filter { $0.hasSuffix(".pipe") }.map { samples + "/" + $0 }
    }

    @Test(arguments: inputs)
    func inputPassesTheFuzzCheck(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.withUnsafeBufferPointer { LanguageFuzzCheck.check($0) }
    }
}

import Foundation
import Testing
import PipelineFuzzing

/// Every input in Tests/Fuzz/regressions (the fuzzer's crashes once fixed, and hand-written
/// edge cases: unterminated quotes, huge numbers, empty stages, NUL and bad UTF-8) and the seed
/// corpus (the sample pipelines) pass the fuzz check.
@Suite struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let regressions = root.appendingPathComponent("Tests/Fuzz/regressions").path
    static let samples = root.appendingPathComponent("Samples").path

    /// The files to check; a folder that cannot be read gives none, which `bothSetsAreThere`
    /// reports instead of the suite passing on nothing.
    static var inputs: [String] {
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: regressions)) ?? []).sorted().map { regressions + "/" + $0 }
        return found + pipelines()
    }

    static func pipelines() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: samples)) ?? []).filter { $0.hasSuffix(".pipe") }.sorted().map { samples + "/" + $0 }
    }

    @Test func bothSetsAreThere() throws {
        let found = try FileManager.default.contentsOfDirectory(atPath: Self.regressions)
        #expect(!found.isEmpty, "no regression inputs in \(Self.regressions)")
        #expect(!Self.pipelines().isEmpty, "no sample pipelines (*.pipe) in \(Self.samples)")
    }

    @Test(arguments: inputs)
    func inputPassesTheFuzzCheck(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes.withUnsafeBufferPointer { LanguageFuzzCheck.check($0) }
    }
}

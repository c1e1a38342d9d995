import Foundation
import Testing
import ImagePipe
import PipelineFuzzing

/// The schema fuzzer's seeds and every description it found a failure with
/// (Tests/Fuzz/schema-regressions: every kind, names a pipeline cannot hold, synonyms, a clash,
/// `schemaVersion` 1e300, a default of nan, counts and ranges at and past their limits) pass its
/// check: `Registry.loadPlugin` refuses or registers, and never traps.
@Suite struct SchemaFuzzRegressionTests {
    static let regressions = FuzzRegressionTests.root.appendingPathComponent("Tests/Fuzz/schema-regressions").path

    static var inputs: [String] { FuzzRegressionTests.files(in: regressions) }

    @Test func theSeedsAreThere() {
        #expect(Self.inputs.count >= 10, "too few schema seeds in \(Self.regressions)")
    }

    @Test(arguments: inputs)
    func inputPassesTheSchemaCheck(path: String) throws {
        try FuzzRegressionTests.check(path, with: SchemaFuzzCheck.check)
    }

    /// The seed with every kind loads: the fuzzer starts from a description the host accepts.
    @Test func theSeedOfEveryKindLoads() throws {
        let text = try String(contentsOfFile: Self.regressions + "/every-kind-loads.json", encoding: .utf8)
        #expect(SchemaFuzzCheck.refusal(of: text) == nil)
        #expect(SchemaFuzzCheck.refusal(of: #"{"schemaVersion":1e300,"name":"fuzz","stages":[]}"#) == "plugin /fuzz/libschema.so: its description has schemaVersion 1e+300; this imagepipe reads version 1")
    }
}

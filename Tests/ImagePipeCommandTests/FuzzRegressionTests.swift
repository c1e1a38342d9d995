import Foundation
import Testing
import ImagePipe
import ImagePipeCommand
import ImagePipeStages
import PipelineFuzzing

/// Every input in Tests/Fuzz/regressions (the fuzzer's crashes once fixed, and hand-written
/// edge cases: unterminated quotes, huge numbers, empty stages, NUL and bad UTF-8) and the seed
/// corpus (the sample pipelines) pass the fuzz check.
@Suite struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let regressions = root.appendingPathComponent("Tests/Fuzz/regressions").path
    static let samples = root.appendingPathComponent("Samples").path

    /// The files of a folder under Tests/Fuzz, by path, sorted; none when it cannot be read
    /// (each suite's count test reports that, rather than passing on nothing).
    static func files(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted().map { folder + "/" + $0 }
    }

    /// Runs a fuzz target's check on a file's bytes.
    static func check(_ path: String, with check: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))).withUnsafeBufferPointer(check)
    }

    /// The files to check; a folder that cannot be read gives none, which `bothSetsAreThere`
    /// reports instead of the suite passing on nothing.
    static var inputs: [String] {
        files(in: regressions) + pipelines()
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
        try FuzzRegressionTests.check(path, with: LanguageFuzzCheck.check)
    }
}

/// The lossless JPEG fuzzer's seeds and every JPEG it found a failure with
/// (Tests/Fuzz/lossless-regressions: baseline, progressive, 4:2:0, 4:2:2, 4:1:1, 4:4:4, gray and
/// restart markers, sides on and off the iMCU grid) pass its check, and the seeds it is given
/// are JPEGs that turn losslessly.
@Suite struct LosslessFuzzRegressionTests {
    static let regressions = FuzzRegressionTests.root.appendingPathComponent("Tests/Fuzz/lossless-regressions").path

    static var inputs: [String] { FuzzRegressionTests.files(in: regressions) }

    @Test func theSeedsAreThere() {
        #expect(Self.inputs.count >= 8, "too few lossless seeds in \(Self.regressions)")
    }

    @Test(arguments: inputs)
    func inputPassesTheLosslessCheck(path: String) throws {
        try FuzzRegressionTests.check(path, with: LosslessFuzzCheck.check)
    }

    /// A seed turns a quarter, losslessly or as not exact, never failing: the fuzzer starts from
    /// JPEGs libjpeg reads whole.
    @Test(arguments: inputs.filter { $0.hasSuffix(".jpg") })
    func aSeedTurns(path: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let outcome = try JPEGCoefficientMove.move(bytes, turn: .rotate90, crop: nil, maxPixels: nil, deadline: nil, path: path)
        if case let .failed(reason) = outcome { Issue.record("\(path): \(reason)") }
    }
}

/// The HTTP fuzzer's seeds and every input it found a failure with (Tests/Fuzz/http-regressions:
/// request heads with Accept weights, Range, If-None-Match, imgproxy's forms, escapes and dot
/// segments) pass its check.
@Suite struct HTTPFuzzRegressionTests {
    static let regressions = FuzzRegressionTests.root.appendingPathComponent("Tests/Fuzz/http-regressions").path

    static var inputs: [String] { FuzzRegressionTests.files(in: regressions) }

    @Test func theSeedsAreThere() {
        #expect(Self.inputs.count >= 10, "too few HTTP seeds in \(Self.regressions)")
    }

    @Test(arguments: inputs)
    func inputPassesTheHTTPCheck(path: String) throws {
        try FuzzRegressionTests.check(path, with: HTTPFuzzCheck.check)
    }

    /// The seeds reach the server's handler as libsoup's server hands them on, Range passed over.
    @Test func aSeedReachesTheServer() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.regressions + "/ranges.http")))
        let head = try #require(ImagePipeCommand.servedRequestHead(bytes))
        #expect(head.path == "/_/-/a.gif" && head.askedForRanges && !head.rangesLeft)
        let decision = ImagePipeCommand.servedDecision(path: head.path, accept: "image/webp;q=0, image/*", ifNoneMatch: nil, key: nil, salt: [],
                                                       compiler: StandardPlugins.compiler, etag: "\"e\"")
        #expect(decision.status == 200 && decision.mediaType == "image/gif" && decision.negotiated)
    }
}

import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// Damaged copies of a good file for the streamed run's tests, and how the two runs' endings on
/// them are compared.
enum DamagedInput {
    /// `whole` damaged for round `round`: every `cutEvery`th round cut short at a random place,
    /// the others with 1 to `flipsUpTo` random bytes changed; the first `keep` bytes stay whole.
    static func bytes(_ whole: [UInt8], round: Int, cutEvery: Int, flipsUpTo: Int, keep: Int,
                      using generator: inout SeededGenerator) -> [UInt8] {
        guard round % cutEvery != 0 else { return Array(whole.prefix(Int.random(in: keep..<whole.count, using: &generator))) }
        var bytes = whole
        for _ in 0..<(1 + round % flipsUpTo) {
            bytes[Int.random(in: keep..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
        }
        return bytes
    }

    /// Expects the streamed run to end as the ordinary one did: the same file, or the same
    /// error; says whether both failed.
    static func expectSameEnding(streamed: Result<[UInt8], any Error>, ordinary: Result<[UInt8], any Error>, _ label: String) -> Bool {
        switch (streamed, ordinary) {
        case let (.success(a), .success(b)):
            #expect(a == b, "\(label): different files")
            return false
        case let (.failure(a), .failure(b)):
            #expect("\(a)" == "\(b)", "\(label)")
            return true
        default:
            Issue.record("\(label): streamed \(streamed), ordinary \(ordinary)")
            return false
        }
    }

    /// Expects `pipeline` to stream `input`, fail with an error holding each of `words`, and
    /// leave no `output`.
    static func expectStreamedFailure(of pipeline: Pipeline, input: String, output: String, mentioning words: [String]) throws {
        let context = RunContext(input: input, output: output)
        #expect(pipeline.streams(in: context, prepared: try pipeline.prepare(in: context)))
        let error = try #require(throws: (any Error).self) { try pipeline.run(in: context) }
        #expect(words.allSatisfy { "\(error)".contains($0) }, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}

import Foundation
import Testing
import TestSupport

/// ImagePipe as an embedder uses it: a package that depends on a tagged version
/// (`.package(url: …, from: "0.1.0")`), which SwiftPM refuses for a package whose targets carry
/// unsafe flags. The clone holds what is committed; the consumer builds from nothing and runs.
/// The consumer also compiles the code of the DocC articles (Sources/ImagePipe/ImagePipe.docc),
/// each in a target with the products the article says it needs, so the articles cannot drift
/// from the API.
@Suite struct VersionDependencyTests {
    /// The target each article's code is compiled in, and what that target depends on.
    static let articles: [(article: String, target: String, dependencies: String)] = [
        ("Embedding", "EmbedArticle", #".product(name: "ImagePipe", package: "imagepipe"), .product(name: "ImagePipeStages", package: "imagepipe"), "#
            + #".product(name: "FitZoom", package: "imagepipe"), .product(name: "CircleCrop", package: "imagepipe")"#),
        ("WritingAStage", "Posterize", #".product(name: "ImagePipeCore", package: "imagepipe")"#),
        ("WritingAPlugin", "PosterizePlugin", #""Posterize", .product(name: "ImagePipePluginKit", package: "imagepipe")"#),
    ]

    /// The Swift code blocks of an article, in order.
    static func code(ofArticle name: String, in repository: String) throws -> String {
        let text = try String(contentsOfFile: "\(repository)/Sources/ImagePipe/ImagePipe.docc/\(name).md", encoding: .utf8)
        var blocks: [String] = [], current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```swift" { current = [] } else if line == "```", let lines = current {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else { current?.append(line) }
        }
        return blocks.joined(separator: "\n\n")
    }

    @Test func aTaggedVersionBuildsAsADependency() throws {
        let directory = try TemporaryDirectory()
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let clone = directory.file("imagepipe")
        for arguments in [["clone", "--quiet", "--no-hardlinks", repository, clone], ["-C", clone, "tag", "0.1.0"]] {
            let git = try CommandRunner.runProgram("/usr/bin/git", arguments)
            #expect(git.status == 0, "git \(arguments): \(git.standardError)")
        }
        try FileManager.default.createDirectory(atPath: directory.file("consumer/Sources/consumer"), withIntermediateDirectories: true)
        _ = try directory.write("""
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "consumer",
                dependencies: [.package(url: "file://\(clone)", from: "0.1.0")],
                targets: [.executableTarget(name: "consumer", dependencies: [.product(name: "ImagePipe", package: "imagepipe")])]
                    + [\(Self.articles.map { #".target(name: "\#($0.target)", dependencies: [\#($0.dependencies)])"# }.joined(separator: ", "))]
            )
            """, to: "consumer/Package.swift")
        for (article, target, _) in Self.articles {
            let code = try Self.code(ofArticle: article, in: repository)
            #expect(code.contains("import "), "\(article) has code")
            try FileManager.default.createDirectory(atPath: directory.file("consumer/Sources/\(target)"), withIntermediateDirectories: true)
            _ = try directory.write(code, to: "consumer/Sources/\(target)/\(article).swift")
        }
        _ = try directory.write("""
            import ImagePipe

            let picture = try Image.filled(Color(red: 10, green: 20, blue: 30), size: Size(64, 48))
            let small = try Pipeline().applyTransforms(to: picture)
            print("\\(small.size)")
            """, to: "consumer/Sources/consumer/main.swift")
        let swift = try #require(Self.swift, "no swift on PATH")
        let build = try CommandRunner.runProgram(swift, ["build", "--package-path", directory.file("consumer")])
        #expect(build.status == 0, "\(build.standardError)\n\(build.standardOutput.suffix(3000))")
        #expect(!build.standardError.contains("unsafe build flags"), "\(build.standardError)")
        let run = try CommandRunner.runProgram(directory.file("consumer/.build/debug/consumer"), [])
        #expect(run.status == 0 && run.standardOutput == "64x48\n", "\(run.standardOutput) \(run.standardError)")
    }

    /// The toolchain's `swift`, found on PATH as `make test` found it.
    static let swift: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

import Foundation
import Testing
import ImagePipe
import TestSupport

/// A photo library for the engine tests: the bundled photos made small (160 px), each copied
/// `copies` times into `library/a` and `library/b`, listed in `library/photos.txt`; and the
/// avatar each photo gives, made by one plain run, to compare every shard's output with.
struct ClusterLibrary {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let pipeline = repository + "/Samples/avatar.pipe"
    static let photos = ["leaf", "cups", "boats"]

    let directory: TemporaryDirectory
    /// The list's names, in its order: `a/leaf-1.jpg`…
    let names: [String]
    /// Photo → the bytes of its avatar.
    let avatars: [String: [UInt8]]

    init(copies: Int) throws {
        directory = try TemporaryDirectory()
        for folder in ["library/a", "library/b", "reference"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        var avatars: [String: [UInt8]] = [:]
        for photo in Self.photos {
            let small = try CommandRunner.run(["run", "-e", "fit 160x160", Self.repository + "/Samples/images/\(photo).jpg", "-o", directory.file("\(photo).jpg")])
            try #require(small.status == 0, "\(small.standardError)")
            let avatar = try CommandRunner.run(["run", Self.pipeline, directory.file("\(photo).jpg"), "-o", directory.file("reference/\(photo).png")])
            try #require(avatar.status == 0, "\(avatar.standardError)")
            avatars[photo] = ManifestTests.bytes(directory.file("reference/\(photo).png"))
        }
        var names: [String] = []
        for copy in 1...copies {
            for photo in Self.photos {
                let name = (copy % 2 == 0 ? "a/" : "b/") + "\(photo)-\(copy).jpg"
                try FileManager.default.copyItem(atPath: directory.file("\(photo).jpg"), toPath: directory.file("library/" + name))
                names.append(name)
            }
        }
        _ = try directory.write(names.joined(separator: "\n") + "\n", to: "library/photos.txt")
        self.names = names
        self.avatars = avatars
    }

    /// The avatar `name` should have become: `a/leaf-3.jpg` → the leaf's.
    func expected(for name: String) -> [UInt8] {
        avatars[String(PathBytes.lastComponent(name).split(separator: "-")[0])]!
    }

    /// Checks what is in `out` (relative to the library's directory): each output whole and right,
    /// no temporary file left; with `complete`, every input's output there. Returns how many.
    @discardableResult
    func checkOutputs(in out: String, complete: Bool, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Int {
        let files = ManifestTests.files(under: directory.file(out), hidden: true)
        #expect(!files.contains { $0.contains(".imagepipe-") }, "a temporary file was left: \(files.filter { $0.contains(".imagepipe-") })", sourceLocation: sourceLocation)
        var found = 0
        for name in names {
            let output = directory.file(out + "/" + PathBytes.splitExtension(name).stem + ".png")
            guard FileManager.default.fileExists(atPath: output) else {
                if complete { Issue.record("missing output for \(name)", sourceLocation: sourceLocation) }
                continue
            }
            found += 1
            #expect(ManifestTests.bytes(output) == expected(for: name), "\(output) is not the whole avatar", sourceLocation: sourceLocation)
        }
        #expect(files.count == found, "only the outputs of the list, nothing else", sourceLocation: sourceLocation)
        return found
    }

    /// Lines of a ledger file.
    func ledger(_ path: String) -> [JSONValue] {
        ((try? String(contentsOfFile: directory.file(path), encoding: .utf8)) ?? "").split(separator: "\n").compactMap { JSONValue.parse(String($0)) }
    }
}

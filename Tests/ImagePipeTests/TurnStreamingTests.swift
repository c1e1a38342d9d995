import Foundation
import Testing
@testable import ImagePipe
@testable import ImagePipeCore
import TestSupport

/// `test-turn`: turns or mirrors the picture by a `Dihedral`, moving whole pixels; it says so
/// (`rearrangement`), which lets a streamed run read its input through a tile cache.
struct TestTurn: RearrangingStage, DeclaredStage {
    static let declaration = StageDeclaration("test-turn", summary: "Turn or mirror (test stage)", start: TestTurn(turn: .identity), [])
    var turn: Dihedral
    func outputSize(for input: Size) -> Size { turn.size(of: input) }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.turned(by: turn) }
    func rearrangement(for input: Size) -> PixelRearrangement? { .orient(turn) }
}

/// Stages that read rows out of order (quarter turns, mirrors) stream through a tile cache: the
/// rows below them are stored in tiles, in memory or in an unlinked temporary file, and each
/// strip of their output is read back as a band and turned.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TurnStreamingTests {
    static func picture(_ width: Int, _ height: Int) throws -> Image {
        try Synthetic.image(width, height) { x, y in Color(red: UInt8((x * 7 + y * 3) % 256), green: UInt8((x * y) % 251), blue: UInt8((y * 5 + x) % 256)) }
    }

    /// The cache gives back any rectangle of the rows stored, from memory or from its file; the
    /// file is unlinked as soon as it is made, so its folder stays empty.
    @Test(arguments: [Int.max, 0])
    func theCacheGivesBackEveryRectangle(threshold: Int) throws {
        let folder = try TemporaryDirectory()
        let source = try Self.picture(150, 131)
        let cache = try TileCache(size: source.size, threshold: threshold, folder: folder.path)
        #expect(cache.onDisc == (threshold == 0))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // In two pieces, the way a strip chain hands them over.
        try cache.append(source.pixels, count: 70, rowStride: source.rowStride)
        try cache.append(source.pixels + 70 * source.rowStride, count: 61, rowStride: source.rowStride)
        for rect in [Rect(x: 0, y: 0, width: 150, height: 131), Rect(x: 63, y: 1, width: 2, height: 130), Rect(x: 128, y: 64, width: 22, height: 67),
                     Rect(x: 5, y: 127, width: 140, height: 4)] {
            let read = try cache.picture(of: rect), expected = try source.cropped(to: rect)
            for y in 0..<rect.height { #expect(Array(read.row(y)) == Array(expected.row(y)), "\(rect) row \(y)") }
        }
    }

    /// Tiles are shaped by the picture: a picture one pixel wide (or high) is kept in about its
    /// own bytes, not in 64×64 tiles that are 64 times them, and gives its rows back.
    @Test func narrowPicturesGetNarrowTiles() throws {
        #expect(TileCache.tileShape(for: Size(1000, 800)) == Size(64, 64))
        #expect(TileCache.tileShape(for: Size(1, 5_000_000)) == Size(1, 4096))
        #expect(TileCache.tileShape(for: Size(5_000_000, 3)) == Size(1365, 3))
        #expect(TileCache.tileShape(for: Size(10, 20)) == Size(10, 20))
        for size in [Size(1, 5_000_000), Size(5_000_000, 1), Size(3, 1_000_000), Size(1, 178_956_970)] {
            let picture = size.pixelCount * 3, stored = try #require(TileCache.storedBytes(for: size))
            #expect(stored >= picture && stored <= picture + TileCache.tilePixels * 3 * 2, "\(size): \(stored) for \(picture)")
        }
        for threshold in [Int.max, 0] {
            let folder = try TemporaryDirectory()
            let source = try Self.picture(2, 9000)
            let cache = try TileCache(size: source.size, threshold: threshold, folder: folder.path)
            try cache.append(source.pixels, count: source.height, rowStride: source.rowStride)
            for rect in [Rect(x: 0, y: 0, width: 2, height: 9000), Rect(x: 1, y: 4000, width: 1, height: 300)] {
                let read = try cache.picture(of: rect), expected = try source.cropped(to: rect)
                for y in 0..<rect.height { #expect(Array(read.row(y)) == Array(expected.row(y)), "\(rect) row \(y)") }
            }
        }
    }

    /// Each of the seven turns and mirrors, after and before other stages: streamed (the rows
    /// through the cache, in memory and on disk), the ordinary run's bytes.
    @Test(arguments: Dihedral.all.dropFirst())
    func everyTurnStreamsToTheOrdinaryBytes(turn: Dihedral) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(Self.picture(150, 203).encoded(as: .tiff), to: "in.tif")
        let pipeline = Pipeline(transforms: [StripInvert(), TestTurn(turn: turn), StripBox(radius: 2)], sink: Save())
        let context = RunContext(input: input, output: directory.file("ordinary.png"))
        #expect(pipeline.streams(in: context, prepared: try pipeline.prepare(in: context)))
        try pipeline.run(in: context) { _ in }
        let ordinary = try Data(contentsOf: URL(fileURLWithPath: directory.file("ordinary.png")))
        for threshold in ["", "1"] {
            setenv("IMAGEPIPE_DISC_THRESHOLD", threshold, 1)
            defer { unsetenv("IMAGEPIPE_DISC_THRESHOLD") }
            let path = directory.file("streamed-\(threshold).png")
            let invert = StripInvert()
            let streamed = Pipeline(transforms: [invert, TestTurn(turn: turn), StripBox(radius: 2)], sink: Save())
            try streamed.run(in: RunContext(input: input, output: path))
            #expect(invert.heights.withLock { $0.count } == (203 + 31) / 32, "streamed in strips")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == ordinary, "\(turn), threshold '\(threshold)'")
        }
    }
}

import Testing
import ImagePipe
import Alpha
import TestSupport

/// Flattening, removing and adding alpha, probed on small pictures.
@Suite struct AlphaStageTests {
    private func stage<S: Stage>(_ type: S.Type, _ text: String) throws -> S { try StageText.parse(type, text) }

    private let picture: Image = try! Synthetic.image(3, 1, alpha: true) { x, _ in
        [Color(red: 255, green: 0, blue: 0, alpha: 255), Color(red: 255, green: 0, blue: 0, alpha: 128), Color(red: 9, green: 9, blue: 9, alpha: 0)][x]
    }

    @Test func flattenCompositesOverTheBackground() throws {
        let out = try stage(FlattenStage.self, "").apply(to: picture)
        #expect(!out.hasAlpha)
        #expect(out.pixel(x: 0, y: 0) == Color(red: 255, green: 0, blue: 0))
        #expect(out.pixel(x: 1, y: 0) == Color(red: 255, green: 127, blue: 127)) // 128/255 red over white
        #expect(out.pixel(x: 2, y: 0) == .white)
        let black = try stage(FlattenStage.self, "background=black").apply(to: picture)
        #expect(black.pixel(x: 1, y: 0) == Color(red: 128, green: 0, blue: 0) && black.pixel(x: 2, y: 0) == .black)
        // A translucent background leaves alpha: source-over.
        let glass = try stage(FlattenStage.self, "background=#0000ff80").apply(to: picture)
        #expect(glass.hasAlpha && glass.pixel(x: 2, y: 0) == Color(red: 0, green: 0, blue: 255, alpha: 128))
        let rgb = try Synthetic.gradient(4, 4)
        #expect(try stage(FlattenStage.self, "").apply(to: rgb) === rgb)
    }

    @Test func removeAlphaKeepsTheStoredColour() throws {
        let out = try stage(RemoveAlphaStage.self, "").apply(to: picture)
        #expect(!out.hasAlpha)
        #expect((0..<3).map { out.pixel(x: $0, y: 0) } == [Color(red: 255, green: 0, blue: 0), Color(red: 255, green: 0, blue: 0), Color(red: 9, green: 9, blue: 9)])
    }

    @Test func ensureAlphaAddsOneValueOnlyWhereMissing() throws {
        let rgb = try Synthetic.gradient(5, 2)
        let out = try stage(EnsureAlphaStage.self, "0.5").apply(to: rgb)
        #expect(out.hasAlpha)
        var expected = rgb.pixel(x: 3, y: 1)
        expected.alpha = 128
        #expect(out.pixel(x: 3, y: 1) == expected)
        #expect(try stage(EnsureAlphaStage.self, "").apply(to: rgb).pixel(x: 0, y: 0).alpha == 255)
        #expect(try stage(EnsureAlphaStage.self, "0.5").apply(to: picture) === picture)
        #expect(throws: ArgumentError.self) { try stage(EnsureAlphaStage.self, "1.5") }
    }

    @Test func canonicalText() throws {
        #expect(try StageText.roundTrips(FlattenStage.self, "background=white", canonical: "flatten"))
        #expect(try StageText.roundTrips(FlattenStage.self, "background=#FFE4C4", canonical: "flatten background=#ffe4c4"))
        #expect(try StageText.roundTrips(RemoveAlphaStage.self, "", canonical: "remove-alpha"))
        #expect(try StageText.roundTrips(EnsureAlphaStage.self, "alpha=0.25", canonical: "ensure-alpha 0.25"))
        #expect(try StageText.roundTrips(EnsureAlphaStage.self, "1", canonical: "ensure-alpha"))
    }
}

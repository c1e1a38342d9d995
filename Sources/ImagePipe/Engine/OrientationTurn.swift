/// The turn an EXIF (or TIFF) orientation asks for, as the first turning level of a streamed
/// run: the decoders hand rows as they are stored, and this level reads them back upright
/// through a tile cache, before any stage.
struct OrientationTurn: RearrangingStage, DeclaredStage {
    static let declaration = StageDeclaration("orientation", summary: "Turn upright as the picture's orientation tag says",
                                              start: OrientationTurn(turn: .identity), [])
    var turn: Dihedral

    func outputSize(for input: Size) -> Size { turn.size(of: input) }
    func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image { try input.pixels.turned(by: turn) }
    func rearrangement(for input: Size) -> PixelRearrangement? { .orient(turn) }
}

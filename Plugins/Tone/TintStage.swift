import ImagePipeCore

/// `tint COLOR` — sharp's tint: the picture's lightness kept and the colour's chroma laid over
/// it, strongest in the mid-tones and fading to none at black and white (so shadows and
/// highlights stay neutral, as in a toned print).
///
/// As sharp: each pixel's gray (linear-light Rec. 709 luma, see `grayscale`) has lightness
/// L*; with l = L*/100 the weight is 1 − 4(l − ½)², and the output is L*, weight × the tint's a*
/// and b*. That depends on the gray alone, so it is a 256-entry table.
public struct TintStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "tint", summary: "Tone the picture with a color, keeping its lightness, as sharp's tint",
        example: "tint #704214", start: TintStage(color: .white), [
            Param(\.color, "color", .color, positional: true,
                  help: "The tint; only its hue and chroma count (its lightness and alpha do not): #704214 is sepia."),
        ])

    public var color: Color

    public init(color: Color) { self.color = color }

    public func outputSize(for input: Size) -> Size { input }

    /// The tint in CIE Lab.
    var lab: SIMD3<Float> { CIELab.fromSRGB(SIMD3(Float(color.red), Float(color.green), Float(color.blue))) }

    public func explanation(for input: Size) -> String? {
        let lab = self.lab
        return "gray's L* kept, a* b* = \(NumberFormat.short(Double(lab[1]))), \(NumberFormat.short(Double(lab[2]))) × (1 − 4(L*/100 − ½)²)"
    }

    /// Output R, G, B for each gray level, interleaved.
    func table() -> [UInt8] {
        let tint = lab
        return (0..<256).flatMap { gray -> [UInt8] in
            let l = CIELab.fromSRGB(SIMD3(repeating: Float(gray)))[0]
            let weight = 1 - 4 * (l / 100 - 0.5) * (l / 100 - 0.5)
            let rgb = CIELab.toSRGB(SIMD3(l, weight * tint[1], weight * tint[2]))
            return [UInt8(rgb[0]), UInt8(rgb[1]), UInt8(rgb[2])]
        }
    }

    /// Each pixel alone: the run may stream it.
    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try Luma.linearLight.map(input.pixels, colors: table())
    }
}

import Testing
import ImagePipe
import Tone
import TestSupport

/// Pixel probes on small synthetic pictures for every tone stage, their refusals and their
/// canonical text. Each stage keeps alpha as it was.
@Suite struct ToneStageTests {
    private func stage<S: Stage>(_ type: S.Type, _ text: String) throws -> S { try StageText.parse(type, text) }

    /// One pixel of each colour given, in a row, with alpha `alpha`.
    private func swatches(_ colours: [Color], alpha: UInt8 = 255) throws -> Image {
        try Synthetic.image(colours.count, 1, alpha: alpha != 255) { x, _ in
            var c = colours[x]
            c.alpha = alpha
            return c
        }
    }

    private func grey(_ v: Int) -> Color { Color(red: UInt8(v), green: UInt8(v), blue: UInt8(v)) }

    @Test func grayscaleWeighsLinearLightByDefault() throws {
        let picture = try swatches([Color(red: 255, green: 0, blue: 0), Color(red: 0, green: 255, blue: 0), Color(red: 0, green: 0, blue: 255), grey(77)], alpha: 90)
        let out = try stage(GrayscaleStage.self, "").apply(to: picture)
        // encode(0.2126) = 127, encode(0.7152) = 220, encode(0.0722) = 76; grey stays itself.
        #expect(out.pixel(x: 0, y: 0) == Color(red: 127, green: 127, blue: 127, alpha: 90))
        #expect(out.pixel(x: 1, y: 0).red == 220 && out.pixel(x: 2, y: 0).red == 76)
        #expect(out.pixel(x: 3, y: 0) == Color(red: 77, green: 77, blue: 77, alpha: 90))
        #expect(out.hasAlpha)
        let encoded = try stage(GrayscaleStage.self, "linear=false").apply(to: picture)
        #expect(encoded.pixel(x: 0, y: 0).red == 54 && encoded.pixel(x: 1, y: 0).green == 182 && encoded.pixel(x: 2, y: 0).blue == 18)
    }

    @Test func everyGreyStaysItselfThroughGrayscale() throws {
        let ramp = try Synthetic.image(256, 1) { x, _ in grey(x) }
        for text in ["", "linear=false"] {
            let out = try stage(GrayscaleStage.self, text).apply(to: ramp)
            for x in 0..<256 { #expect(out.pixel(x: x, y: 0) == grey(x), "\(text) \(x)") }
        }
    }

    @Test func modulateDefaultsChangeNothingAndEachKnobDoesItsPart() throws {
        var random = SeededGenerator(seed: 5)
        let picture = try Synthetic.image(16, 16, alpha: true) { _, _ in
            Color(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random), blue: .random(in: 0...255, using: &random), alpha: 77)
        }
        let same = try stage(ModulateStage.self, "").apply(to: picture)
        for y in 0..<16 { for x in 0..<16 { #expect(Synthetic.close(same.pixel(x: x, y: y), picture.pixel(x: x, y: y), tolerance: 1)) } }
        let orange = try swatches([Color(red: 230, green: 120, blue: 20)])
        let greyed = try stage(ModulateStage.self, "saturation=0").apply(to: orange).pixel(x: 0, y: 0)
        #expect(abs(Int(greyed.red) - Int(greyed.blue)) <= 1 && abs(Int(greyed.red) - Int(greyed.green)) <= 1)
        // L* kept: the grey has orange's lightness (L* 62.2 is sRGB grey 150).
        #expect(abs(Int(greyed.green) - 150) <= 2, "\(greyed)")
        #expect(try stage(ModulateStage.self, "lightness=100").apply(to: orange).pixel(x: 0, y: 0) == .white)
        // A muted colour stays in the gamut: brightness scales its L*, half a turn of hue makes
        // it bluish, and two half turns bring it back.
        let muted = try swatches([Color(red: 150, green: 120, blue: 100)])
        func lab(_ c: Color) -> SIMD3<Float> { CIELab.fromSRGB(SIMD3(Float(c.red), Float(c.green), Float(c.blue))) }
        let darker = try stage(ModulateStage.self, "brightness=0.7").apply(to: muted).pixel(x: 0, y: 0)
        #expect(abs(lab(darker)[0] - 0.7 * lab(muted.pixel(x: 0, y: 0))[0]) < 0.5, "\(darker)")
        let turned = try stage(ModulateStage.self, "hue=180deg").apply(to: muted).pixel(x: 0, y: 0)
        #expect(turned.blue > turned.red, "\(turned)")
        let twice = try stage(ModulateStage.self, "hue=180deg").apply(to: try stage(ModulateStage.self, "hue=180deg").apply(to: muted))
        #expect(Synthetic.close(twice.pixel(x: 0, y: 0), muted.pixel(x: 0, y: 0), tolerance: 1))
        // Alpha is kept as it was, not only the layout: every pixel still 77.
        let saturated = try stage(ModulateStage.self, "saturation=2").apply(to: same)
        #expect(saturated.hasAlpha)
        #expect((0..<16).allSatisfy { y in (0..<16).allSatisfy { x in saturated.pixel(x: x, y: y).alpha == 77 } })
        #expect((0..<16).contains { y in (0..<16).contains { x in saturated.pixel(x: x, y: y) != same.pixel(x: x, y: y) } })
    }

    @Test func gammaFollowsItsFormula() throws {
        let picture = try swatches([grey(0), grey(128), grey(255), Color(red: 64, green: 32, blue: 200)], alpha: 5)
        let out = try stage(GammaStage.self, "").apply(to: picture)
        #expect(out.pixel(x: 0, y: 0).red == 0 && out.pixel(x: 2, y: 0).red == 255)
        #expect(out.pixel(x: 1, y: 0) == Color(red: 186, green: 186, blue: 186, alpha: 5)) // 255·(128/255)^(1/2.2) = 186.1
        #expect(out.pixel(x: 3, y: 0).red == 136) // 255·(64/255)^(1/2.2) = 136.0
        let identity = try stage(GammaStage.self, "1").apply(to: picture)
        #expect(identity.pixel(x: 3, y: 0) == picture.pixel(x: 3, y: 0))
        #expect(try stage(GammaStage.self, "0.5").apply(to: picture).pixel(x: 1, y: 0).red == 64) // 255·(128/255)² = 64.25
    }

    @Test func linearIsASlopeAndAnOffsetClamped() throws {
        let picture = try swatches([grey(0), grey(100), grey(200), grey(250)])
        let out = try stage(LinearStage.self, "1.3 -30").apply(to: picture)
        #expect((0..<4).map { out.pixel(x: $0, y: 0).red } == [0, 100, 230, 255])
        #expect(try stage(LinearStage.self, "-1 255").apply(to: picture).pixel(x: 1, y: 0).red == 155)
        #expect(try stage(LinearStage.self, "b=10").apply(to: picture).pixel(x: 1, y: 0).red == 110)
    }

    @Test func normalizeStretchesLightnessToTheFullRange() throws {
        // Greys from 60 to 160, and transparent black pixels that must not count.
        let picture = try Synthetic.image(101, 3, alpha: true) { x, y in
            y == 2 ? .transparent : Color(red: UInt8(60 + x), green: UInt8(60 + x), blue: UInt8(60 + x))
        }
        let out = try stage(NormalizeStage.self, "lower=0% upper=100%").apply(to: picture)
        #expect(out.pixel(x: 0, y: 0).red <= 1 && out.pixel(x: 100, y: 1).red >= 254, "\(out.pixel(x: 0, y: 0)) \(out.pixel(x: 100, y: 1))")
        for x in 1..<101 { #expect(out.pixel(x: x, y: 0).red >= out.pixel(x: x - 1, y: 0).red) }
        #expect(out.pixel(x: 5, y: 2) == .transparent)
        // The default percentiles clip the extremes: the darkest 1 % (2 of 202 pixels) is black,
        // the brightest white.
        let clipped = try stage(NormalizeStage.self, "").apply(to: picture)
        #expect(clipped.pixel(x: 0, y: 0).red == 0 && clipped.pixel(x: 100, y: 0).red == 255)
        #expect(clipped.pixel(x: 1, y: 0).red <= 3 && clipped.pixel(x: 50, y: 0).red < out.pixel(x: 50, y: 0).red + 3)
        // One flat tone has nothing to stretch.
        let flat = try Image.filled(grey(90), size: Size(4, 4), hasAlpha: false)
        #expect(try stage(NormalizeStage.self, "").apply(to: flat).pixel(x: 2, y: 2) == grey(90))
        #expect(throws: ArgumentError.self) { try stage(NormalizeStage.self, "lower=60% upper=40%") }
    }

    @Test func negateInvertsColourAndAlphaOnlyWhenAsked() throws {
        let picture = try swatches([Color(red: 10, green: 200, blue: 255)], alpha: 60)
        #expect(try stage(NegateStage.self, "").apply(to: picture).pixel(x: 0, y: 0) == Color(red: 245, green: 55, blue: 0, alpha: 60))
        #expect(try stage(NegateStage.self, "alpha=true").apply(to: picture).pixel(x: 0, y: 0) == Color(red: 245, green: 55, blue: 0, alpha: 195))
    }

    @Test func tintKeepsLightnessAndColoursTheMidTones() throws {
        let picture = try swatches([grey(0), grey(255), grey(119), Color(red: 40, green: 90, blue: 200)], alpha: 33)
        let out = try stage(TintStage.self, "#704214").apply(to: picture)
        #expect(out.pixel(x: 0, y: 0) == Color(red: 0, green: 0, blue: 0, alpha: 33))
        #expect(out.pixel(x: 1, y: 0) == Color(red: 255, green: 255, blue: 255, alpha: 33))
        let mid = out.pixel(x: 2, y: 0)
        #expect(mid.red > mid.green && mid.green > mid.blue, "sepia mid-tone: \(mid)")
        // Lightness kept: L* of the output is the grey's.
        let l = CIELab.fromSRGB(SIMD3(Float(mid.red), Float(mid.green), Float(mid.blue)))[0]
        #expect(abs(l - CIELab.fromSRGB(SIMD3(repeating: 119))[0]) < 1)
        // Tinting with a grey (no chroma) is grayscale.
        let grey = try stage(TintStage.self, "gray").apply(to: picture).pixel(x: 3, y: 0)
        let gray = try GrayscaleStage().apply(to: picture).pixel(x: 3, y: 0)
        #expect(Synthetic.close(grey, gray, tolerance: 1))
    }

    @Test func thresholdSplitsAtTheLevel() throws {
        let picture = try swatches([grey(127), grey(128), Color(red: 255, green: 0, blue: 0), Color(red: 0, green: 255, blue: 0),
                                    Color(red: 180, green: 90, blue: 40)], alpha: 9)
        let out = try stage(ThresholdStage.self, "").apply(to: picture)
        // Greys compare as themselves; pure red's grey is 127, pure green's 220, the brown's 115.
        #expect((0..<5).map { out.pixel(x: $0, y: 0).red } == [0, 255, 0, 255, 0])
        #expect(out.pixel(x: 3, y: 0) == Color(red: 255, green: 255, blue: 255, alpha: 9))
        let perChannel = try stage(ThresholdStage.self, "128 grayscale=false").apply(to: picture).pixel(x: 4, y: 0)
        #expect(perChannel == Color(red: 255, green: 0, blue: 0, alpha: 9))
        #expect(try stage(ThresholdStage.self, "0").apply(to: picture).pixel(x: 0, y: 0).red == 255)
    }

    @Test func canonicalText() throws {
        #expect(try StageText.roundTrips(GrayscaleStage.self, "linear=true", canonical: "grayscale"))
        #expect(try StageText.roundTrips(GrayscaleStage.self, "linear=false", canonical: "grayscale linear=false"))
        #expect(try StageText.roundTrips(ModulateStage.self, "hue=30 saturation=1.5", canonical: "modulate saturation=1.5 hue=30deg"))
        #expect(try StageText.roundTrips(ModulateStage.self, "brightness=1 lightness=-5", canonical: "modulate lightness=-5"))
        #expect(try StageText.roundTrips(GammaStage.self, "2.2", canonical: "gamma"))
        #expect(try StageText.roundTrips(GammaStage.self, "gamma=1.8", canonical: "gamma 1.8"))
        #expect(try StageText.roundTrips(LinearStage.self, "1.3 -30", canonical: "linear 1.3 -30"))
        #expect(try StageText.roundTrips(LinearStage.self, "b=4", canonical: "linear b=4"))
        #expect(try StageText.roundTrips(NormalizeStage.self, "lower=1% upper=98", canonical: "normalize upper=98%"))
        #expect(try StageText.roundTrips(NegateStage.self, "alpha=true", canonical: "negate alpha=true"))
        #expect(try StageText.roundTrips(TintStage.self, "#704214", canonical: "tint #704214"))
        #expect(try StageText.roundTrips(ThresholdStage.self, "level=100 grayscale=true", canonical: "threshold 100"))
    }

    @Test func schemaRefusesNonsense() {
        #expect(throws: ArgumentError.self) { try stage(GammaStage.self, "0") }
        #expect(throws: ArgumentError.self) { try stage(GammaStage.self, "nan") }
        #expect(throws: ArgumentError.self) { try stage(LinearStage.self, "1 2 3") }
        #expect(throws: ArgumentError.self) { try stage(ModulateStage.self, "saturation=-1") }
        #expect(throws: ArgumentError.self) { try stage(TintStage.self, "") }
        #expect(throws: ArgumentError.self) { try stage(TintStage.self, "notacolour") }
        #expect(throws: ArgumentError.self) { try stage(ThresholdStage.self, "256") }
        #expect(throws: ArgumentError.self) { try stage(NegateStage.self, "alpha=maybe") }
    }

    @Test func explanationsSayWhatHappens() throws {
        #expect(try stage(GammaStage.self, "").explanation(for: Size(2, 2)) == "out = in^(1/2.2): mid-gray 128 → 186")
        #expect(try stage(GrayscaleStage.self, "").explanation(for: Size(2, 2))?.contains("linear light") == true)
        #expect(try stage(ThresholdStage.self, "").explanation(for: Size(2, 2)) == "gray ≥ 128 → white, else black")
    }
}

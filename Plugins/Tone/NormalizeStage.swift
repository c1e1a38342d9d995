import ImagePipeCore

/// `normalize [lower=1%] [upper=99%]` — sharp's normalise: the lightness L* (CIE L*a*b*) at the
/// `lower` percentile of the picture's pixels becomes 0 and at the `upper` percentile 100,
/// linearly between, clipped beyond; a* and b* (hue and chroma) are kept. The percentiles
/// ignore the extremes, so a few specks of noise do not hold the stretch back.
///
/// Fully transparent pixels are left out of the histogram (their colour is not seen). L* is
/// counted in bins of 0.1 (sharp counts whole units). A picture whose percentiles meet (one
/// flat tone) is returned unchanged. A streamed run counts the histogram on a first read of the
/// picture, strip by strip, and stretches on a second (`SurveyingStage`).
public struct NormalizeStage: Transform, DeclaredStage, SurveyingStage {
    public static let declaration = StageDeclaration(
        "normalize", summary: "Stretch lightness so its percentiles span the full range, as sharp's normalize (an animation's first frame decides it)",
        example: "normalize lower=2% upper=98%", start: NormalizeStage(), [
            Param(\.lower, "lower", .percentage(0...100), default: 1,
                  help: "The share of pixels (by lightness) that become black or darker: they are clipped to black."),
            Param(\.upper, "upper", .percentage(0...100), default: 99,
                  help: "The share of pixels at or below the lightness that becomes white; those above are clipped to white."),
        ])

    public var lower: Double
    public var upper: Double

    public init(lower: Double = 1, upper: Double = 99) {
        self.lower = lower
        self.upper = upper
    }

    public func check() throws(ArgumentError) {
        guard lower < upper else {
            throw .parameter("upper", "upper \(NumberFormat.text(upper))% must be above lower \(NumberFormat.text(lower))%")
        }
    }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "L* from its \(NumberFormat.short(lower))% to its \(NumberFormat.short(upper))% percentile stretched to 0…100 (measured on the pixels)"
    }

    /// The histogram a streamed run's survey counted over the whole picture, once it has (the
    /// stage is then a point stage); nil before.
    var surveyed: LightnessHistogram?

    public var stageClass: StageClass { surveyed == nil ? .whole : .point }
    public var surveyedClass: StageClass { .point }
    public func newSurvey() -> LightnessHistogram { LightnessHistogram() }

    public func surveyed(by survey: LightnessHistogram) -> any Transform {
        var stage = self
        stage.surveyed = survey
        return stage
    }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels
        // An animation's frames all take the first frame's stretch, so that they keep their tones.
        let histogram = surveyed ?? FrameDecisions.decide {
            var histogram = LightnessHistogram()
            histogram.count(image)
            return histogram
        }
        // One bin wide (one tone): nothing to stretch.
        guard let range = histogram.range(lower: lower, upper: upper), range.high - range.low > 1.5 / Float(LightnessHistogram.binsPerUnit) else { return image }
        let (low, gain) = (range.low, 100 / (range.high - range.low))
        var stretch = LabAdjustment()
        (stretch.lightnessScale, stretch.lightnessOffset, stretch.lightnessRange) = (gain, -low * gain, 0...100)
        return try stretch.apply(to: image)
    }
}

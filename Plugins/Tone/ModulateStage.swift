#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// `modulate [brightness=1] [saturation=1] [hue=0deg] [lightness=0]` — sharp's modulate: in
/// CIE LCh (L*a*b* in polar form), L* × brightness + lightness, chroma × saturation, hue
/// turned by `hue`. Colours the change pushes out of the sRGB gamut are clipped per channel.
public struct ModulateStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "modulate", summary: "Brightness, saturation, hue and lightness in CIE LCh, as sharp's modulate",
        example: "modulate brightness=1.1 saturation=1.4 hue=30deg", start: ModulateStage(), [
            Param(\.brightness, "brightness", .number(0...100), default: 1,
                  help: "Multiplies lightness L*: 0.5 halves it, 2 doubles it. ImageMagick's modulate 110,140,120 (brightness, saturation and hue in percent) is read as brightness=1.1 saturation=1.4 hue=36deg."),
            Param(\.saturation, "saturation", .number(0...100), default: 1,
                  help: "Multiplies chroma: 0 is gray, 1 unchanged, 2 twice as colorful."),
            Param(\.hue, "hue", .angle(-3600...3600), default: .zero,
                  help: "Turns the hue angle h of LCh; 180deg gives the opposite colors."),
            Param(\.lightness, "lightness", .number(-100...100), default: 0,
                  help: "Added to L* (0…100) after brightness: 10 lifts every tone by a tenth of the range."),
        ])

    public var brightness: Double
    public var saturation: Double
    public var hue: Angle
    public var lightness: Double

    public init(brightness: Double = 1, saturation: Double = 1, hue: Angle = .zero, lightness: Double = 0) {
        self.brightness = brightness
        self.saturation = saturation
        self.hue = hue
        self.lightness = lightness
    }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "in CIE LCh: L* × \(NumberFormat.short(brightness)) + \(NumberFormat.short(lightness)), chroma × \(NumberFormat.short(saturation)), hue + \(hue)"
    }

    /// Each pixel alone: the run may stream it.
    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        // Turning (a*, b*) by the hue angle and scaling it by saturation is LCh's C × s, h + hue.
        try LabAdjustment(lightnessScale: Float(brightness), lightnessOffset: Float(lightness), saturation: Float(saturation), hue: hue)
            .apply(to: input.pixels)
    }
}

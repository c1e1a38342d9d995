#if canImport(Glibc)
import Glibc
#endif
import ImagePipeCore

/// `gamma [2.2]` — out = 255 · (in / 255)^(1/γ) on each colour channel: γ above 1 brightens the
/// mid-tones, below 1 darkens them; black and white stay.
///
/// sharp's gamma is a pair: it encodes with 1/γ before its resize and decodes with γ after, so
/// the resize averages in a gamma-adjusted space; on its own (no resize between) the pair
/// changes nothing. Stages here run in the order written, so the lone adjustment is what a
/// stage can mean: the one of libvips' `gamma` and ImageMagick's `-gamma`, with sharp's 2.2
/// as the default (libvips' is 2.4). Write `gamma 2.2 | fit … | gamma 0.4545` for sharp's pair.
public struct GammaStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration(
        "gamma", summary: "Gamma adjustment: out = in^(1/γ); above 1 brightens the mid-tones",
        example: "gamma 1.8", start: GammaStage(), [
            Param(\.gamma, "gamma", .number(0.1...10), default: 2.2, positional: true,
                  help: "γ: out = in^(1/γ) on 0…1 values; 2.2 as sharp's default (libvips uses 2.4), 1 changes nothing, below 1 darkens."),
        ])

    public var gamma: Double

    public init(gamma: Double = 2.2) { self.gamma = gamma }

    public func outputSize(for input: Size) -> Size { input }

    public func explanation(for input: Size) -> String? {
        "out = in^(1/\(NumberFormat.short(gamma))): mid-gray 128 → \(Self.table(gamma: gamma)[128])"
    }

    static func table(gamma: Double) -> [UInt8] {
        (0..<256).map { UInt8(min(255, max(0, (255 * pow(Double($0) / 255, 1 / gamma)).rounded()))) }
    }

    /// Each pixel alone: the run may stream it.
    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        try input.pixels.mapChannels(Self.table(gamma: gamma))
    }
}

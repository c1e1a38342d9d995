import ImagePipeCore

/// `sepia [amount=100%]`: old-photo brown tones, mixed with the original by `amount`.
public struct SepiaStage: Transform, DeclaredStage {
    public static let declaration = StageDeclaration("sepia", summary: "Tone the picture sepia", example: "sepia 80%", start: SepiaStage(), [
        Param(\.amount, "amount", .percentage(0...100), default: 100, positional: true, help: "How much sepia: 0% leaves the picture as it is."),
    ])

    public var amount: Double // in percent

    public init(amount: Double = 100) { self.amount = amount }

    public func outputSize(for input: Size) -> Size { input }

    /// Each pixel is toned on its own: a point stage, which a run streams strip by strip.
    public var stageClass: StageClass { .point }

    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        let image = input.pixels, mix = amount / 100, channels = image.channelCount
        return try Image.make(size: image.size, hasAlpha: image.hasAlpha) { writer in
            for y in 0..<image.height {
                let source = image.row(y), target = writer.row(y)
                for x in stride(from: 0, to: source.count, by: channels) {
                    let r = Double(source[x]), g = Double(source[x + 1]), b = Double(source[x + 2])
                    let toned = [0.393 * r + 0.769 * g + 0.189 * b, 0.349 * r + 0.686 * g + 0.168 * b, 0.272 * r + 0.534 * g + 0.131 * b]
                    for c in 0..<3 { target[x + c] = UInt8(min(255, (Double(source[x + c]) * (1 - mix) + toned[c] * mix).rounded())) }
                    if channels == 4 { target[x + 3] = source[x + 3] }
                }
            }
        }
    }
}

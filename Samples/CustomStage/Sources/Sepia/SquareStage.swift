import ImagePipeCore

/// `square [size=0]`: cuts the largest centered square out of the picture, as an avatar is cut,
/// and scales it to `size` pixels a side (0 keeps it as cut). Its output rows are a band of the
/// input's rows at another size, so it is a resample stage: it names the input rows each strip
/// of output needs, and makes the strip from a window of exactly those. A square that shrinks
/// needs the picture no larger than its scale: it says so (`reducedInput`), a JPEG is then
/// decoded reduced in the DCT, and the stage works on the decode's rows (`input.picture` says how
/// the full picture maps onto them).
public struct SquareStage: ShrinkOnLoadStage, DeclaredStage {
    public static let declaration = StageDeclaration("square", summary: "Cut the largest centered square", example: "square 128",
                                                     start: SquareStage(), [
        Param(\.size, "size", .integer(0...16384), default: 0, positional: true,
              help: "The side the square is scaled to, in pixels; 0 keeps it as cut."),
    ])

    public var size: Int

    public init(size: Int = 0) { self.size = size }

    public func outputSize(for input: Size) -> Size {
        let side = size > 0 ? size : min(input.width, input.height)
        return Size(side, side)
    }

    public var stageClass: StageClass { .resample }

    /// The square's place in a picture of `picture` size.
    private func square(in picture: Size) -> Rect {
        let side = min(picture.width, picture.height)
        return Rect(x: (picture.width - side) / 2, y: (picture.height - side) / 2, width: side, height: side)
    }

    /// The square cut at its own size: rows of the input, not resampled.
    private func cutsOnly(_ reduction: DecodeReduction) -> Bool { size == 0 && reduction.isFull }

    /// The square's scaling from the decode's rows (the full picture's, or a reduced decode's).
    private func scaling(_ reduction: DecodeReduction) throws -> WindowedResampling {
        let cut = square(in: reduction.fullSize)
        let region = reduction.map(Region(x: Double(cut.x), y: Double(cut.y), width: Double(cut.width), height: Double(cut.height)))
        return try WindowedResampling(sourceSize: reduction.decodedSize, region: region, to: outputSize(for: reduction.fullSize), kernel: nil,
                                      linearLight: false)
    }

    /// The square scaled to its output needs the picture at that scale at most.
    public func reducedInput(for input: Size) -> Size? {
        let side = min(input.width, input.height)
        return size > 0 && size < side ? input.scaledUp(by: Double(size) / Double(side)) : nil
    }

    /// Output rows `rows` are the input's rows as far down as the square's top, or, scaled, the
    /// rows the kernel reaches.
    public func inputRows(forOutput rows: Range<Int>, of reduction: DecodeReduction) throws -> Range<Int> {
        guard cutsOnly(reduction) else { return try scaling(reduction).sourceRows(forOutput: rows) }
        let top = square(in: reduction.fullSize).y
        return (rows.lowerBound + top)..<(rows.upperBound + top)
    }

    /// `input` holds the decode's rows `inputRows` named, at its full width.
    public func makeRows(_ rows: Range<Int>, from input: StageInput) throws -> Image {
        guard cutsOnly(input.picture) else { return try scaling(input.picture).rows(rows, fromWindow: input.pixels, top: input.top) }
        let square = square(in: input.picture.fullSize)
        return try input.pixels.cropped(to: Rect(x: square.x, y: square.y + rows.lowerBound - input.top, width: square.width, height: rows.count))
    }
}

/// A picture reduced to a palette of at most 256 colors by libimagequant (`Quantization`): the
/// palette, RGBA, and one index per pixel, row after row.
struct PaletteQuantizer {
    var palette: [Color]
    var indices: [UInt8]
    let size: Size

    init(_ image: Image, colors: Int, dither: Double) throws {
        let quantization = try Quantization(image, colors: colors, dither: dither)
        size = image.size
        palette = quantization.palette
        indices = quantization.sourceIndices
    }
}

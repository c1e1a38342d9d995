import CImageQuant

/// A picture reduced to a palette of at most 256 colors by libimagequant (what pngquant, sharp's
/// `palette` and libvips use): the palette, RGBA, and one index per pixel, row after row.
struct PaletteQuantizer {
    var palette: [Color]
    var indices: [UInt8]
    let size: Size

    /// Quantizes at libimagequant's speed 4 (sharp's and libvips' default effort 7).
    init(_ image: Image, colors: Int, dither: Double) throws {
        size = image.size
        // libimagequant reads RGBA rows; RGB pictures are widened once.
        var rgba = [UInt8](repeating: 255, count: image.width * image.height * 4)
        for y in 0..<image.height {
            let row = image.row(y)
            let base = y * image.width * 4
            if image.hasAlpha {
                for i in 0..<image.width * 4 { rgba[base + i] = row[i] }
            } else {
                for x in 0..<image.width {
                    rgba[base + x * 4] = row[x * 3]
                    rgba[base + x * 4 + 1] = row[x * 3 + 1]
                    rgba[base + x * 4 + 2] = row[x * 3 + 2]
                }
            }
        }
        guard let attributes = liq_attr_create() else { throw ImageError(.unwritable, reason: "libimagequant could not start") }
        defer { liq_attr_destroy(attributes) }
        _ = liq_set_max_colors(attributes, Int32(min(max(colors, 2), 256)))
        _ = liq_set_speed(attributes, 4)
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        var palette: [Color] = []
        try rgba.withUnsafeBytes { pixels in
            guard let input = liq_image_create_rgba(attributes, pixels.baseAddress!, Int32(image.width), Int32(image.height), 0) else {
                throw ImageError(.unwritable, reason: "libimagequant refused a \(image.size) picture")
            }
            defer { liq_image_destroy(input) }
            var result: OpaquePointer?
            guard liq_image_quantize(input, attributes, &result) == LIQ_OK, let result else {
                throw ImageError(.unwritable, reason: "libimagequant could not find a palette")
            }
            defer { liq_result_destroy(result) }
            _ = liq_set_dithering_level(result, Float(min(max(dither, 0), 1)))
            let written = indices.withUnsafeMutableBytes { liq_write_remapped_image(result, input, $0.baseAddress!, $0.count) }
            guard written == LIQ_OK else { throw ImageError(.unwritable, reason: "libimagequant could not map the picture to its palette") }
            let found = liq_get_palette(result)!.pointee
            palette = withUnsafeBytes(of: found.entries) { raw in
                let entries = raw.bindMemory(to: liq_color.self)
                return (0..<Int(found.count)).map { Color(red: entries[$0].r, green: entries[$0].g, blue: entries[$0].b, alpha: entries[$0].a) }
            }
        }
        self.indices = indices
        self.palette = palette
    }
}

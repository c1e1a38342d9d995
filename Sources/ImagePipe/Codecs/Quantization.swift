import CImageQuant

/// A palette libimagequant found for a picture (what pngquant, sharp's `palette` and libvips
/// use), kept so that other pictures can be mapped to it: the frames of an animation share a
/// palette while it suits them, which lets the GIF encoder leave unchanged pixels out.
final class Quantization {
    private let attributes: OpaquePointer
    private let result: OpaquePointer
    /// RGBA entries, at most the colors asked for.
    let palette: [Color]
    /// The picture the palette was made for, as indices into it, and their error
    /// (`meanSquareError`).
    let sourceIndices: [UInt8]
    let sourceError: Double

    /// Quantizes at libimagequant's speed 4 (sharp's and libvips' default effort 7).
    init(_ image: Image, colors: Int, dither: Double) throws {
        guard let attributes = liq_attr_create() else { throw ImageError(.unwritable, reason: "libimagequant could not start") }
        _ = liq_set_max_colors(attributes, Int32(min(max(colors, 2), 256)))
        _ = liq_set_speed(attributes, 4)
        // One RGBA copy of the picture for both steps: libimagequant settles the palette as it
        // maps the picture it was made from.
        var found: OpaquePointer?
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        let status = try Self.withInput(image, attributes) { input -> liq_error in
            let quantized = liq_image_quantize(input, attributes, &found)
            guard quantized == LIQ_OK, let found else { return quantized }
            _ = liq_set_dithering_level(found, Float(min(max(dither, 0), 1)))
            return indices.withUnsafeMutableBytes { liq_write_remapped_image(found, input, $0.baseAddress!, $0.count) }
        }
        guard status == LIQ_OK, let found else {
            if let found { liq_result_destroy(found) }
            liq_attr_destroy(attributes)
            throw ImageError(.unwritable, reason: "libimagequant could not find a palette for the picture and map it")
        }
        self.attributes = attributes
        result = found
        let table = liq_get_palette(found)!.pointee
        palette = withUnsafeBytes(of: table.entries) { raw in
            let entries = raw.bindMemory(to: liq_color.self)
            return (0..<Int(table.count)).map { Color(red: entries[$0].r, green: entries[$0].g, blue: entries[$0].b, alpha: entries[$0].a) }
        }
        sourceIndices = indices
        sourceError = Self.meanSquareError(of: image, as: indices, in: palette)
    }

    deinit {
        liq_result_destroy(result)
        liq_attr_destroy(attributes)
    }

    /// `image` (of any size) as indices into this palette, row after row, and the mean square
    /// difference of the mapped pixels from the picture's, per channel on 0…255
    /// (`meanSquareError`).
    func indices(of image: Image) throws -> (indices: [UInt8], error: Double) {
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        let status = try Self.withInput(image, attributes) { input in
            indices.withUnsafeMutableBytes { liq_write_remapped_image(result, input, $0.baseAddress!, $0.count) }
        }
        guard status == LIQ_OK else { throw ImageError(.unwritable, reason: "libimagequant could not map the picture to its palette") }
        return (indices, Self.meanSquareError(of: image, as: indices, in: palette))
    }

    /// How far `indices` into `palette` are from `image`'s pixels: the mean of the squared
    /// differences of R, G, B (and alpha) where either is seen, dithering's noise included. libimagequant's own
    /// figure (`liq_get_remapping_error`) is that of the picture the palette was made for, not
    /// of a later one mapped to it.
    static func meanSquareError(of image: Image, as indices: [UInt8], in palette: [Color]) -> Double {
        let channels = image.channelCount
        var total = 0
        for y in 0..<image.height {
            let row = image.row(y), base = y * image.width
            for x in 0..<image.width {
                let entry = palette[Int(indices[base + x])], pixel = x * channels
                // Clear both ways: the color under it is not seen.
                if channels == 4 && row[pixel + 3] < 128 && entry.alpha < 128 { continue }
                let dr = Int(row[pixel]) - Int(entry.red), dg = Int(row[pixel + 1]) - Int(entry.green), db = Int(row[pixel + 2]) - Int(entry.blue)
                let da = channels == 4 ? Int(row[pixel + 3]) - Int(entry.alpha) : 0
                total += dr * dr + dg * dg + db * db + da * da
            }
        }
        return Double(total) / Double(max(1, image.width * image.height * channels))
    }

    /// libimagequant's picture over `image`'s pixels, widened to RGBA (the one layout it reads).
    private static func withInput<T>(_ image: Image, _ attributes: OpaquePointer, _ body: (OpaquePointer) throws -> T) throws -> T {
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
        return try rgba.withUnsafeBytes { pixels in
            guard let input = liq_image_create_rgba(attributes, pixels.baseAddress!, Int32(image.width), Int32(image.height), 0) else {
                throw ImageError(.unwritable, reason: "libimagequant refused a \(image.size) picture")
            }
            defer { liq_image_destroy(input) }
            return try body(input)
        }
    }
}

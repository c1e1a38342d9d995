import CGIF

/// Still GIF writing: a palette from libimagequant, encoded by cgif (the encoder libvips uses).
/// GIF has one level of transparency: pixels less than half opaque become the transparent entry,
/// the rest opaque.
enum GIFEncoder {
    static func encode(_ image: Image, colors: Int, dither: Double) throws -> [UInt8] {
        guard image.width <= 65_535, image.height <= 65_535 else {
            throw ImageError(.unwritable, reason: "GIF holds at most 65535x65535 pixels; this picture is \(image.size)")
        }
        var quantized = try PaletteQuantizer(image, colors: colors, dither: dither)
        var transparent = false
        if image.hasAlpha, let clear = quantized.palette.indices.min(by: { quantized.palette[$0].alpha < quantized.palette[$1].alpha }),
           quantized.palette[clear].alpha < 128 {
            // The clear entry moves to 0, and every pixel less than half opaque points at it.
            transparent = true
            quantized.palette.swapAt(0, clear)
            let seeThrough = quantized.palette.map { $0.alpha < 128 }
            for i in quantized.indices.indices {
                var index = Int(quantized.indices[i])
                if index == clear { index = 0 } else if index == 0 { index = clear }
                quantized.indices[i] = seeThrough[index] ? 0 : UInt8(index)
            }
        }
        // GIF palettes come in powers of two of at least 2 entries.
        var count = 2
        while count < quantized.palette.count { count *= 2 }
        var palette = [UInt8](repeating: 0, count: count * 3)
        for (i, color) in quantized.palette.enumerated() {
            palette[i * 3] = color.red
            palette[i * 3 + 1] = color.green
            palette[i * 3 + 2] = color.blue
        }
        let output = CGIFOutput()
        try palette.withUnsafeMutableBufferPointer { table in
            var config = CGIF_Config()
            config.pGlobalPalette = table.baseAddress
            config.numGlobalPaletteEntries = UInt16(count)
            config.width = UInt16(image.width)
            config.height = UInt16(image.height)
            config.pWriteFn = CGIFOutput.write
            config.pContext = output.context
            // cgif 0.3 writes the graphic control extension, which holds the transparent index, only
            // for animations: a one-frame animation that does not loop is a still GIF to readers.
            if transparent { config.attrFlags = UInt32(CGIF_ATTR_IS_ANIMATED | CGIF_ATTR_NO_LOOP) }
            guard let gif = cgif_newgif(&config) else { throw ImageError(.unwritable, reason: "cgif could not start a GIF") }
            let added = quantized.indices.withUnsafeMutableBufferPointer { indices in
                var frame = CGIF_FrameConfig()
                frame.pImageData = indices.baseAddress
                if transparent {
                    frame.attrFlags = UInt32(CGIF_FRAME_ATTR_HAS_SET_TRANS)
                    frame.transIndex = 0
                }
                return cgif_addframe(gif, &frame)
            }
            let closed = cgif_close(gif)
            guard added == Int32(CGIF_OK.rawValue), closed == Int32(CGIF_OK.rawValue) else {
                throw ImageError(.unwritable, reason: "cgif could not encode the picture")
            }
        }
        return output.bytes.joined
    }
}

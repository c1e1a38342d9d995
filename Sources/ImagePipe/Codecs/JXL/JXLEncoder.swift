/// A still JPEG XL through libjxl (`JXLWriter`): lossy at a quality's distance or lossless, at
/// an effort, with the ICC profile in the codestream and EXIF and XMP as container boxes.
enum JXLEncoder {
    static func encode(_ image: Image, quality: Int, effort: Int, lossless: Bool, metadata: OutputMetadata) throws -> [UInt8] {
        let writer = try JXLWriter(quality: quality, effort: effort, lossless: lossless)
        try writer.start(size: image.size, alpha: image.hasAlpha, lossless: lossless, icc: metadata.icc, animationPlays: nil)
        try writer.addBoxes(exif: metadata.describing(image.size).exif, xmp: metadata.xmp)
        try writer.add(image, alpha: image.hasAlpha)
        return try writer.finish()
    }
}

/// A JPEG's DCT coefficients recompressed into JPEG XL, losslessly, with its reconstruction
/// data (`jbrd`): what `cjxl` does to a JPEG by default, and `Pipeline.runJPEGRecompressionIfAsked`
/// does for `save x.jxl lossless=true` of a JPEG through no stage.
enum JXLRecompression {
    static func recompress(_ jpeg: [UInt8], effort: Int) throws -> [UInt8] {
        let writer = try JXLWriter(quality: 100, effort: effort, lossless: false)
        try writer.addJPEG(jpeg)
        return try writer.finish()
    }
}

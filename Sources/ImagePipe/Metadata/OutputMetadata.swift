/// The blocks an encoder embeds beside the pixels.
struct OutputMetadata: Sendable {
    var icc: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?

    /// The blocks as `format` can hold them, and a warning for each one left out.
    ///
    /// A copied block is written only if it parses (an EXIF block as TIFF, an XMP packet as
    /// namespaced XML), so that `keep=` never carries arbitrary bytes from one file into the
    /// next; then the format's codec leaves out what the format cannot hold (`Codec.fitted`:
    /// JPEG's segments).
    func checked(for format: ImageFormat) throws -> (metadata: OutputMetadata, warnings: [String]) {
        var checked = self
        var warnings: [String] = []
        if let exif, !ExifBlock(exif).isWellFormed {
            checked.exif = nil
            warnings.append("the EXIF block (\(exif.count) bytes) is not valid TIFF-structured data; left out")
        }
        if let xmp, !XMPPacket.isWellFormed(xmp) {
            checked.xmp = nil
            warnings.append("the XMP packet (\(xmp.count) bytes) is not well-formed namespaced XML; left out")
        }
        let (fitted, limited) = try Codecs.of(format).fitted(checked)
        return (fitted, warnings + limited)
    }

    /// The blocks as written beside a picture of `size`: the EXIF block's ExifImageWidth and
    /// ExifImageHeight say the written size (each encoder calls this, so that every way to the
    /// file, streamed or whole, writes the size it writes).
    func describing(_ size: Size) -> OutputMetadata {
        guard let exif else { return self }
        var described = self
        described.exif = ExifBlock(exif).withPixelDimensions(width: size.width, height: size.height).bytes
        return described
    }
}

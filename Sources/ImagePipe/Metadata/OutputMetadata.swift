/// The blocks an encoder embeds beside the pixels.
struct OutputMetadata: Sendable {
    var icc: [UInt8]?
    var exif: [UInt8]?
    var xmp: [UInt8]?

    /// The blocks as `format` can hold them, and a warning for each one left out.
    ///
    /// A copied block is written only if it parses (an EXIF block as TIFF, an XMP packet as
    /// namespaced XML), so that `keep=` never carries arbitrary bytes from one file into the
    /// next. JPEG holds an EXIF or XMP block in one APP1 segment (64 KiB) and a profile in at most
    /// 255 APP2 segments: a larger EXIF or XMP block is left out with a warning, and a larger
    /// profile is refused, since the pixels are in that profile and would be shown wrongly without it.
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
        guard format == .jpeg else { return (checked, warnings) }
        if let exif = checked.exif, exif.count > Self.jpegEXIFLimit {
            checked.exif = nil
            warnings.append("the EXIF block is \(exif.count) bytes; a JPEG holds at most \(Self.jpegEXIFLimit); left out")
        }
        if let xmp = checked.xmp, xmp.count > Self.jpegXMPLimit {
            checked.xmp = nil
            warnings.append("the XMP packet is \(xmp.count) bytes; a JPEG holds at most \(Self.jpegXMPLimit) in one segment; left out")
        }
        if let icc, icc.count > Self.jpegProfileLimit {
            throw ImageError(.unwritable, reason: "its ICC profile is \(icc.count) bytes; a JPEG holds at most \(Self.jpegProfileLimit) "
                + "(255 segments); write the pixels as sRGB with profile=srgb, or save as PNG, WebP or TIFF")
        }
        return (checked, warnings)
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

    /// A JPEG segment holds 65,533 bytes after its length: less the 6-byte `Exif\0\0` marker.
    static let jpegEXIFLimit = 65_533 - 6
    /// Less the 29-byte `http://ns.adobe.com/xap/1.0/\0` marker.
    static let jpegXMPLimit = 65_533 - 29
    /// 255 segments (the count is one byte) of 65,519 bytes after the 14-byte `ICC_PROFILE\0` header.
    static let jpegProfileLimit = 255 * (65_533 - 14)
}

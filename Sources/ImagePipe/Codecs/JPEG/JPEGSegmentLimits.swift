/// What a JPEG's segments hold of the metadata a save embeds: an EXIF or XMP block goes in one
/// APP1 segment (64 KiB) and a profile in at most 255 APP2 segments. A larger EXIF or XMP block
/// is left out with a warning; a larger profile is refused, since the pixels are in that profile
/// and would be shown wrongly without it.
enum JPEGSegmentLimits {
    /// A JPEG segment holds 65,533 bytes after its length: less the 6-byte `Exif\0\0` marker.
    static let exif = 65_533 - 6
    /// Less the 29-byte `http://ns.adobe.com/xap/1.0/\0` marker.
    static let xmp = 65_533 - 29
    /// 255 segments (the count is one byte) of 65,519 bytes after the 14-byte `ICC_PROFILE\0` header.
    static let profile = 255 * (65_533 - 14)

    /// `metadata` as a JPEG holds it, and a warning for each block left out.
    static func fitted(_ metadata: OutputMetadata) throws -> (metadata: OutputMetadata, warnings: [String]) {
        var fitted = metadata
        var warnings: [String] = []
        if let exif = metadata.exif, exif.count > Self.exif {
            fitted.exif = nil
            warnings.append("the EXIF block is \(exif.count) bytes; a JPEG holds at most \(Self.exif); left out")
        }
        if let xmp = metadata.xmp, xmp.count > Self.xmp {
            fitted.xmp = nil
            warnings.append("the XMP packet is \(xmp.count) bytes; a JPEG holds at most \(Self.xmp) in one segment; left out")
        }
        if let icc = metadata.icc, icc.count > Self.profile {
            throw ImageError(.unwritable, reason: "its ICC profile is \(icc.count) bytes; a JPEG holds at most \(Self.profile) "
                + "(255 segments); write the pixels as sRGB with profile=srgb, or save as PNG, WebP or TIFF")
        }
        return (fitted, warnings)
    }
}

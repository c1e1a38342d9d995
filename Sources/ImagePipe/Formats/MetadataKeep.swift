/// Which of the input's metadata `save` writes into the output: none, or any of EXIF, ICC and
/// XMP, written as a comma list (`keep=exif,icc`) in any order.
public enum MetadataKeep: String, CaseIterable, Hashable, Sendable {
    /// Nothing but what the colors need: a profile only when the pixels are not sRGB (as sharp
    /// strips by default, keeping only the profile it must).
    case none
    /// The EXIF block, its orientation set to 1 when the pixels were turned on load.
    case exif
    /// The ICC profile (as `profile=keep`).
    case icc
    /// The XMP packet.
    case xmp
    case exifAndICC = "exif,icc"
    case exifAndXMP = "exif,xmp"
    case iccAndXMP = "icc,xmp"
    /// EXIF, ICC and XMP.
    case all

    var keepsEXIF: Bool { rawValue.contains("exif") || self == .all }
    var keepsICC: Bool { rawValue.contains("icc") || self == .all }
    var keepsXMP: Bool { rawValue.contains("xmp") || self == .all }
}

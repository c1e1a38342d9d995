/// Which of the input's metadata `save` writes into the output.
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
    /// EXIF, ICC and XMP.
    case all

    var keepsEXIF: Bool { self == .exif || self == .all }
    var keepsICC: Bool { self == .icc || self == .all }
    var keepsXMP: Bool { self == .xmp || self == .all }
}

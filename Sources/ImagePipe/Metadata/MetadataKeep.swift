/// Which of the input's metadata `save` writes into the output: none, or any of EXIF, ICC and
/// XMP, written as a comma list (`keep=exif,icc`) in any order; `-gps` in a list leaves the GPS
/// position out of what it keeps (`keep=all,-gps`, exiftool's `-gps:all=`).
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
    /// The same, without the GPS position: EXIF's GPS directory, and an XMP packet that holds one.
    case exifWithoutGPS = "exif,-gps"
    case exifAndICCWithoutGPS = "exif,icc,-gps"
    case exifAndXMPWithoutGPS = "exif,xmp,-gps"
    case allWithoutGPS = "all,-gps"
    case xmpWithoutGPS = "xmp,-gps"
    case iccAndXMPWithoutGPS = "icc,xmp,-gps"
    /// The profile alone holds no position: the same as `icc`, taken so that a list written
    /// with `-gps` out of habit is not refused.
    case iccWithoutGPS = "icc,-gps"

    /// The blocks kept, without the exclusions.
    private var kept: Substring { rawValue.split(separator: ",-").first ?? "" }

    var keepsEXIF: Bool { kept.contains("exif") || kept == "all" }
    var keepsICC: Bool { kept.contains("icc") || kept == "all" }
    var keepsXMP: Bool { kept.contains("xmp") || kept == "all" }
    /// Whether the GPS position is left out of what is kept.
    var dropsGPS: Bool { rawValue.hasSuffix(",-gps") }
}

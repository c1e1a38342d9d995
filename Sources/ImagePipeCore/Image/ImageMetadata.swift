/// What a picture carries besides its pixels: color profiles and its EXIF and XMP blocks.
///
/// The profile of the pixels and the profile of the file are kept apart: a picture converted to
/// sRGB on load (the default) has pixels in sRGB (`iccProfile` nil) but still knows the profile
/// it came with (`sourceProfile`), which `save profile=keep` converts back to and embeds.
public struct ImageMetadata: Hashable, Sendable {
    /// The ICC profile the pixels are in; nil for sRGB, which is what untagged pictures are taken to be.
    public var iccProfile: [UInt8]?
    /// The ICC profile the file held, as read; nil when it had none.
    public var sourceProfile: [UInt8]?
    /// The TIFF-structured EXIF block (starting `II*\0` or `MM\0*`), without JPEG's `Exif\0\0`.
    public var exif: [UInt8]?
    /// The XMP packet.
    public var xmp: [UInt8]?
    /// Whether the pixels were turned by the EXIF orientation: written EXIF then says 1.
    public var orientationApplied: Bool
    /// Whether every pixel is gray (R = G = B) because the last stage that changed the picture
    /// made it so (`grayscale`, `threshold`: `Transform.makesGray`): JPEG is then written with
    /// one component.
    public var grayOnly = false
    /// Whether the file held an ICC profile larger than `ICCProfile.maxBytes`, dropped when it
    /// was read (the pixels are then taken as sRGB, and a load warns).
    public var profileTooLarge = false
    /// What the decoder warned of and read through, below the `load fail=` level that would
    /// refuse it (stray bytes between a JPEG's header segments, an empty PNG eXIf chunk): the load
    /// tells the run, and drops them from the picture.
    public var decodeWarnings: [String] = []

    public init(iccProfile: [UInt8]? = nil, sourceProfile: [UInt8]? = nil, exif: [UInt8]? = nil, xmp: [UInt8]? = nil,
                orientationApplied: Bool = false) {
        self.iccProfile = iccProfile
        self.sourceProfile = sourceProfile
        self.exif = exif
        self.xmp = xmp
        self.orientationApplied = orientationApplied
    }

    /// Whether there is nothing to carry.
    public var isEmpty: Bool { iccProfile == nil && sourceProfile == nil && exif == nil && xmp == nil }
}

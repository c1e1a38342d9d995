/// What loading does with a picture's embedded color profile.
public enum ColorHandling: String, CaseIterable, Hashable, Sendable {
    /// Convert the pixels to sRGB (as sharp and browsers show them); the profile is remembered.
    case srgb
    /// Leave RGB pixels in their profile and carry it to `save` (CMYK and grey pictures are still
    /// converted: pictures are held as RGB).
    case keep
}

import CLCMS2

/// How colors outside the target's gamut are brought in (the ICC rendering intents).
///
/// Perceptual is the default, as sharp converts (libvips' own default is relative): for the
/// matrix profiles of cameras and phones (Display P3, Adobe RGB) the two are the same, since
/// such profiles have no perceptual table; for printer (CMYK) profiles perceptual compresses the
/// gamut smoothly where relative clips.
public enum RenderingIntent: String, CaseIterable, Hashable, Sendable {
    case perceptual, relative, saturation, absolute

    var lcmsValue: UInt32 {
        switch self {
        case .perceptual: UInt32(INTENT_PERCEPTUAL)
        case .relative: UInt32(INTENT_RELATIVE_COLORIMETRIC)
        case .saturation: UInt32(INTENT_SATURATION)
        case .absolute: UInt32(INTENT_ABSOLUTE_COLORIMETRIC)
        }
    }
}

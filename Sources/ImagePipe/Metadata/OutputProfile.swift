/// The color profile `save` writes the pixels in and embeds.
public enum OutputProfile: Hashable, Sendable {
    /// What the colors need: the pixels' own profile when it is not sRGB (after `load
    /// color=keep`), else none (sRGB is what untagged pictures are taken to be).
    case auto
    /// sRGB pixels, with an sRGB profile embedded.
    case srgb
    /// The input's own profile: the pixels converted back to it if they were converted on load,
    /// and it embedded (sharp's `keepIccProfile`). Without one, as `auto`.
    case keep
    /// sRGB pixels and no profile.
    case none
    /// The pixels converted to the RGB profile in this file, which is embedded (libvips'
    /// `icc_transform`, sharp's `withIccProfile`).
    case file(String)

    /// The parameter's words; anything else is a path.
    static let words = ["auto", "srgb", "keep", "none"]

    init(text: String) {
        switch text {
        case "auto": self = .auto
        case "srgb": self = .srgb
        case "keep": self = .keep
        case "none": self = .none
        default: self = .file(text)
        }
    }

    var text: String {
        switch self {
        case .auto: "auto"
        case .srgb: "srgb"
        case .keep: "keep"
        case .none: "none"
        case let .file(path): path
        }
    }
}

import ImagePipe

/// The formats an IIIF Image API request may end in: those the service makes, and those the
/// specification names that it does not (501, a valid request not implemented).
enum IIIFFormat: String, Sendable, CaseIterable {
    case jpg, png, webp, gif, tif

    /// The specification's other formats: valid requests this service does not make.
    static let notMade: Set<String> = ["jp2", "pdf"]

    init(parsing text: String) throws(ServeError) {
        guard let format = IIIFFormat(rawValue: text) else {
            if Self.notMade.contains(text) { throw ServeError(501, "format '\(text)' is not made here; made: jpg, png, webp, gif, tif") }
            throw ServeError(400, "format '\(text)' is not one of jpg, png, webp, gif, tif")
        }
        self = format
    }

    var imageFormat: ImageFormat {
        switch self {
        case .jpg: .jpeg
        case .png: .png
        case .webp: .webp
        case .gif: .gif
        case .tif: .tiff
        }
    }

    var mediaType: String {
        switch self {
        case .jpg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .tif: "image/tiff"
        }
    }

    /// Whether the format holds transparency: what a rotation by an angle uncovers is
    /// transparent in it, else white.
    var holdsAlpha: Bool { self != .jpg }
}

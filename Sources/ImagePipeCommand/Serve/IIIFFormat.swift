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

    /// The format the extension names (`jpg` is JPEG, `tif` TIFF).
    var imageFormat: ImageFormat { ImageFormat(outputName: rawValue)! }

    /// The media type the format's codec declares (each made format has one).
    var mediaType: String { imageFormat.mediaType ?? "application/octet-stream" }

    /// Whether the format holds transparency: what a rotation by an angle uncovers is
    /// transparent in it, else white.
    var holdsAlpha: Bool { imageFormat.supportsAlpha }
}

/// The quality of an IIIF Image API request: the picture's color as it is (`default`, `color`),
/// in grays, or in black and white only.
enum IIIFQuality: String, Sendable, CaseIterable {
    case `default`, color, gray, bitonal

    init(parsing text: String) throws(ServeError) {
        guard let quality = IIIFQuality(rawValue: text) else {
            throw ServeError(400, "quality '\(text)' is not one of default, color, gray, bitonal")
        }
        self = quality
    }
}

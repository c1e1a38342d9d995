import ImagePipe

/// An image's information document (`info.json`) of the IIIF Image API 3.0, at level 2 and
/// what this service makes beyond it.
struct IIIFInfo: Sendable {
    /// The image service's URI: `http://HOST/iiif/3/{escaped identifier}`.
    let id: String
    /// The picture's size as served (after its EXIF orientation).
    let size: Size

    /// The side of the tiles offered: 512, as libvips' dzsave and most IIIF viewers' defaults.
    static let tileSide = 512
    /// The smallest side of a size offered.
    static let smallestSide = 32

    static let context = "http://iiif.io/api/image/3/context.json"
    static let profileURI = "http://iiif.io/api/image/3/level2.json"
    /// Beyond level 2's formats (jpg, png), qualities (default, color) and features.
    static let extraFormats = ["webp", "gif", "tif"]
    static let extraQualities = ["gray", "bitonal"]
    static let extraFeatures = ["canonicalLinkHeader", "mirroring", "profileLinkHeader", "rotationArbitrary", "sizeUpscaling"]

    /// The power-of-two reductions of the picture, halving until a side would fall under
    /// `smallestSide`, smallest first: a JPEG's first three (1/2, 1/4, 1/8) are decoded so in
    /// the DCT, and smaller ones are made from the 1/8 decode.
    var reductions: [Int] {
        var factors: [Int] = []
        var factor = 2
        while Swift.min((size.width + factor - 1) / factor, (size.height + factor - 1) / factor) >= Self.smallestSide {
            factors.append(factor)
            factor *= 2
        }
        return factors.reversed()
    }

    /// The scale factors of the tiles: from 1 until the whole picture fits in one tile.
    var scaleFactors: [Int] {
        var factors = [1]
        while Swift.max(size.width, size.height) > Self.tileSide * factors.last! { factors.append(factors.last! * 2) }
        return factors
    }

    var json: JSONValue {
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        func number(_ value: Int) -> JSONValue { .number(Double(value)) }
        let sizes = reductions.map { factor in
            JSONValue.object([("width", number((size.width + factor - 1) / factor)), ("height", number((size.height + factor - 1) / factor))])
        }
        return .object([
            ("@context", .string(Self.context)),
            ("id", .string(id)),
            ("type", .string("ImageService3")),
            ("protocol", .string("http://iiif.io/api/image")),
            ("profile", .string("level2")),
            ("width", number(size.width)),
            ("height", number(size.height)),
            ("sizes", .array(sizes + [.object([("width", number(size.width)), ("height", number(size.height))])])),
            ("tiles", .array([.object([("width", number(Self.tileSide)), ("height", number(Self.tileSide)),
                                       ("scaleFactors", .array(scaleFactors.map(number)))])])),
            ("extraFormats", strings(Self.extraFormats)),
            ("extraQualities", strings(Self.extraQualities)),
            ("extraFeatures", strings(Self.extraFeatures)),
        ])
    }
}

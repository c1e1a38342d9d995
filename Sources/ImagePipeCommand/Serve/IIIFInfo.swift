import ImagePipe

/// An image's information document (`info.json`) of the IIIF Image API 2.1 or 3.0, at level 2
/// and what this service makes beyond it. Both versions offer the same sizes and tiles; they
/// name the fields, the compliance and what lies beyond it differently.
struct IIIFInfo: Sendable {
    /// The image service's URI: `http://HOST/iiif/{2,3}/{escaped identifier}`.
    let id: String
    /// The picture's size as served (after its EXIF orientation).
    let size: Size
    /// The sizes the decoder gives directly below the full one (`SourceDescription.reducedSizes`).
    let decodedSizes: [Size]
    let version: IIIFVersion

    /// The side of the tiles offered: 512, as libvips' dzsave and most IIIF viewers' defaults.
    static let tileSide = 512
    /// The smallest side of a size offered.
    static let smallestSide = 32

    /// Beyond level 2's formats (jpg, png), qualities (3.0: default, color) and features.
    static let extraFormats = ["webp", "gif", "tif"]
    static let extraQualities = ["gray", "bitonal"]
    static let extraFeatures = ["canonicalLinkHeader", "mirroring", "profileLinkHeader", "rotationArbitrary", "sizeUpscaling"]
    /// 2.1's features beyond its level 2 (whose `!w,h`, `w,h`, `pct:`, quarter turns, redirect,
    /// CORS and JSON-LD are made too); its region `square` is optional at every level, and
    /// `sizeAboveFull` is 3.0's `sizeUpscaling`, without `^`.
    static let supportsBeyondLevel2 = ["canonicalLinkHeader", "mirroring", "profileLinkHeader", "regionSquare", "rotationArbitrary",
                                       "sizeAboveFull"]

    /// The sizes offered, smallest first: each halving of the picture until a side would fall
    /// under `smallestSide`, then the full size. Where the decoder gives a size directly for a
    /// halving (a JPEG's 1/2, 1/4 and 1/8 in the DCT; a pyramid's level, which its writer may have
    /// rounded otherwise: `ImageHeader.levelRoundingSlack`) that size is offered, so a viewer
    /// asking for it reads only it.
    var sizes: [Size] {
        var halvings: [Size] = []
        var factor = 2, halved = size.reduced(by: 2)
        while halved.shorterSide >= Self.smallestSide {
            let slack = ImageHeader.levelRoundingSlack
            halvings.append(decodedSizes.first { abs($0.width - halved.width) <= slack && abs($0.height - halved.height) <= slack } ?? halved)
            factor *= 2
            halved = size.reduced(by: factor)
        }
        return halvings.reversed() + [size]
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
        let sizes = sizes.map { JSONValue.object([("width", number($0.width)), ("height", number($0.height))]) }
        let offered: [(String, JSONValue)] = [
            ("width", number(size.width)),
            ("height", number(size.height)),
            ("sizes", .array(sizes)),
            ("tiles", .array([.object([("width", number(Self.tileSide)), ("height", number(Self.tileSide)),
                                       ("scaleFactors", .array(scaleFactors.map(number)))])])),
        ]
        switch version {
        case .v2:
            // The profile: the compliance document, then every format and quality made (the
            // fields clients read to offer them) and the features beyond level 2.
            let made: JSONValue = .object([("formats", strings(IIIFFormat.allCases.map(\.rawValue))),
                                           ("qualities", strings(IIIFQuality.allCases.map(\.rawValue))),
                                           ("supports", strings(Self.supportsBeyondLevel2))])
            return .object([
                ("@context", .string(version.context)),
                ("@id", .string(id)),
                ("protocol", .string("http://iiif.io/api/image")),
                ("profile", .array([.string(version.profileURI), made])),
            ] + offered)
        case .v3:
            return .object([
                ("@context", .string(version.context)),
                ("id", .string(id)),
                ("type", .string("ImageService3")),
                ("protocol", .string("http://iiif.io/api/image")),
                ("profile", .string("level2")),
            ] + offered + [
                ("extraFormats", strings(Self.extraFormats)),
                ("extraQualities", strings(Self.extraQualities)),
                ("extraFeatures", strings(Self.extraFeatures)),
            ])
        }
    }
}

/// What a source will produce, known from the file header before any pixel is decoded.
public struct SourceDescription: Sendable {
    /// The size of a full decode (after EXIF orientation, when the source applies it).
    public var size: Size
    /// The file's header, when the source read one.
    public var header: ImageHeader?
    /// The EXIF orientation the decode applies (1: the picture as stored).
    public var orientation: Int

    public init(size: Size, header: ImageHeader? = nil, orientation: Int = 1) {
        self.size = size
        self.header = header
        self.orientation = orientation
    }

    /// Whether the format's decoder can decode reduced (`CodecCapabilities.reducedDecode`).
    var decodesReduced: Bool { header.map { Codecs.of($0.format).capabilities.reducedDecode } ?? false }

    /// Whether the format's decoder decodes only a region (`CodecCapabilities.regions`,
    /// `Plan.decodeRegion`).
    public var decodesRegions: Bool { header.map { Codecs.of($0.format).capabilities.regions } ?? false }

    /// Whether the decode turns the stored picture a quarter (EXIF orientation 5–8, applied).
    public var turned: Bool { (5...8).contains(orientation) }

    /// The size a decode allowed to shrink to no smaller than `atLeast` gives: the smallest DCT
    /// scaling of a JPEG, or pyramid level of a TIFF, that is still that large, else the full size.
    public func reducedSize(atLeast target: Size) -> Size {
        guard decodesReduced, let header else { return size }
        let reduced = Codecs.of(header.format).reducedSize(of: header, atLeast: turned ? target.transposed : target)
        return turned ? reduced.transposed : reduced
    }

    /// The sizes the decoder gives directly below the full one, upright, largest first
    /// (`Codec.reducedSizes`): a service's fast sizes.
    public var reducedSizes: [Size] {
        guard decodesReduced, let header else { return [] }
        return Codecs.of(header.format).reducedSizes(of: header).map { turned ? $0.transposed : $0 }
    }

    /// The DCT scaling (2, 4 or 8) that gave a decode of `decoded` size, or nil for a full one.
    public func reduction(ofDecoded decoded: Size) -> Int? {
        guard decoded != size, decodesReduced, let header else { return nil }
        let stored = turned ? decoded.transposed : decoded
        return [2, 4, 8].first { d in
            header.storedSize.reduced(by: d) == stored
        }
    }

    /// How the full picture's pixels map onto a decode of `decoded` size: exact for a JPEG DCT
    /// reduction, else the ratio of the sizes.
    public func mapping(toDecoded decoded: Size) -> PixelMapping {
        if decoded == size { return .identity }
        if let denominator = reduction(ofDecoded: decoded) {
            return .dctReduction(denominator: denominator, fullSize: size, reducedSize: decoded, orientation: orientation)
        }
        return PixelMapping(scaleX: Double(decoded.width) / Double(size.width), scaleY: Double(decoded.height) / Double(size.height))
    }
}

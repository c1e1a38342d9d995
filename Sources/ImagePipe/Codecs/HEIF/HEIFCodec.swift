/// HEIC: read through libheif (HEVC through libde265), not written (`.avif` is the same
/// container with AV1).
struct HEIFCodec: Codec {
    var format: SourceFormat { .heif }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libheif (libde265)", writer: nil, wholeFile: true, metadata: ["exif", "icc", "xmp"])
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try HEIFDecoder.header(of: bytes, format: format, path: path)
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try HEIFDecoder.decode(bytes, format: format, options: options, path: path)
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata { try HEIFDecoder.metadata(of: bytes, format: format, path: path) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { (try? HEIFDecoder.codingFacts(of: bytes, format: format, path: nil)) ?? CodingFacts() }
}

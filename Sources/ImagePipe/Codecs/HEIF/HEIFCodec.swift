import CHeif

/// HEIC: read through libheif (HEVC through libde265), not written (`.avif` is the same
/// container with AV1).
struct HEIFCodec: Codec {
    static let compression = HEIFCompression(libheif: heif_compression_HEVC, name: "HEVC", plugin: "libheif-plugin-libde265")

    var format: ImageFormat { .heif }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "libheif (libde265)", writer: nil, fileExtensions: ["heic", "heif"], mediaType: "image/heic", wholeFile: true,
                          metadata: ["exif", "icc", "xmp"])
    }

    var whyNotWritten: String? { "HEIC is read but not written (its HEVC encoder, x265, is not used); write .avif, the same container with AV1" }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader {
        try HEIFDecoder.withPrimary(bytes, format: format, compression: Self.compression, path: path) { handle in
            ImageHeader(storedSize: try HEIFDecoder.checked(HEIFDecoder.statedSize(of: handle), format: format, path: path), format: format)
        }
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image {
        try HEIFDecoder.withPrimary(bytes, format: format, compression: Self.compression, path: path) { handle in
            try HEIFDecoder.checkBeforeDecoding(handle, bytes: bytes, format: format, options: options, path: path)
            return try HEIFDecoder.decode(handle, expandingLimitedRangeGray: false, options: options, path: path)
        }
    }

    func metadata(of bytes: [UInt8], path: String?) throws -> ImageMetadata {
        try HEIFDecoder.withPrimary(bytes, format: format, compression: Self.compression, path: path, HEIFDecoder.metadata(of:))
    }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts {
        (try? HEIFDecoder.withPrimary(bytes, format: format, compression: Self.compression, path: nil, HEIFDecoder.codingFacts(of:))) ?? CodingFacts()
    }
}

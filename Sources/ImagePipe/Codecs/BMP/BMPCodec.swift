/// BMP, read and written by ImagePipe's own code (`BMPDecoder`, `BMPEncoder`).
struct BMPCodec: Codec {
    var format: ImageFormat { .bmp }
    var capabilities: CodecCapabilities {
        CodecCapabilities(reader: "ImagePipe", writer: "ImagePipe", fileExtensions: ["bmp"], mediaType: "image/bmp", wholeFile: true, metadata: ["icc"])
    }

    func header(of bytes: [UInt8], options: LoadOptions, path: String?) throws -> ImageHeader { try BMPDecoder.header(of: bytes, path: path) }

    /// The headers and palette lie in the first bytes; the rest is not read here.
    func headerReader(file: OpenedFile?, options: LoadOptions, path: String) throws -> any HeaderReader {
        PrefixHeaderReader(limit: BMPHeader.prefixLength, wantsMore: { $0.count < BMPHeader.prefixLength },
                           header: { try BMPDecoder.header(of: $0, path: path) })
    }

    func decode(_ bytes: [UInt8], options: LoadOptions, path: String?) throws -> Image { try BMPDecoder.decode(bytes, options: options, path: path) }

    func codingFacts(of bytes: [UInt8]) -> CodingFacts { .bmp(bytes) }

    func encode(_ image: Image, options: SaveOptions, metadata: OutputMetadata, cancellation: Cancellation?) throws -> [UInt8] {
        try BMPEncoder.encode(image)
    }
}

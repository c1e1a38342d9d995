/// A WebP's RIFF chunks, walked by their 8-byte headers alone (the image data is stepped over,
/// never read): the picture's size, alpha and animation, before libwebp sees any of it. The
/// metadata, which a still WebP keeps after its image data, is walked to the same way
/// (`MetadataScanner.walk`).
struct WebPChunks {
    struct Chunk {
        let type: String
        /// Where the chunk's data lies in the file (cut short where the file is).
        let data: Range<Int>
    }

    private(set) var chunks: [Chunk] = []
    /// The picture's size: the extended header's canvas, or the image data's own header.
    private(set) var size: Size?
    private(set) var hasAlpha = false
    /// The extended header announces an animation: only then do its `ANMF` frames count (as
    /// libwebp's still decoder passes over them otherwise, and finds no picture).
    private(set) var animated = false
    /// The `ANMF` chunks, each a frame of an animation.
    private(set) var frameCount = 0
    /// The file's length as its RIFF header states it, when the file is shorter: it is cut.
    private(set) var statedLength: Int?
    /// The type of the chunk the file ends inside, when its data reaches past the end.
    private(set) var cutInside: String?
    let length: Int

    /// More chunks than any picture has (an animation's frames included): a file of nothing but
    /// chunk headers would otherwise be walked a read at a time.
    static let chunkLimit = 1 << 16

    /// Walks `input`, a WebP (its RIFF and WEBP tags already recognized).
    init(_ input: EncodedInput, path: String?) throws(ImageError) {
        let riff = try input.bytes(count: 12, at: 0)
        guard riff.count == 12 else { throw ImageError(.corrupt, path: path, reason: "the WebP data is truncated (no whole RIFF header)") }
        let stated = Self.littleEndian(riff[4..<8]) + 8
        length = input.length
        if stated > length { statedLength = stated }
        let end = min(stated, length)
        var offset = 12
        while offset + 8 <= end {
            guard chunks.count < Self.chunkLimit else {
                throw ImageError(.corrupt, path: path, reason: "the WebP holds more than \(Self.chunkLimit) chunks")
            }
            let header = try input.bytes(count: 8, at: offset)
            let type = String(decoding: header[0..<4], as: UTF8.self), count = Self.littleEndian(header[4..<8])
            let start = offset + 8, stop = min(end, start + count)
            chunks.append(Chunk(type: type, data: start..<stop))
            if start + count > length { cutInside = type }
            try look(at: type, data: { (count: Int) throws(ImageError) in try input.bytes(count: min(count, stop - start), at: start) })
            offset = start + count + (count & 1)
        }
    }

    /// Reads what the picture's own chunks say: the extended header's canvas and flags, or the
    /// size (and, lossless, alpha) in the first bytes of the image data.
    private mutating func look(at type: String, data: (Int) throws(ImageError) -> [UInt8]) throws(ImageError) {
        switch type {
        case "VP8X":
            // Flags (alpha 0x10, animation 0x02), three reserved bytes, canvas width-1 and height-1.
            let header = try data(10)
            guard header.count == 10 else { return }
            hasAlpha = header[0] & 0x10 != 0
            animated = header[0] & 0x02 != 0
            size = Size(Self.littleEndian(header[4..<7]) + 1, Self.littleEndian(header[7..<10]) + 1)
        case "ANMF":
            frameCount += 1
        case "VP8 " where size == nil:
            // A key frame's tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
            let header = try data(10)
            guard header.count == 10, header[3] == 0x9D, header[4] == 0x01, header[5] == 0x2A else { return }
            size = Size(Self.littleEndian(header[6..<8]) & 0x3FFF, Self.littleEndian(header[8..<10]) & 0x3FFF)
        case "VP8L" where size == nil:
            // Signature 0x2f, then width-1 and height-1 in 14 bits each and the alpha bit.
            let header = try data(5)
            guard header.count == 5, header[0] == 0x2F else { return }
            let bits = Self.littleEndian(header[1..<5])
            size = Size(bits & 0x3FFF + 1, bits >> 14 & 0x3FFF + 1)
            hasAlpha = bits >> 28 & 1 != 0
        default:
            break
        }
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}

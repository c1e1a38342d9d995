extension ExifOrientation {
    /// The orientation of a PNG held in memory (or the start of one): its eXIf chunk before its
    /// image data. A JPEG's comes with its header (`JPEGHeader`), a TIFF's from libtiff.
    static func parse(png bytes: [UInt8]) -> Int {
        guard let chunk = pngChunks(bytes).first(where: { $0.type == "eXIf" }) else { return 1 }
        return parseExifBlock(bytes, chunk.data)
    }

    /// A PNG's whole chunks before its first IDAT (the eXIf chunk counts only there, as
    /// browsers take it), as far as `bytes` holds them.
    static func pngChunks(_ bytes: [UInt8]) -> [(type: String, data: Range<Int>)] {
        var chunks: [(type: String, data: Range<Int>)] = []
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let start = offset + 8
            guard type != "IDAT", type != "IEND", length <= bytes.count - start else { break }
            chunks.append((type, start..<start + length))
            offset = start + length + 4
        }
        return chunks
    }
}

import CDeflate

/// The header of a PNG: its IHDR chunk, which the format requires first, right after the
/// signature, so 33 bytes tell the size.
///
/// gdk-pixbuf's PNG loader reports the size only once libpng has read every chunk before the
/// pixel data: a 32 MB text chunk there made `explain` take seconds, and a first chunk claiming
/// 1 GiB was only "a header that cannot be read". Here nothing past IHDR is read, and a wrong
/// first chunk is named with the length it claims.
struct PNGHeader {
    var storedSize: Size
    /// IHDR's color type (4 and 6 carry alpha) and interlace method (1: Adam7).
    var colorType: UInt8
    var interlaced: Bool

    /// The picture's header, given the file's first bytes (`prefix`, up to its first IDAT where
    /// they reach it): an eXIf chunk there is its orientation. The rows stream unless the picture
    /// is interlaced; they are RGBA when it has alpha (an alpha color type, or a tRNS chunk,
    /// which the prefix must reach the image data to rule out).
    func imageHeader(prefix: [UInt8]) -> ImageHeader {
        let chunks = ExifOrientation.pngChunks(prefix)
        let alpha = colorType == 4 || colorType == 6 || chunks.contains { $0.type == "tRNS" }
        // An APNG's frames are its acTL's count; a still picture that is not the animation's
        // first frame is passed over, and the first frame is composed (`PNGDecoder`).
        let animation = Self.reachesImageData(prefix) ? APNGStructure.announcement(chunks: chunks, in: prefix) : nil
        return ImageHeader(storedSize: storedSize, format: .png, orientation: ExifOrientation.parse(png: prefix),
                           frameCount: animation?.frames ?? 1,
                           rowsInOrder: !interlaced && Self.reachesImageData(prefix) && animation?.defaultHidden != true, rowsHaveAlpha: alpha)
    }

    /// How much of a PNG's start a header read takes at most, looking for the chunks before the
    /// image data (eXIf, tRNS).
    static let prefixLimit = 1 << 20

    /// Whether `prefix`, a PNG's start, is all a header read needs: it reaches the first IDAT,
    /// the limit, or a chunk too large to read within it.
    static func prefixEnds(_ prefix: [UInt8]) -> Bool {
        guard prefix.count < prefixLimit else { return true }
        guard let next = chunkAfterWalk(prefix) else { return false }
        return next.isImageData || next.length >= prefixLimit
    }

    /// Whether `prefix` holds every chunk before the image data.
    static func reachesImageData(_ prefix: [UInt8]) -> Bool { chunkAfterWalk(prefix)?.isImageData ?? false }

    /// The chunk where the walk of `prefix`'s whole chunks before the image data stopped: the
    /// image data (or the end), or one not all there; nil when its header is not.
    private static func chunkAfterWalk(_ prefix: [UInt8]) -> (isImageData: Bool, length: Int)? {
        let next = ExifOrientation.pngChunks(prefix).last.map { $0.data.upperBound + 4 } ?? 8
        guard next + 8 <= prefix.count else { return nil }
        let type = prefix[next + 4..<next + 8]
        return (type.elementsEqual("IDAT".utf8) || type.elementsEqual("IEND".utf8), prefix[next..<next + 4].reduce(0) { $0 << 8 | Int($1) })
    }

    /// The signature and IHDR: 8 + 4 (length) + 4 (type) + 13 (fields) + 4 (CRC).
    static let length = 33

    /// The header of a whole file, or of its first bytes once no more will come.
    static func complete(_ bytes: some Collection<UInt8>, path: String?) throws(ImageError) -> PNGHeader {
        guard let header = try read(bytes, path: path) else {
            throw ImageError(.corrupt, path: path, reason: "starts like a PNG but ends within its header")
        }
        return header
    }

    /// The header from the file's first bytes; nil when fewer than `length` bytes were given.
    static func read(_ bytes: some Collection<UInt8>, path: String?) throws(ImageError) -> PNGHeader? {
        let b = Array(bytes.prefix(length))
        guard b.count >= length else { return nil }
        func number(_ offset: Int) -> Int { b[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        func corrupt(_ reason: String) -> ImageError {
            ImageError(.corrupt, path: path, reason: "starts like a PNG but its header cannot be read: \(reason)")
        }
        let claimed = number(8)
        let type = String(decoding: b[12..<16].map { (0x21...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        guard type == "IHDR" else { throw corrupt("its first chunk is '\(type)', claiming \(claimed) bytes, where IHDR must come first") }
        guard claimed == 13 else { throw corrupt("its IHDR chunk claims \(claimed) bytes, where it has 13") }
        guard b[12..<29].withUnsafeBytes({ libdeflate_crc32(0, $0.baseAddress, $0.count) }) == UInt32(number(29)) else { throw corrupt("its IHDR chunk fails its CRC check") }
        let width = number(16), height = number(20)
        // The format's own bounds: 1 to 2^31 - 1 on each side.
        guard (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height) else {
            throw corrupt("its IHDR chunk gives a size of \(width)x\(height)")
        }
        // The bit depths each color type allows (PNG 11.2.2): libspng refuses others when it
        // decodes; refused here too, so that `info` does not report what no decoder reads.
        let depths: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard let allowed = depths[b[25]], allowed.contains(b[24]) else {
            throw corrupt("its IHDR chunk gives color type \(b[25]) with \(b[24]) bits per sample")
        }
        guard b[26] == 0, b[27] == 0, b[28] <= 1 else {
            throw corrupt("its IHDR chunk gives compression method \(b[26]), filter method \(b[27]) and interlace method \(b[28]), where each is 0 (interlace 0 or 1)")
        }
        return PNGHeader(storedSize: Size(width, height), colorType: b[25], interlaced: b[28] != 0)
    }
}

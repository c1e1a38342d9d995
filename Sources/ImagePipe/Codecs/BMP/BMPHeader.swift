/// What a BMP's headers say: the file header (where the pixels start), one of the info headers
/// (OS/2 1.x's 12 bytes, OS/2 2.x's 16 or 64, Windows' 40, 52, 56, 108 or 124), the bit masks,
/// the palette and an embedded color profile. Every field that sizes or places something is
/// checked against the file before it is used; nothing is allocated from the header's numbers
/// but the palette (at most 256 entries).
struct BMPHeader {
    enum Compression: Int {
        case rgb = 0, runLength8 = 1, runLength4 = 2, bitFields = 3, jpeg = 4, png = 5, alphaBitFields = 6
        /// OS/2 2.x's run-length encoding of 24-bit pixels (its code 4, which Windows gives JPEG).
        case runLength24 = 1004
    }

    var size: Size
    /// Rows stored top first (a negative height).
    var topDown: Bool
    var bitsPerPixel: Int
    var compression: Compression
    /// Where the pixel data starts.
    var dataOffset: Int
    /// The pixel data's size the header states (0: not stated).
    var statedDataSize: Int
    /// Red, green, blue and alpha masks of 16- and 32-bit pixels; alpha 0 when there is none.
    var masks: [UInt32]
    /// RGB triples of the palette's entries (1- to 8-bit pixels), at most 2^bits of them.
    var palette: [UInt8]
    /// An ICC profile the header embeds (version 5 headers).
    var profile: [UInt8]?

    var paletteCount: Int { palette.count / 3 }
    var isRunLength: Bool { compression == .runLength8 || compression == .runLength4 || compression == .runLength24 }
    /// Bytes of one stored row of uncompressed pixels: padded to 4 bytes.
    var rowBytes: Int { ((size.width * bitsPerPixel + 31) / 32) * 4 }

    static let infoSizes: Set<Int> = [12, 16, 40, 52, 56, 64, 108, 124]
    /// The bytes the header reader takes: any BMP's headers, masks and palette (a file's first chunk).
    static let prefixLength = 1 << 16

    /// The headers at the start of `b` (the whole file, or at least `prefixLength` bytes of it).
    static func read(_ b: [UInt8], path: String?) throws(ImageError) -> BMPHeader {
        func corrupt(_ reason: String) -> ImageError { ImageError(.corrupt, path: path, reason: "starts like a BMP but \(reason)") }
        func unsupported(_ what: String) -> ImageError { ImageError(.unsupported, path: path, reason: "a BMP \(what), which ImagePipe does not read") }
        func little(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(b[at + $1]) << (8 * $1) } }
        guard b.count >= 18 else { throw corrupt("ends within its file header") }
        let infoSize = little(14, 4)
        guard infoSizes.contains(infoSize) else { throw corrupt("its header is invalid (an info header of \(infoSize) bytes)") }
        guard b.count >= 14 + infoSize else { throw corrupt("ends within its \(infoSize)-byte info header") }
        let width: Int, height: Int, planes: Int, bits: Int
        if infoSize == 12 {
            (width, height, planes, bits) = (little(18, 2), Int(Int16(truncatingIfNeeded: little(20, 2))), little(22, 2), little(24, 2))
        } else {
            (width, height) = (Int(Int32(truncatingIfNeeded: little(18, 4))), Int(Int32(truncatingIfNeeded: little(22, 4))))
            (planes, bits) = (little(26, 2), little(28, 2))
        }
        guard planes == 1 else { throw corrupt("its header gives \(planes) planes (a BMP has 1)") }
        guard width > 0, height != 0, height != Int(Int32.min) else { throw corrupt("its header gives a size of \(width)x\(height)") }
        let code = infoSize >= 20 ? little(30, 4) : 0
        // OS/2 2.x gives 3 to Huffman 1D and 4 to RLE24, where Windows means bit fields and JPEG.
        let os2 = infoSize == 16 || infoSize == 64
        let compression: Compression
        switch (code, os2) {
        case (3, true): throw unsupported("with OS/2 Huffman compression")
        case (4, true): compression = .runLength24
        default:
            guard let known = Compression(rawValue: code) else { throw corrupt("its header gives compression \(code)") }
            compression = known
        }
        let topDown = height < 0
        let size = Size(width, abs(height))
        let stated = little(10, 4)
        let statedDataSize = infoSize >= 40 ? little(34, 4) : 0
        if compression == .jpeg || compression == .png {
            // A JPEG or PNG stream as the pixel data (for printers), read by that format's decoder.
            guard stated >= 14 + infoSize, stated < b.count else { throw corrupt("its embedded picture is not within the file") }
            return BMPHeader(size: size, topDown: topDown, bitsPerPixel: bits, compression: compression, dataOffset: stated,
                             statedDataSize: statedDataSize, masks: [], palette: [], profile: nil)
        }
        let allowed: Set<Int> = switch compression {
        case .runLength8: [8]
        case .runLength4: [4]
        case .runLength24: [24]
        case .bitFields, .alphaBitFields: [16, 32]
        default: [1, 2, 4, 8, 16, 24, 32]
        }
        if compression == .rgb, bits == 64 { throw unsupported("with 64 bits per pixel") }
        guard allowed.contains(bits) else { throw corrupt("its header gives \(bits) bits per pixel with compression \(code)") }
        // Run-length data is drawn from the bottom row up; it has no top-down form.
        if topDown, compression == .runLength8 || compression == .runLength4 || compression == .runLength24 {
            throw corrupt("its run-length data is stored top down, which BMP does not allow")
        }

        // Masks: in the header from the 52-byte version on, else after a 40-byte header when the
        // compression says bit fields.
        var after = 14 + infoSize
        var masks: [UInt32] = []
        switch (compression, bits) {
        case (.bitFields, _), (.alphaBitFields, _):
            let count = compression == .alphaBitFields || infoSize >= 56 ? 4 : 3
            let start = infoSize >= 52 ? 54 : after
            guard b.count >= start + 4 * count else { throw corrupt("ends within its bit masks") }
            masks = (0..<count).map { UInt32(little(start + 4 * $0, 4)) } + (count == 3 ? [0] : [])
            if infoSize < 52 { after += 4 * count }
        case (_, 16): masks = [0x7C00, 0x03E0, 0x001F, 0]
        case (_, 32):
            // A plain 32-bit picture has no alpha, unless a version 3 or later header gives its mask.
            let alpha = infoSize >= 56 ? UInt32(little(66, 4)) : 0
            masks = [0xFF_0000, 0xFF00, 0xFF, alpha & 0xFF00_0000 == alpha ? alpha : 0]
        default: break
        }
        if !masks.isEmpty {
            let widest: UInt64 = bits == 16 ? 0xFFFF : 0xFFFF_FFFF
            var seen: UInt32 = 0
            for mask in masks where mask != 0 {
                let shifted = mask >> mask.trailingZeroBitCount
                // One run of bits each, within the pixel, and no bit in two masks.
                guard UInt64(mask) <= widest, shifted & (shifted &+ 1) == 0, seen & mask == 0 else {
                    throw corrupt("its bit masks are invalid (\(masks.map { "0x" + String($0, radix: 16) }.joined(separator: ", ")))")
                }
                seen |= mask
            }
        }

        // The palette: 3-byte entries after OS/2 1.x's header, 4-byte ones after the others. The
        // count the header states must fit in the file; of those, the first 2^bits are used, and
        // no more than fit before the pixel data (OS/2 1.x states no count: the space says it).
        let entryBytes = infoSize == 12 ? 3 : 4
        let statedColors = infoSize >= 40 ? little(46, 4) : 0
        if statedColors > 0, after + statedColors * entryBytes > (stated > 0 ? stated : b.count) {
            throw corrupt("its header is invalid (a palette of \(statedColors) colors, more than fit before its pixel data)")
        }
        var paletteEntries = statedColors > 0 ? statedColors : (bits <= 8 ? 1 << bits : 0)
        if stated > after { paletteEntries = min(paletteEntries, (stated - after) / entryBytes) }
        var palette: [UInt8] = []
        if bits <= 8 {
            let used = min(paletteEntries, 1 << bits, max(0, (b.count - after) / entryBytes))
            palette.reserveCapacity(used * 3)
            for index in 0..<used {
                let at = after + index * entryBytes
                palette += [b[at + 2], b[at + 1], b[at]]
            }
            guard !palette.isEmpty else { throw corrupt("has no palette for its \(bits)-bit pixels") }
        }
        after += paletteEntries * entryBytes
        // A data offset of 0 (some writers leave it) is the end of the headers and palette.
        let dataOffset = stated == 0 ? after : stated
        guard dataOffset >= 14 + infoSize else { throw corrupt("its pixel data starts at byte \(dataOffset), within its headers") }

        // A version 5 header's embedded profile ('MBED'), placed from the info header's start.
        var profile: [UInt8]?
        if infoSize == 124, little(70, 4) == 0x4D42_4544 {
            let start = 14 + little(126, 4), length = little(130, 4)
            if length > 0, start + length <= b.count { profile = Array(b[start..<start + length]) }
        }
        return BMPHeader(size: size, topDown: topDown, bitsPerPixel: bits, compression: compression, dataOffset: dataOffset,
                         statedDataSize: statedDataSize, masks: masks, palette: palette, profile: profile)
    }
}

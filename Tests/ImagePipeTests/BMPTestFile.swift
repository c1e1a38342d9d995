/// A small BMP made the way bmpsuite's generator makes its files: a file header, one of the
/// info header versions, bit masks where that version keeps them, a palette (4- or 3-byte
/// entries), an optional gap, then the pixel data as given (stored rows, or run-length codes).
struct BMPTestFile {
    var width = 4
    var height = 2
    /// 12 (OS/2 1.x), 16 or 64 (OS/2 2.x), 40, 52, 56, 108 or 124.
    var infoSize = 40
    var bits = 24
    var compression = 0
    var topDown = false
    var planes = 1
    /// Red, green, blue (and alpha) masks: in the header from 52 bytes on, else after it.
    var masks: [UInt32] = []
    /// RGB entries.
    var palette: [(UInt8, UInt8, UInt8)] = []
    /// The header's color count (biClrUsed); nil: the palette's length.
    var statedColors: Int?
    /// Unused bytes between the palette and the pixels (bmpsuite's pal8offs).
    var gap = 0
    /// The data offset the file header states; nil: where the pixels are.
    var statedOffset: Int?
    /// A version 5 header's embedded ICC profile.
    var profile: [UInt8] = []
    var data: [UInt8] = []

    /// Stored rows (bottom row first unless `topDown`), each padded to 4 bytes.
    static func rows(_ rows: [[UInt8]]) -> [UInt8] {
        rows.flatMap { $0 + [UInt8](repeating: 0, count: (4 - $0.count % 4) % 4) }
    }

    /// Little-endian bytes of `value`.
    static func little(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    var bytes: [UInt8] {
        let signedHeight = topDown ? -height : height
        var info: [UInt8]
        if infoSize == 12 {
            info = Self.little(12, 4) + Self.little(width, 2)
            info += Self.little(signedHeight, 2) + Self.little(planes, 2) + Self.little(bits, 2)
        } else {
            info = Self.little(infoSize, 4) + Self.little(width, 4) + Self.little(signedHeight, 4)
            info += Self.little(planes, 2) + Self.little(bits, 2) + Self.little(compression, 4) + Self.little(data.count, 4)
            info += Self.little(2835, 4) + Self.little(2835, 4) + Self.little(statedColors ?? palette.count, 4) + Self.little(0, 4)
            if infoSize >= 52 {
                let inHeader: [UInt32] = Array((masks + [0, 0, 0, 0]).prefix(infoSize >= 56 ? 4 : 3))
                info += inHeader.flatMap { Self.little(Int($0), 4) }
            }
            info = Array(info.prefix(infoSize))
            info += [UInt8](repeating: 0, count: infoSize - info.count)
        }
        let outsideMasks = infoSize < 52 ? masks.flatMap { Self.little(Int($0), 4) } : []
        let entries: [UInt8] = palette.flatMap { (entry: (UInt8, UInt8, UInt8)) -> [UInt8] in
            infoSize == 12 ? [entry.2, entry.1, entry.0] : [entry.2, entry.1, entry.0, 0]
        }
        let pixelsAt = 14 + info.count + outsideMasks.count + entries.count + gap
        if infoSize == 124, !profile.isEmpty {
            // 'MBED', the profile placed after the pixels, from the info header's start.
            info.replaceSubrange(56..<60, with: Self.little(0x4D42_4544, 4))
            info.replaceSubrange(112..<116, with: Self.little(pixelsAt + data.count - 14, 4))
            info.replaceSubrange(116..<120, with: Self.little(profile.count, 4))
        }
        var body: [UInt8] = info
        body += outsideMasks
        body += entries
        body += [UInt8](repeating: 0, count: gap)
        body += data
        body += profile
        var file: [UInt8] = [0x42, 0x4D]
        file += Self.little(14 + body.count, 4)
        file += Self.little(0, 4)
        file += Self.little(statedOffset ?? pixelsAt, 4)
        return file + body
    }
}

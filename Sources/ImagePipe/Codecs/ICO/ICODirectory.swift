/// An ICO or CUR file's directory and the entry that is read: the largest, by pixels, then by
/// bits per pixel, as browsers pick it (gdk-pixbuf's loader picked by its own score and could
/// pass over the largest). Each entry holds a PNG (Windows Vista's compressed icons, which
/// gdk-pixbuf's loader refuses) or a bitmap without its file header; the sizes are the entry's
/// own data's (a PNG's IHDR, a bitmap's header, half of whose height is the AND mask), the
/// directory's bytes (0 for 256) only where the data does not say.
struct ICODirectory {
    struct Entry {
        var size: Size
        var bitsPerPixel: Int
        /// The entry's bytes in the file.
        var data: Range<Int>
        var isPNG: Bool
    }

    /// What is decoded: a PNG through libspng, or a bitmap as an ICO of that one entry, for
    /// gdk-pixbuf's loader, which then has no other to choose.
    enum Chosen {
        case png([UInt8])
        case bitmap([UInt8])
    }

    let entries: [Entry]
    private let bytes: [UInt8]

    init(_ bytes: [UInt8], path: String?) throws(ImageError) {
        self.bytes = bytes
        func little(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        guard bytes.count >= 6 else { throw ImageError(.corrupt, path: path, reason: "the ICO's header is cut short") }
        let count = little(4, 2)
        var entries: [Entry] = []
        for index in 0..<count {
            let record = 6 + index * 16
            guard record + 16 <= bytes.count else { break }
            let length = little(record + 8, 4), offset = little(record + 12, 4)
            guard offset >= 6 + count * 16, length > 0, offset < bytes.count, length <= bytes.count - offset else { continue }
            let data = offset..<offset + length
            let listed = Size(bytes[record] == 0 ? 256 : Int(bytes[record]), bytes[record + 1] == 0 ? 256 : Int(bytes[record + 1]))
            if let png = Self.pngFacts(bytes[data]) {
                entries.append(Entry(size: png.size, bitsPerPixel: png.bits, data: data, isPNG: true))
            } else if let bitmap = Self.bitmapFacts(bytes[data]) {
                entries.append(Entry(size: bitmap.size ?? listed, bitsPerPixel: bitmap.bits, data: data, isPNG: false))
            }
        }
        guard !entries.isEmpty else { throw ImageError(.corrupt, path: path, reason: "the ICO holds no picture that can be read (\(count) listed)") }
        self.entries = entries
    }

    /// The entry read: the most pixels, then the most bits per pixel; the first of equals.
    var chosenEntry: Entry {
        entries.dropFirst().reduce(entries[0]) { best, entry in
            (entry.size.pixelCount, entry.bitsPerPixel) > (best.size.pixelCount, best.bitsPerPixel) ? entry : best
        }
    }

    var header: ImageHeader { ImageHeader(storedSize: chosenEntry.size, format: .ico) }

    var chosen: Chosen {
        let entry = chosenEntry
        let data = Array(bytes[entry.data])
        guard !entry.isPNG else { return .png(data) }
        func little(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        // The directory's record of it says the data's own size, as gdk-pixbuf's loader reads
        // both; 256 is written 0.
        let record = [UInt8(truncatingIfNeeded: entry.size.width), UInt8(truncatingIfNeeded: entry.size.height), 0, 0]
            + little(1, 2) + little(entry.bitsPerPixel, 2) + little(data.count, 4) + little(22, 4)
        return .bitmap([0, 0] + Array(bytes[2..<4]) + little(1, 2) + record + data)
    }

    /// A PNG entry's size and bits per pixel (sample bits times samples), from its IHDR.
    private static func pngFacts(_ data: ArraySlice<UInt8>) -> (size: Size, bits: Int)? {
        let start = data.startIndex
        guard data.count >= 29, data[start..<start + 8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return nil }
        func big(_ at: Int) -> Int { data[start + at..<start + at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(data[start + 25])] ?? 1
        return (Size(big(16), big(20)), Int(data[start + 24]) * samples)
    }

    /// A bitmap entry's size (nil when its header gives none) and bits per pixel.
    private static func bitmapFacts(_ data: ArraySlice<UInt8>) -> (size: Size?, bits: Int)? {
        let start = data.startIndex
        guard data.count >= 12 else { return nil }
        func little(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(data[start + at + $1]) << (8 * $1) } }
        let headerSize = little(0, 4)
        if headerSize == 12 { // OS/2's core header: 16-bit sides
            return (Size(little(4, 2), little(6, 2) / 2), little(10, 2))
        }
        guard headerSize >= 40, data.count >= 16 else { return nil }
        let width = Int(Int32(truncatingIfNeeded: little(4, 4))), height = abs(Int(Int32(truncatingIfNeeded: little(8, 4)))) / 2
        return (width > 0 && height > 0 ? Size(width, height) : nil, little(14, 2))
    }
}

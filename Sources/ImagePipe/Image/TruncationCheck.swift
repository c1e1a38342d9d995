/// Tells whether encoded data ends properly, for the formats whose gdk-pixbuf loaders return a
/// truncated file as a partly grey picture without an error. (JPEG is decoded by libjpeg
/// directly, whose warnings are errors: `StrictJPEG`.)
///
/// - PNG: the `IEND` chunk within the last bytes of the data.
/// - WebP: as many bytes as the RIFF header says the file holds.
/// - BMP: the pixel data's end, from the header's offset, row size and height (uncompressed),
///   or its stated data size (run-length encoded): the loader fills what is missing with black.
struct TruncationCheck {
    private var tail: [UInt8] = []
    private static let tailLength = 64
    /// The first bytes (the headers WebP and BMP state their length in), and how many there were.
    private var head: [UInt8] = []
    private var total = 0
    private static let headLength = 64

    mutating func scan(_ chunk: UnsafeRawBufferPointer) {
        guard chunk.count > 0 else { return }
        if head.count < Self.headLength { head += chunk.prefix(Self.headLength - head.count) }
        total += chunk.count
        tail = Array((tail + chunk.suffix(Self.tailLength)).suffix(Self.tailLength))
    }

    /// Why data in the named gdk-pixbuf format looks truncated, or nil when it looks whole (or
    /// the format is not checked).
    func truncation(format: String?) -> String? {
        switch format {
        case "png":
            let iend = Array("IEND".utf8)
            let found = tail.count >= 4 && (0...(tail.count - 4)).contains { Array(tail[$0..<$0 + 4]) == iend }
            return found ? nil : "the PNG data is truncated (no IEND chunk at the end)"
        case "webp":
            guard head.count >= 12 else { return "the WebP data is truncated (no whole RIFF header)" }
            let declared = littleEndian(4, 4) + 8
            return total < declared ? "the WebP data is truncated (\(total) of the \(declared) bytes its header states)" : nil
        case "bmp":
            guard let needed = bmpLength else { return nil }
            return total < needed ? "the BMP data is truncated (\(total) of the \(needed) bytes its header states)" : nil
        default:
            return nil
        }
    }

    /// How many bytes a BMP needs, from its headers; nil when they do not say (the loader judges).
    private var bmpLength: Int? {
        guard head.count >= 30 else { return nil }
        let offset = littleEndian(10, 4), headerSize = littleEndian(14, 4)
        let width: Int, height: Int, bitsPerPixel: Int, compression: Int
        if headerSize == 12 { // OS/2 1.x
            (width, height, bitsPerPixel, compression) = (littleEndian(18, 2), littleEndian(20, 2), littleEndian(24, 2), 0)
        } else {
            guard head.count >= 38 else { return nil }
            width = littleEndian(18, 4)
            height = abs(Int(Int32(bitPattern: UInt32(littleEndian(22, 4))))) // negative: stored top-down
            (bitsPerPixel, compression) = (littleEndian(28, 2), littleEndian(30, 4))
        }
        switch compression {
        case 0, 3, 6: // uncompressed rows (BI_RGB, BI_BITFIELDS, BI_ALPHABITFIELDS), each padded to 4 bytes
            let (bits, overflow) = width.multipliedReportingOverflow(by: bitsPerPixel)
            let (data, overflow2) = ((bits + 31) / 32 * 4).multipliedReportingOverflow(by: height)
            return overflow || overflow2 ? nil : offset + data
        case 1, 2: // RLE8, RLE4: the data size the header states, when it states one
            let size = littleEndian(34, 4)
            return size > 0 ? offset + size : nil
        default:
            return nil
        }
    }

    private func littleEndian(_ offset: Int, _ count: Int) -> Int {
        (0..<count).reversed().reduce(0) { $0 << 8 | Int(head[offset + $1]) }
    }
}

/// Walks a run-length encoded BMP's data (RLE8, RLE4) without making its pixels: gdk-pixbuf's
/// loader draws a run that reaches past its row's end, or a delta that moves past the picture,
/// as far as it goes, and leaves the rest of the picture transparent without an error, where
/// Chromium refuses such data (bmpsuite's "bad" RLE files). Data that ends before its last row
/// without the end-of-bitmap marker is cut short. An end-of-bitmap marker before the last row is
/// not damage: the rest is transparent, as browsers show it (bmpsuite's "questionable" cut files).
struct BMPRunLengthCheck {
    /// The file's bytes, kept only while they may be run-length encoded.
    private var bytes: [UInt8] = []
    private var encoded: Bool?

    /// The header's first 34 bytes say whether the data is run-length encoded; only then is the
    /// file kept, to be walked when it is all there.
    mutating func scan(_ chunk: UnsafeRawBufferPointer) {
        guard encoded != false else { return }
        bytes += chunk
        if encoded == nil, bytes.count >= 34 {
            let compression = little(30, 4)
            encoded = little(14, 4) >= 40 && (compression == 1 || compression == 2)
            if encoded == false { bytes = [] }
        }
    }

    /// Why the data is damaged, at the `load fail=` level that refuses it; nil when it is whole
    /// (or not run-length encoded, or its header does not say enough: the loader judges).
    var damage: (level: FailOn, reason: String)? {
        guard encoded == true, bytes.count >= 54 else { return nil }
        let offset = little(10, 4), width = Int(Int32(truncatingIfNeeded: little(18, 4))), height = Int(Int32(truncatingIfNeeded: little(22, 4)))
        let nibbles = little(30, 4) == 2
        guard width > 0, height > 0, offset < bytes.count else { return nil }
        let stated = little(34, 4)
        let end = stated > 0 ? min(bytes.count, offset + stated) : bytes.count
        var at = offset, x = 0, y = 0
        func place(_ count: Int) -> String? {
            if y >= height { return "the BMP's run-length data draws past its last row" }
            if x + count > width { return "the BMP's run-length data runs past the end of row \(y) (to column \(x + count) of \(width))" }
            x += count
            return nil
        }
        while at + 2 <= end {
            let first = Int(bytes[at]), second = Int(bytes[at + 1])
            at += 2
            if first > 0 {
                if let reason = place(first) { return (.error, reason) }
                continue
            }
            switch second {
            case 0: // end of line
                (x, y) = (0, y + 1)
            case 1: // end of bitmap
                return nil
            case 2: // delta
                guard at + 2 <= end else { break }
                let (right, down) = (Int(bytes[at]), Int(bytes[at + 1]))
                at += 2
                if x + right > width || y + down > height {
                    return (.error, "the BMP's run-length data moves past the picture (by \(right), \(down) from column \(x) of row \(y))")
                }
                (x, y) = (x + right, y + down)
            default: // absolute: that many pixels, padded to an even number of bytes
                if let reason = place(second) { return (.error, reason) }
                let length = nibbles ? (second + 1) / 2 : second
                at += length + length % 2
            }
        }
        return y < height ? (.truncated, "the BMP's run-length data ends after \(y) of its \(height) rows, without its end marker") : nil
    }

    private func little(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
}

/// Checks the LZW data of a GIF's first frame without making its pixels: gdk-pixbuf's GIF
/// loader decodes codes that do not exist, and data cut before the frame is full, to a
/// picture without an error (Pillow calls both "broken data stream"). Walking the codes costs a
/// table of 4096 lengths, whatever the picture's size.
enum GIFDataCheck {
    /// Why the first frame's data is damaged, or nil when it decodes whole (or is not found:
    /// the loader judges the structure).
    static func damage(in frame: FirstFrame) -> String? {
        let b = frame.bytes
        guard let (width, height, start, _) = frame.gifFrame else { return nil }
        var index = start
        guard index < b.count else { return nil }
        let minimum = Int(b[index])
        guard (1...11).contains(minimum) else { return "the GIF data is damaged (an LZW code size of \(minimum))" }
        index += 1
        let clear = 1 << minimum, end = clear + 1
        var codeSize = minimum + 1, next = end + 1, previous = -1
        var lengths = [Int](repeating: 1, count: 4096)
        var pixels = 0, bits = 0, bitCount = 0, ended = false
        let wanted = width * height
        // Sub-blocks: a length byte, then that many bytes of codes, least significant bit first.
        blocks: while index < b.count {
            let length = Int(b[index])
            index += 1
            if length == 0 { break }
            let blockEnd = min(b.count, index + length)
            while index < blockEnd {
                bits |= Int(b[index]) << bitCount
                bitCount += 8
                index += 1
                while bitCount >= codeSize {
                    let code = bits & ((1 << codeSize) - 1)
                    bits >>= codeSize
                    bitCount -= codeSize
                    if code == clear {
                        (codeSize, next, previous) = (minimum + 1, end + 1, -1)
                        continue
                    }
                    if code == end {
                        ended = true
                        break blocks
                    }
                    let length: Int
                    if code < next {
                        length = code < clear ? 1 : lengths[code]
                        if previous >= 0, next < 4096 { lengths[next] = (previous < clear ? 1 : lengths[previous]) + 1; next += 1 }
                    } else if code == next, previous >= 0, next < 4096 {
                        length = (previous < clear ? 1 : lengths[previous]) + 1
                        lengths[next] = length
                        next += 1
                    } else {
                        return "the GIF data is damaged (an LZW code that was never defined, after \(pixels) of \(wanted) pixels)"
                    }
                    pixels += length
                    previous = code
                    if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
                }
            }
        }
        // Data that stops with its end code before the frame is full is a short frame, which
        // GIF allows (the rest shows the background); data that just stops was cut.
        return !ended && pixels < wanted ? "the GIF data is damaged or cut (its first frame's data stops after \(pixels) of \(wanted) pixels, without its end code)" : nil
    }
}

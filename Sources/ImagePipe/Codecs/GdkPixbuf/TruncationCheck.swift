/// Tells whether encoded data ends properly, for the formats whose gdk-pixbuf loaders return a
/// truncated file as a partly grey picture without an error. (JPEG is decoded by libjpeg
/// directly, whose warnings are errors: `StrictJPEG`.)
///
/// - PNM (binary P4, P5, P6): the header's size and sample depth call for so many bytes.
/// - QuickTime image: the atoms whose headers lie in the first bytes, each as long as it says.
struct TruncationCheck {
    /// The first bytes (the headers PNM states its length in), and how many there were.
    private var head: [UInt8] = []
    private var total = 0
    private static let headLength = 512 // a PNM header's comments may run long

    mutating func scan(_ chunk: UnsafeRawBufferPointer) {
        guard chunk.count > 0 else { return }
        if head.count < Self.headLength { head += chunk.prefix(Self.headLength - head.count) }
        total += chunk.count
    }

    /// Why data in the named gdk-pixbuf format looks truncated, or nil when it looks whole (or
    /// the format is not checked).
    func truncation(format: String?) -> String? {
        switch format {
        case "pnm":
            guard let needed = pnmLength else { return nil }
            return total < needed ? "the PNM data is truncated (\(total) of the \(needed) bytes its header calls for)" : nil
        case "qtif":
            guard let needed = qtifLength else { return nil }
            return total < needed ? "the QuickTime image data is truncated (\(total) of the \(needed) bytes its atoms state)" : nil
        default:
            return nil
        }
    }

    /// How many bytes a binary PNM needs: its header (magic, width, height and, but for P4, the
    /// largest sample, separated by white space and comments, then one white-space byte) and
    /// the rows; nil for the text forms and headers the first bytes do not hold.
    private var pnmLength: Int? {
        guard head.count >= 3, head[0] == UInt8(ascii: "P"), let kind = [UInt8(ascii: "4"): 4, UInt8(ascii: "5"): 5, UInt8(ascii: "6"): 6][head[1]] else { return nil }
        var index = 2
        func number() -> Int? {
            while index < head.count {
                if head[index] == UInt8(ascii: "#") {
                    while index < head.count, head[index] != 0x0A { index += 1 }
                } else if [0x20, 0x09, 0x0A, 0x0D].contains(head[index]) {
                    index += 1
                } else { break }
            }
            var value = 0, digits = 0
            while index < head.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(head[index]), digits < 10 {
                value = value * 10 + Int(head[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }
        guard let width = number(), let height = number() else { return nil }
        let maxValue = kind == 4 ? 1 : number()
        guard let maxValue, index < head.count else { return nil }
        let sampleBytes = maxValue > 255 ? 2 : 1
        let rowBytes = kind == 4 ? (width + 7) / 8 : width * (kind == 6 ? 3 : 1) * sampleBytes
        let (data, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        return overflow ? nil : index + 1 + data
    }

    /// How many bytes a QuickTime image's atoms (a 4-byte big-endian size, then the type) add up
    /// to, as far as the first bytes show their headers.
    private var qtifLength: Int? {
        var offset = 0
        while offset + 8 <= head.count {
            let size = head[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { return nil } // 0 (to the end) and 1 (64-bit size): not judged
            offset += size
        }
        return offset > 0 ? offset : nil
    }

    private func littleEndian(_ offset: Int, _ count: Int) -> Int {
        (0..<count).reversed().reduce(0) { $0 << 8 | Int(head[offset + $1]) }
    }
}

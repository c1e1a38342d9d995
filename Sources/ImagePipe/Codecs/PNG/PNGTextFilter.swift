/// Takes a PNG's text chunks (tEXt, zTXt, iTXt) out of the data before gdk-pixbuf's loader sees
/// it, in one pass as the data streams by.
///
/// libpng copies and inflates every text chunk into memory, and the loader keeps each as a
/// pixbuf option: a 50 MB tEXt chunk took 20 s and 276 MB. Nothing reads them from there (the
/// XMP packet, an iTXt chunk, is collected from the raw data by `MetadataScanner`), and removing
/// whole chunks leaves every other chunk's CRC as it was.
struct PNGTextFilter {
    private enum State {
        /// The 8-byte signature, passed on.
        case signature(left: Int)
        /// A chunk's length and type, gathered to decide its fate.
        case header
        /// A chunk's data and CRC: `left` bytes to pass on or drop.
        case body(left: Int, keep: Bool)
    }

    private var state = State.signature(left: 8)
    private var header: [UInt8] = []
    private static let text: Set<[UInt8]> = [Array("tEXt".utf8), Array("zTXt".utf8), Array("iTXt".utf8)]

    /// Calls `pass` with the parts of `chunk` to keep, in order.
    mutating func filter(_ chunk: UnsafeRawBufferPointer, _ pass: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var offset = 0
        while offset < chunk.count {
            switch state {
            case let .signature(left):
                let taken = min(left, chunk.count - offset)
                try pass(UnsafeRawBufferPointer(rebasing: chunk[offset..<offset + taken]))
                offset += taken
                state = taken == left ? .header : .signature(left: left - taken)
            case .header:
                let taken = min(8 - header.count, chunk.count - offset)
                header += chunk[offset..<offset + taken]
                offset += taken
                guard header.count == 8 else { continue }
                let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
                let keep = !Self.text.contains(Array(header[4..<8]))
                if keep { try header.withUnsafeBytes { try pass($0) } }
                header = []
                state = .body(left: length + 4, keep: keep)
            case let .body(left, keep):
                let taken = min(left, chunk.count - offset)
                if keep { try pass(UnsafeRawBufferPointer(rebasing: chunk[offset..<offset + taken])) }
                offset += taken
                state = taken == left ? .header : .body(left: left - taken, keep: keep)
            }
        }
    }
}

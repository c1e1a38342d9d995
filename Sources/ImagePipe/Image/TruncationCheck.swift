#if canImport(Glibc)
import Glibc
#endif

/// Tells whether encoded data ends properly, for the formats whose gdk-pixbuf loaders return a
/// truncated file as a partly grey picture without an error.
///
/// - JPEG: an end-of-image marker (FF D9) after the last start-of-scan (FF DA). Inside
///   entropy-coded data a 0xFF is always followed by 00 or a restart marker, so neither pair
///   appears by accident; an EXIF thumbnail's end marker comes before the main scan.
/// - PNG: the `IEND` chunk within the last bytes of the data.
struct TruncationCheck {
    private var jpegEnded = false
    private var previousWasFF = false
    private var tail: [UInt8] = []
    private static let tailLength = 64

    mutating func scan(_ chunk: UnsafeRawBufferPointer) {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        if previousWasFF { see(chunk[0]) }
        var offset = 0
        while offset < chunk.count, let found = memchr(base + offset, 0xFF, chunk.count - offset) {
            let position = base.distance(to: UnsafeRawPointer(found))
            if position + 1 < chunk.count { see(chunk[position + 1]) }
            offset = position + 1
        }
        previousWasFF = chunk[chunk.count - 1] == 0xFF
        tail = Array((tail + chunk.suffix(Self.tailLength)).suffix(Self.tailLength))
    }

    private mutating func see(_ markerByte: UInt8) {
        if markerByte == 0xDA { jpegEnded = false } else if markerByte == 0xD9 { jpegEnded = true }
    }

    /// Why data in the named gdk-pixbuf format looks truncated, or nil when it looks whole (or
    /// the format is not checked).
    func truncation(format: String?) -> String? {
        switch format {
        case "jpeg":
            return jpegEnded ? nil : "the JPEG data is truncated (no end-of-image marker after the last scan)"
        case "png":
            let iend = Array("IEND".utf8)
            let found = tail.count >= 4 && (0...(tail.count - 4)).contains { Array(tail[$0..<$0 + 4]) == iend }
            return found ? nil : "the PNG data is truncated (no IEND chunk at the end)"
        default:
            return nil
        }
    }
}

/// A JPEG's frame header (SOF0–SOF2), read from the file's bytes: what the encoder really wrote.
public struct JPEGFrame: Equatable {
    /// 0xC0 baseline, 0xC1 extended, 0xC2 progressive.
    public let marker: UInt8
    /// Each component's sampling factors, horizontal in the high nibble: [0x22, 0x11, 0x11] is 4:2:0.
    public let sampling: [UInt8]

    /// The first frame header of `bytes`, or nil when there is none before the markers run out.
    public init?(_ bytes: [UInt8]) {
        var i = 2
        while i + 4 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if [0xC0, 0xC1, 0xC2].contains(marker), i + 9 < bytes.count {
                let count = Int(bytes[i + 9])
                guard i + 11 + (count - 1) * 3 < bytes.count else { return nil }
                self.marker = marker
                sampling = (0..<count).map { bytes[i + 11 + $0 * 3] }
                return
            }
            i += 2 + length
        }
        return nil
    }
}

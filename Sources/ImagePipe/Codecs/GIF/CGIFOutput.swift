import CGIF

/// Where cgif writes a GIF: its write callback appends here, in chunks (`ByteChunks`).
final class CGIFOutput {
    var bytes = ByteChunks()

    /// cgif's write callback; its context is an unretained `CGIFOutput`.
    static let write: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Int32 = { context, data, count in
        let output = Unmanaged<CGIFOutput>.fromOpaque(context!).takeUnretainedValue()
        output.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        return Int32(CGIF_OK.rawValue)
    }

    /// The context to give cgif beside `write`; valid while this output lives.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

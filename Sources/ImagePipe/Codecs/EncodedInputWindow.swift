/// Reads of an `EncodedInput` served from a 64 KiB window read where they fall, so that a walk
/// over many small blocks costs one read a window (`MetadataScanner.walk`, a PNG's chunks for
/// `info`); a read larger than the window is read on its own.
struct EncodedInputWindow {
    let input: EncodedInput
    private var window: [UInt8] = [], start = 0

    init(_ input: EncodedInput) { self.input = input }

    /// At most `count` bytes from `offset`: fewer at the input's end, none past it.
    mutating func bytes(count: Int, at offset: Int) throws(ImageError) -> ArraySlice<UInt8> {
        if offset < start || offset + count > start + window.count {
            (window, start) = (try input.bytes(count: max(count, 1 << 16), at: offset), offset)
        }
        return window[min(window.count, offset - start)..<min(window.count, offset - start + count)]
    }
}

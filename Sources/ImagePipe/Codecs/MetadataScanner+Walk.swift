extension MetadataScanner {
    /// The metadata of `input`, a file in `format`, walked block by block: the blocks' headers and
    /// the blocks that can hold metadata are read, 64 KiB at a time (so a run of small blocks
    /// costs one read), and the rest, the image data above all, is stepped over unread. So a
    /// decoder knows every block's metadata before its first row, wherever the file keeps it (a
    /// WebP's EXIF and XMP follow its image data, as a PNG's text chunks may), and whatever
    /// damage stops the decode.
    static func walk(_ input: EncodedInput, format: ImageFormat) throws(ImageError) -> ImageMetadata {
        guard var scanner = MetadataScanner(format: format) else { return ImageMetadata() }
        let windowSize = 1 << 16
        var window: [UInt8] = [], windowStart = 0, offset = 0
        while offset < input.length {
            switch scanner.need {
            case .done:
                return scanner.metadata
            case let .skippable(count):
                scanner.passOverSkippable()
                offset += count
            case let .bytes(count):
                if offset + count > windowStart + window.count {
                    // A block larger than the window is read on its own.
                    if count > windowSize {
                        let bytes = try input.bytes(count: count, at: offset)
                        bytes.withUnsafeBytes { scanner.scan($0) }
                        guard bytes.count == count else { return scanner.metadata } // the input ends
                        offset += count
                        continue
                    }
                    window = try input.bytes(count: windowSize, at: offset)
                    windowStart = offset
                }
                let start = offset - windowStart, end = min(window.count, start + count)
                guard end > start else { return scanner.metadata } // the input ends
                window.withUnsafeBytes { scanner.scan(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
                offset += end - start
            }
        }
        return scanner.metadata
    }
}

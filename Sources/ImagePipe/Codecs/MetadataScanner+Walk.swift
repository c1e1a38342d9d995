extension MetadataScanner {
    /// The metadata of `input`, a file in `format`, walked block by block: the blocks' headers and
    /// the blocks that can hold metadata are read, 64 KiB at a time (so a run of small blocks
    /// costs one read), and the rest, the image data above all, is stepped over unread. So a
    /// decoder knows every block's metadata before its first row, wherever the file keeps it (a
    /// WebP's EXIF and XMP follow its image data, as a PNG's text chunks may), and whatever
    /// damage stops the decode.
    static func walk(_ input: EncodedInput, format: ImageFormat) throws(ImageError) -> ImageMetadata {
        guard var scanner = MetadataScanner(format: format) else { return ImageMetadata() }
        var reader = EncodedInputWindow(input), offset = 0
        while offset < input.length {
            switch scanner.need {
            case .done:
                return scanner.metadata
            case let .skippable(count):
                scanner.passOverSkippable()
                offset += count
            case let .bytes(count):
                let bytes = try reader.bytes(count: count, at: offset)
                guard !bytes.isEmpty else { return scanner.metadata } // the input ends
                bytes.withUnsafeBytes { scanner.scan($0) }
                offset += bytes.count
            }
        }
        return scanner.metadata
    }
}

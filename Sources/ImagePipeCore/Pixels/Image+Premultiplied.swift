extension Image {
    /// A new picture made by `body` editing each row as premultiplied Float pixels (see
    /// `PremultipliedPixels`), in parallel row bands; the rows are converted back to straight
    /// 8-bit afterwards. For filters that mix colour with alpha (blending, weighting).
    public func mapPremultipliedRows(workPerPixel: Int = 16,
                                     _ body: (_ y: Int, _ pixels: UnsafeMutableBufferPointer<SIMD4<Float>>) -> Void) throws -> Image {
        let width = self.width, channels = channelCount
        return try Image.make(size: size, hasAlpha: hasAlpha) { writer in
            RowBands.run(rows: height, workPerRow: width * workPerPixel) { rows in
                let buffer = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: width)
                defer { buffer.deallocate() }
                for y in rows {
                    PremultipliedPixels.load(rowStart(y), channels: channels, count: width, into: buffer.baseAddress!)
                    body(y, buffer)
                    PremultipliedPixels.store(buffer.baseAddress!, count: width, channels: channels,
                                              into: writer.row(y).baseAddress!)
                }
            }
        }
    }
}

import CGdkPixbuf
import Dispatch

extension Image {
    /// The picture as EXIF orientation `orientation` (1–8) says it is shown. gdk-pixbuf turns a
    /// picture by its "orientation" option, as its own loaders set it; a sub-pixbuf shares the
    /// pixels and has no option of its own to disagree with.
    package func orientedByExif(_ orientation: Int) -> Image {
        guard (2...8).contains(orientation) else { return self }
        let plain = gdk_pixbuf_new_subpixbuf(pixbuf, 0, 0, Int32(width), Int32(height))!
        gdk_pixbuf_set_option(plain, "orientation", String(orientation))
        let turned = Image(adopting: gdk_pixbuf_apply_embedded_orientation(plain)!, metadata: metadata)
        g_object_unref(UnsafeMutableRawPointer(plain))
        return turned
    }

    /// The picture turned or mirrored by `turn`, its pixels moved, not resampled.
    package func turned(by turn: Dihedral) throws -> Image {
        turn == .identity ? self : orientedByExif(turn.exifOrientation)
    }

    /// The picture upside down (`flip`): rows in reverse order, pixels unchanged.
    public func flippedVertically() throws -> Image {
        let bytes = width * channelCount
        return try Image.make(size: size, hasAlpha: hasAlpha) { writer in
            for y in 0..<height {
                writer.row(y).baseAddress!.update(from: rowStart(height - 1 - y), count: bytes)
            }
        }
    }

    /// The picture mirrored left to right (`flop`): each row's pixels in reverse order.
    public func flippedHorizontally() throws -> Image {
        let channels = channelCount, width = width
        return try Image.make(size: size, hasAlpha: hasAlpha) { writer in
            for y in 0..<height {
                let source = rowStart(y)
                let target = writer.row(y).baseAddress!
                for x in 0..<width {
                    let s = source + (width - 1 - x) * channels, t = target + x * channels
                    for channel in 0..<channels { t[channel] = s[channel] }
                }
            }
        }
    }

    /// The picture turned clockwise by `quarterTurns` × 90° exactly: every pixel moved, none
    /// resampled; RGB stays RGB. 1 and 3 swap the sides.
    public func turned(quarterTurns: Int) throws -> Image {
        let turns = ((quarterTurns % 4) + 4) % 4
        if turns == 0 { return self }
        if turns == 2 { return try flippedVertically().flippedHorizontally() }
        let output = size.transposed
        let channels = channelCount, width = width, height = height
        return try Image.make(size: output, hasAlpha: hasAlpha) { writer in
            // Row bands in parallel: a transpose reads across rows, so it is memory-bound.
            let bands = output.pixelCount < 1_000_000 ? 1 : max(1, min(System.coreCount, output.height / 64))
            let cancellation = StageContext.current.cancellation
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                for y in (band * output.height / bands)..<((band + 1) * output.height / bands) {
                    if y & 63 == 0, cancellation?.isCancelled == true { return } // the run throws this picture away
                    let target = writer.row(y).baseAddress!
                    for x in 0..<output.width {
                        // Clockwise: output (x, y) shows input (y, h − 1 − x); anticlockwise
                        // input (w − 1 − y, x).
                        let (sx, sy) = turns == 1 ? (y, height - 1 - x) : (width - 1 - y, x)
                        let s = self.rowStart(sy) + sx * channels, t = target + x * channels
                        for channel in 0..<channels { t[channel] = s[channel] }
                    }
                }
            }
        }
    }
}

extension Image {
    /// The smallest rectangle holding every pixel that differs from `background` by more than
    /// `threshold` in some channel (alpha included; two fully transparent pixels are equal
    /// whatever their colour), as libvips' `find_trim`; nil when every pixel is background.
    ///
    /// With `smoothing`, each channel is first taken as the median of the pixel's 3×3
    /// neighbourhood (edges repeated), as libvips' `find_trim` does: JPEG ringing swings to both
    /// sides of the border's colour, and its median stays close to it, so the ringing along a
    /// border is cut with the border rather than left as a strip.
    public func contentBounds(background: Color, threshold: Int, smoothing: Bool = true) throws(ImageError) -> Rect? {
        let channels = channelCount, width = width, height = height
        let back = [Int(background.red), Int(background.green), Int(background.blue), Int(background.alpha)]
        var rows = [UnsafePointer<UInt8>](repeating: rowStart(0), count: 3)
        var values = [Int](repeating: 0, count: 4)
        var nine = [Int](repeating: 0, count: 9)
        func differs(_ x: Int) -> Bool {
            if smoothing {
                let (left, right) = (max(x - 1, 0) * channels, min(x + 1, width - 1) * channels)
                for channel in 0..<channels {
                    for (index, row) in rows.enumerated() {
                        nine[index * 3] = Int(row[left + channel])
                        nine[index * 3 + 1] = Int(row[x * channels + channel])
                        nine[index * 3 + 2] = Int(row[right + channel])
                    }
                    nine.sort()
                    values[channel] = nine[4]
                }
            } else {
                let p = rows[1] + x * channels
                for channel in 0..<channels { values[channel] = Int(p[channel]) }
            }
            let alpha = channels == 4 ? values[3] : 255
            if alpha == 0 && back[3] == 0 { return false }
            return abs(values[0] - back[0]) > threshold || abs(values[1] - back[1]) > threshold
                || abs(values[2] - back[2]) > threshold || abs(alpha - back[3]) > threshold
        }
        var minX = width, maxX = -1, minY = -1, maxY = -1
        for y in 0..<height {
            try StageContext.checkCancelled()
            rows = [rowStart(max(y - 1, 0)), rowStart(y), rowStart(min(y + 1, height - 1))]
            // Only the parts of the row outside the columns already known to hold content.
            var first = -1
            for x in 0..<min(minX, width) where differs(x) { first = x; break }
            var last = -1
            var x = width - 1
            while x > maxX {
                if differs(x) { last = x; break }
                x -= 1
            }
            let hasContent = first >= 0 || last >= 0 || (minX <= maxX && (minX...maxX).contains { differs($0) })
            guard hasContent else { continue }
            if first >= 0 { minX = min(minX, first) }
            if last >= 0 { maxX = max(maxX, last) }
            if first >= 0 && last < 0 { maxX = max(maxX, first) }
            if last >= 0 && first < 0 { minX = min(minX, last) }
            if minY < 0 { minY = y }
            maxY = y
        }
        guard minY >= 0, minX <= maxX else { return nil }
        return Rect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }
}

extension Image {
    /// The smallest rectangle holding every pixel that differs from `background` by more than
    /// `threshold` in some channel (alpha included; two fully transparent pixels are equal
    /// whatever their colour), as libvips' `find_trim`; nil when every pixel is background.
    public func contentBounds(background: Color, threshold: Int) -> Rect? {
        let channels = channelCount, width = width
        let back = [Int(background.red), Int(background.green), Int(background.blue), Int(background.alpha)]
        var minX = width, maxX = -1, minY = -1, maxY = -1
        for y in 0..<height {
            let row = rowStart(y)
            func differs(_ x: Int) -> Bool {
                let p = row + x * channels
                let alpha = channels == 4 ? Int(p[3]) : 255
                if alpha == 0 && back[3] == 0 { return false }
                return abs(Int(p[0]) - back[0]) > threshold || abs(Int(p[1]) - back[1]) > threshold
                    || abs(Int(p[2]) - back[2]) > threshold || abs(alpha - back[3]) > threshold
            }
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

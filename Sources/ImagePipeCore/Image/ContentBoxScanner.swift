/// Finds the smallest rectangle holding every pixel that differs from a background, reading
/// the picture's rows once, top to bottom, in strips of any height: what `trim` needs, for the
/// whole picture at once and for a streamed run's strips alike, so both find the same box by
/// construction. With `smoothing`, a pixel counts by the median of its 3×3 neighbourhood (edges
/// repeated), so each row is judged once the row below it has come; it keeps two rows.
public struct ContentBoxScanner: PixelSurvey {
    public let threshold: Int
    public let smoothing: Bool
    /// The border's color; nil takes the picture's top-left pixel.
    public private(set) var background: Color?

    private var width = 0, channels = 0, height = 0
    /// The row above the one waiting, and the one waiting to be judged (its row index).
    private var above: [UInt8] = [], waiting: [UInt8] = []
    private var waitingRow = -1
    private var minX = Int.max, maxX = -1, minY = -1, maxY = -1
    private var finished = false

    public init(background: Color?, threshold: Int, smoothing: Bool) {
        self.background = background
        self.threshold = threshold
        self.smoothing = smoothing
    }

    /// The rectangle kept, once every row has been seen; nil when every pixel is background.
    public var box: Rect? {
        guard finished, minY >= 0, minX <= maxX else { return nil }
        return Rect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    /// Whether every row of the picture has been seen.
    public var isFinished: Bool { finished }

    /// The picture's size, once its first rows have been seen.
    public var pictureSize: Size { Size(width, height) }

    public mutating func look(at rows: Image, at position: StripPosition) throws(ImageError) {
        if position.top == 0 {
            width = rows.width
            channels = rows.channelCount
            height = position.pictureSize.height
            if background == nil { background = rows.pixel(x: 0, y: 0) }
        }
        for y in 0..<rows.height {
            try StageContext.checkCancelled()
            let row = rows.row(y)
            if waitingRow >= 0 {
                judge(below: Array(row))
                above = waiting
            }
            waiting = Array(row)
            if waitingRow < 0 { above = waiting }
            waitingRow = position.top + y
        }
        if waitingRow == height - 1 {
            judge(below: waiting) // the last row's neighbour below is itself
            finished = true
        }
    }

    /// Whether the waiting row holds content, with `below` the row after it; widens the box.
    private mutating func judge(below: [UInt8]) {
        let back = background ?? .transparent
        let reference = [Int(back.red), Int(back.green), Int(back.blue), Int(back.alpha)]
        let (width, channels, threshold, smoothing) = (width, channels, threshold, smoothing)
        var (minX, maxX) = (self.minX, self.maxX)
        let hasContent = above.withUnsafeBufferPointer { above in
            waiting.withUnsafeBufferPointer { current in
                below.withUnsafeBufferPointer { below in
                    let rows = [above, current, below]
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
                            for channel in 0..<channels { values[channel] = Int(current[x * channels + channel]) }
                        }
                        let alpha = channels == 4 ? values[3] : 255
                        if alpha == 0 && reference[3] == 0 { return false }
                        return abs(values[0] - reference[0]) > threshold || abs(values[1] - reference[1]) > threshold
                            || abs(values[2] - reference[2]) > threshold || abs(alpha - reference[3]) > threshold
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
                    let found = first >= 0 || last >= 0 || (minX <= maxX && (minX...maxX).contains { differs($0) })
                    guard found else { return false }
                    if first >= 0 { minX = min(minX, first) }
                    if last >= 0 { maxX = max(maxX, last) }
                    if first >= 0 && last < 0 { maxX = max(maxX, first) }
                    if last >= 0 && first < 0 { minX = min(minX, last) }
                    return true
                }
            }
        }
        (self.minX, self.maxX) = (minX, maxX)
        guard hasContent else { return }
        if minY < 0 { minY = waitingRow }
        maxY = waitingRow
    }
}

/// What `save lossless=trim` dropped of the picture asked for, as `jpegtran -trim` drops it: the
/// partial blocks a turn would bring to the left or top (the right and bottom may end inside a
/// block, so nothing is dropped there), and the pixels before a crop's corner moved in to the
/// block grid.
public struct LosslessJPEGTrim: Hashable, Sendable {
    /// Columns dropped at the left of the picture asked for.
    public var left: Int
    /// Rows dropped at its top.
    public var top: Int

    public init(left: Int = 0, top: Int = 0) {
        self.left = left
        self.top = top
    }

    /// Nothing dropped.
    public var isEmpty: Bool { left == 0 && top == 0 }

    /// The run's note of what went from the `asked` picture; nil when nothing did.
    func note(asked: Size) -> StageNote? {
        guard !isEmpty else { return nil }
        let written = Size(asked.width - left, asked.height - top)
        var dropped: [String] = []
        if left > 0 { dropped.append("\(left) \(left == 1 ? "column" : "columns") at the left") }
        if top > 0 { dropped.append("\(top) \(top == 1 ? "row" : "rows") at the top") }
        let text = "lossless=trim dropped \(dropped.joined(separator: " and ")) to move whole blocks only: \(written) written, not \(asked)"
        return StageNote(name: "trimmed", text: text, value: .object([
            ("left", .number(Double(left))), ("top", .number(Double(top))),
            ("width", .number(Double(written.width))), ("height", .number(Double(written.height))),
        ]))
    }
}

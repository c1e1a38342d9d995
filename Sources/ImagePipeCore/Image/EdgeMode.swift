/// What fills the new pixels when a picture is extended past its edges (libvips `embed`'s
/// extend modes).
public enum EdgeMode: String, CaseIterable, Sendable {
    /// A flat colour.
    case color
    /// The edge pixels stretched outwards (libvips `copy`).
    case copy
    /// The picture reflected at each edge, the edge pixel repeated: `…cba|abc…xyz|zyx…`
    /// (libvips `mirror`).
    case mirror
    /// The picture tiled (libvips `repeat`).
    case `repeat`

    /// Which pixel of a row or column of `length` pixels stands at `index` (which may lie
    /// outside it); nil where the colour shows.
    public func source(of index: Int, length: Int) -> Int? {
        if index >= 0 && index < length { return index }
        switch self {
        case .color: return nil
        case .copy: return min(max(index, 0), length - 1)
        case .repeat:
            let wrapped = index % length
            return wrapped < 0 ? wrapped + length : wrapped
        case .mirror:
            let period = 2 * length
            var wrapped = index % period
            if wrapped < 0 { wrapped += period }
            return wrapped < length ? wrapped : period - 1 - wrapped
        }
    }
}

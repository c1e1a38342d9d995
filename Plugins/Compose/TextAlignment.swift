/// How the lines of a `text` block line up with each other (Pango's alignment).
public enum TextAlignment: String, CaseIterable, Sendable {
    case left, center, right
}

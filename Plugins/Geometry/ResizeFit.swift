/// How `resize` fits a picture to a width and height, as sharp's `fit`.
public enum ResizeFit: String, CaseIterable, Sendable {
    /// Cover W×H, aspect kept, the overflow cut off at `position`.
    case cover
    /// Inside W×H, aspect kept, letterboxed onto `background` to exactly W×H.
    case contain
    /// Exactly W×H, the aspect ignored.
    case fill
    /// As large as fits inside W×H, aspect kept, no bars.
    case inside
    /// As small as covers W×H, aspect kept, nothing cut.
    case outside
}

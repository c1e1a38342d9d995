/// Where a window is cut from a larger picture: at an anchor, or where the picture's content is,
/// found after decoding (libvips smartcrop's `attention` and `entropy`).
///
/// Text: any anchor (`center`, `top-left`, `0.3,0`, `120px,40px`), `attention` or `entropy`.
public enum CropPosition: Hashable, Sendable, CustomStringConvertible {
    case anchor(Anchor)
    /// The window goes where edges and colors rare in the picture gather.
    case attention
    /// The window keeps the busiest part: the side of least entropy is trimmed away, repeatedly.
    case entropy

    /// The smart-crop strategy, nil for an anchor.
    public var strategy: SmartCrop.Strategy? {
        switch self {
        case .anchor: nil
        case .attention: .attention
        case .entropy: .entropy
        }
    }

    public var description: String {
        switch self {
        case let .anchor(anchor): anchor.description
        case .attention: "attention"
        case .entropy: "entropy"
        }
    }
}

/// A validated argument value, of the kind its parameter's type names.
public enum Value: Hashable, Sendable {
    case integer(Int)
    case number(Double)
    case size(Size)
    case point(Point)
    case anchor(Anchor)
    case color(Color)
    case angle(Angle)
    /// In percent: `50%` is 50.
    case percentage(Double)
    case choice(String)
    case boolean(Bool)
    case string(String)
    case numbers([Double])
    case resizeSize(ResizeSize)
    case position(CropPosition)
    case cropRect(CropRect)
}

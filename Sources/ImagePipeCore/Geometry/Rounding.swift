/// The one rounding rule of ImagePipe's geometry: to the nearest pixel, halves away from zero,
/// and never below one pixel for a size.
public enum Rounding {
    public static func pixels(_ value: Double) -> Int { Int(value.rounded(.toNearestOrAwayFromZero)) }
    public static func side(_ value: Double) -> Int { max(1, pixels(value)) }
}

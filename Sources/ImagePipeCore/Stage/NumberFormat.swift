/// Prints numbers the shortest way that parses back to the same value: `2`, not `2.0`.
public enum NumberFormat {
    public static func text(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// A measurement for people: at most three decimals, no trailing zeros.
    public static func short(_ value: Double) -> String {
        text((value * 1000).rounded() / 1000)
    }
}

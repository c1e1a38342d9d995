/// The numbers of IIIF Image API parameters: plain decimal digits, as the specification writes
/// them. No sign, exponent, spaces or hexadecimal, which `Int("+5")` and `Double("1e3")` take.
enum IIIFNumber {
    /// A whole number of at most 9 digits (a side of a billion pixels), or nil.
    static func whole(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    /// A decimal `D[.D]` or `.D`, at most 20 characters, or nil.
    static func decimal(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !text.isEmpty, text.count <= 20, parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
              parts.contains(where: { !$0.isEmpty }) else { return nil }
        return Double(String(text).hasPrefix(".") ? "0" + text : String(text))
    }
}

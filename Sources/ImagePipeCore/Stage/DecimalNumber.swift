/// Numbers as the pipeline language writes them: decimal only.
///
/// Swift's `Double("0x10")` reads hexadecimal (16, and `0x1.5` is 1.3125), so `blur 0x10` was
/// `blur 16` — and `0x3` is how ImageMagick users write a blur's sigma (`-blur 0x3`: radius 0,
/// sigma 3). Every number in the language goes through here instead.
public enum DecimalNumber {
    /// The value of `[+-]digits[.digits][e[+-]digits]` (or `.digits`), or nil for anything else:
    /// hexadecimal, `inf`, `nan`, white space.
    public static func parse(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var mantissa = digits()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == bytes.count else { return nil }
        return Double(String(text))
    }

    /// What to say of a number that is not decimal, when it looks like another tool's habit.
    static func hint(for text: some StringProtocol) -> String? {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("0x") || lowered.hasPrefix("-0x") || lowered.hasPrefix("+0x") else { return nil }
        let rest = lowered.drop { $0 != "x" }.dropFirst()
        if let sigma = parse(rest) {
            return "'\(text)' is not a decimal number (numbers are never read as hexadecimal); for ImageMagick's RADIUSxSIGMA (-blur 0x\(NumberFormat.text(sigma))) give the sigma alone: \(NumberFormat.text(sigma))"
        }
        return "'\(text)' is not a decimal number (numbers are never read as hexadecimal)"
    }
}

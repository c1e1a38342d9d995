/// Untrusted text (file names, error messages, ledger contents) made safe to show on a terminal.
///
/// A file name is any bytes but `/` and NUL: one holding ESC can move the cursor, rewrite what
/// was printed before, set the window title or, on some terminals, answer back as typed input;
/// a line feed can forge a whole line of output. So every control character is shown as an
/// escape (`\x1b`, `\x0a`), as are DEL, the C1 controls (U+0080…U+009F, which some terminals
/// obey as ESC sequences), the line and paragraph separators and the bidirectional overrides
/// (which reorder what follows, so a name could show as another), as `\u{202e}`. Bytes that are
/// not UTF-8 are shown as `\xNN`. Printable text, including every other script, is left alone.
package enum TerminalText {
    /// `text` with every character that a terminal would act on shown as an escape.
    /// `0.5`, `12.0`: seconds and rates to a tenth.
    package static func tenths(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        // Int(…) traps past Int.max (and on infinity): such a number is shown as Swift writes it.
        guard tenths.magnitude < 1e15 else { return "\(tenths)" }
        return tenths == tenths.rounded() ? String(Int(tenths)) + ".0" : String(tenths)
    }

    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) { result += escape(scalar) } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    /// `bytes` as text: UTF-8 where they are UTF-8, each byte that is not as `\xNN`, and the
    /// characters `escaped(_:)` escapes escaped.
    package static func escaped(bytes: some Collection<UInt8>) -> String {
        var result = ""
        var rest = Array(bytes)[...]
        while !rest.isEmpty {
            // The longest valid prefix is shown as text; the byte that stops it as \xNN.
            var valid = rest.endIndex
            var decoder = UTF8()
            var iterator = rest.makeIterator()
            var consumed = rest.startIndex
            loop: while true {
                switch decoder.decode(&iterator) {
                case let .scalarValue(scalar): consumed += UTF8.width(scalar)
                case .emptyInput: break loop
                case .error:
                    valid = consumed
                    break loop
                }
            }
            result += escaped(String(decoding: rest[rest.startIndex..<valid], as: UTF8.self))
            guard valid < rest.endIndex else { break }
            result += hex(rest[valid])
            rest = rest[(valid + 1)...]
        }
        return result
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        scalar.value < 0x100 ? hex(UInt8(scalar.value)) : "\\u{" + String(scalar.value, radix: 16) + "}"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return "\\x" + (digits.count == 1 ? "0" : "") + digits
    }
}

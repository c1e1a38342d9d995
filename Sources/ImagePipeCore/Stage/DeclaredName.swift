/// The rule for the name of a stage or of a parameter, wherever it is declared: a compiled
/// stage's `StageDeclaration`, a plugin's JSON, a `Plugin` handed to `Registry.register`.
///
/// A name is a word of the pipeline language that people type and read in listings and
/// messages: lower-kebab-case ASCII (`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`), at most `longest` bytes.
/// So no name holds a space, `=`, `|`, a brace, a control character or a right-to-left override
/// (each either cannot be typed as one word or would rewrite the terminal that lists it).
package enum DeclaredName {
    /// The longest name, in bytes: a word in a pipeline, not a description.
    package static let longest = 64

    /// What is wrong with `name`, as words that follow it in a message ("is not
    /// lower-kebab-case"); nil when nothing is.
    package static func problem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > longest { return "is \(name.utf8.count) bytes long; the most is \(longest)" }
        return isKebabCase(name) ? nil : "is not lower-kebab-case"
    }

    /// `name` as a message may quote it: cut after `longest` characters, and every character but
    /// printable ASCII shown as `\u{…}`, so that a refusal prints nothing a terminal would obey.
    package static func shown(_ name: String) -> String {
        var shown = ""
        for (index, scalar) in name.unicodeScalars.enumerated() {
            guard index < longest else { return shown + "…" }
            if (0x20...0x7E).contains(scalar.value) {
                shown.unicodeScalars.append(scalar)
            } else {
                shown += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return shown
    }

    /// `^[a-z][a-z0-9]*(-[a-z0-9]+)*$`, tested on bytes.
    private static func isKebabCase(_ name: String) -> Bool {
        let lower = UInt8(ascii: "a")...UInt8(ascii: "z"), digit = UInt8(ascii: "0")...UInt8(ascii: "9"), dash = UInt8(ascii: "-")
        var previous: UInt8?
        for byte in name.utf8 {
            if previous == nil, !lower.contains(byte) { return false }
            guard lower.contains(byte) || digit.contains(byte) || (byte == dash && previous != dash) else { return false }
            previous = byte
        }
        return previous != dash
    }
}

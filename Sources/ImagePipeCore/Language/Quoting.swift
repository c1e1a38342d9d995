/// Writes text so that the pipeline lexer reads it back as one word with the same value.
package enum Quoting {
    /// `text` as is when it is a plain word, else in double quotes with `\"`, `\\` and `\$`
    /// escaped.
    package static func quotedIfNeeded(_ text: String) -> String {
        let special: Set<Character> = [" ", "\t", "\n", "\r", "|", "\"", "'", "\\", "=", "$"]
        let plain = !text.isEmpty && !text.contains(where: special.contains) && text != "#"
        if plain { return text }
        var quoted = "\""
        for character in text {
            switch character {
            case "\"", "\\", "$": quoted += "\\\(character)"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            default: quoted.append(character)
            }
        }
        return quoted + "\""
    }
}

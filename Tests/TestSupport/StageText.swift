import ImagePipe

/// Stages from argument text as the pipeline language splits it (words by spaces, `key=value`),
/// for tests of one stage type without a registry.
public enum StageText {
    public static func parse<S: Stage>(_ type: S.Type, _ text: String) throws -> S {
        try S.parse(text.split(separator: " ").map { word in
            let parts = word.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? RawArgument(key: String(parts[0]), String(parts[1])) : RawArgument(String(word))
        })
    }

    /// Whether `text` parses to a stage whose canonical text is `canonical`, and that text
    /// parses back to an equal stage.
    public static func roundTrips<S: Stage>(_ type: S.Type, _ text: String, canonical: String) throws -> Bool {
        let stage = try parse(type, text)
        let words = stage.text.split(separator: " ", maxSplits: 1)
        let again = try parse(type, words.count > 1 ? String(words[1]) : "")
        return stage.text == canonical && again == stage
    }
}

/// The bounds on what `text` hands to Pango, checked before Pango sees the text: shaping and
/// bidi reordering grow faster than the text (80,000 combining marks on one letter took 14 s,
/// 700 KB of mixed-direction text 47 s), so a caption is held to what captions are.
///
/// A character is a grapheme cluster (Swift's `Character`: a letter with its marks, an emoji
/// sequence); a combining mark is a code point of general category Mn or Me.
public enum TextLimits {
    /// UTF-8 bytes: 10,000 characters of Devanagari or Thai with their marks fit, a novel does not.
    public static let maxBytes = 65_536
    /// Characters: a caption or watermark is a line or a paragraph; a page of a book is about
    /// 2,000. Checked after `maxBytes`, so counting them is quick.
    public static let maxCharacters = 10_000
    /// Combining marks on one character: real scripts stack a few (Vietnamese two, Tibetan
    /// four or five); Unicode's stream-safe text format allows 30.
    public static let maxMarksPerCharacter = 16
    /// Code points in one character: the longest emoji sequences (a family with skin tones)
    /// take 11; anything longer is built to be slow, with joiners or marks.
    public static let maxScalarsPerCharacter = 32
    /// Lines, counting each `\n` (wrapping with `width=` makes more, each at least a character).
    public static let maxLines = 1_000

    /// Why `text` is refused, naming the limit it passes; nil when it is within every one.
    public static func problem(in text: String) -> String? {
        let bytes = text.utf8.count
        guard bytes <= maxBytes else {
            return "the text is \(bytes) bytes of UTF-8, more than the largest, \(maxBytes); a caption is far shorter (draw a long text as several captions)"
        }
        var characters = 0, lines = 1
        for character in text {
            characters += 1
            guard characters <= maxCharacters else {
                return "the text is more than \(maxCharacters) characters long, the largest; a caption is far shorter (draw a long text as several captions)"
            }
            if character.isNewline { lines += 1 }
            guard lines <= maxLines else { return "the text has more than \(maxLines) lines, the largest" }
            let scalars = character.unicodeScalars
            // Most characters are one code point: nothing to count.
            guard scalars.count > 1 else { continue }
            guard scalars.count <= maxScalarsPerCharacter else {
                return "character \(characters) of the text is \(scalars.count) code points long, more than the largest, \(maxScalarsPerCharacter)"
            }
            let marks = scalars.reduce(0) { count, scalar in
                let category = scalar.properties.generalCategory
                return count + (category == .nonspacingMark || category == .enclosingMark ? 1 : 0)
            }
            guard marks <= maxMarksPerCharacter else {
                return "character \(characters) of the text carries \(marks) combining marks, more than the largest, \(maxMarksPerCharacter) (scripts stack a few; Unicode's stream-safe text allows 30)"
            }
        }
        return nil
    }
}

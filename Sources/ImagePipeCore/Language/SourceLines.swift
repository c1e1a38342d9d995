/// The lines of pipeline text for diagnostics, split only when the first diagnostic needs one:
/// most texts have none, and splitting a megabyte of text per compile is a fifth of its time.
package final class SourceLines {
    private let text: String
    private var lines: [String]?

    package init(_ text: String) { self.text = text }

    /// The text of a 1-based line, without its line break; empty past the end.
    package func line(_ number: Int) -> String {
        let lines = self.lines ?? text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        self.lines = lines
        return number >= 1 && number <= lines.count ? lines[number - 1] : ""
    }
}

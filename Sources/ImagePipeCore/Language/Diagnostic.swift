/// An error in pipeline text, printed as compilers do:
///
///     avatar.pipe:3:13: error: circle-crop: unknown parameter 'diamter' (did you mean 'diameter'?)
///         circle-crop diamter=200
///                     ^~~~~~~
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    /// The text of the line the location is on, without its line break.
    public var lineText: String
    /// What can be done about it, when a setting of the run is the cause.
    public var remedy: Remedy?

    public init(location: SourceLocation, message: String, lineText: String, remedy: Remedy? = nil) {
        self.location = location
        self.message = message
        self.lineText = lineText
        self.remedy = remedy
    }

    /// The most characters of the line shown; a longer line is cut around the location.
    static let maxShownColumns = 120

    /// The most characters of the message shown: a message quoting a megabyte-long value
    /// (`invalid size 'aaaa…'`) is cut.
    static let maxMessageLength = 300

    public var description: String {
        let message = self.message.count > Self.maxMessageLength ? String(self.message.prefix(Self.maxMessageLength)) + "…" : self.message
        var characters = Array(lineText)
        var column = location.column
        var prefix = "", suffix = ""
        if characters.count > Self.maxShownColumns {
            // A 1 MB line quoted in full, with an underline as long, helps nobody.
            let start = min(max(0, column - 1 - Self.maxShownColumns / 3), max(0, characters.count - Self.maxShownColumns))
            let end = min(characters.count, start + Self.maxShownColumns)
            if start > 0 { prefix = "…" }
            if end < characters.count { suffix = "…" }
            characters = Array(characters[start..<end])
            column -= start - prefix.count
        }
        // Tabs stay tabs in the underline so that it lines up under the text in any terminal.
        let lead = String(characters.prefix(column - 1 - prefix.count).map { $0 == "\t" ? "\t" : " " })
        let width = max(1, min(location.length, characters.count - (column - 1 - prefix.count)))
        let shown = prefix + String(characters) + suffix
        return "\(location): error: \(message)\n    \(shown)\n    \(prefix.isEmpty ? "" : " ")\(lead)^\(String(repeating: "~", count: width - 1))"
    }
}

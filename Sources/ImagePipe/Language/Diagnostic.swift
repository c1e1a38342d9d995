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

    public init(location: SourceLocation, message: String, lineText: String) {
        self.location = location
        self.message = message
        self.lineText = lineText
    }

    public var description: String {
        // Tabs stay tabs in the underline so that it lines up under the text in any terminal.
        let lead = String(lineText.prefix(location.column - 1).map { $0 == "\t" ? "\t" : " " })
        let width = max(1, min(location.length, lineText.count - (location.column - 1)))
        return "\(location): error: \(message)\n    \(lineText)\n    \(lead)^\(String(repeating: "~", count: width - 1))"
    }
}

/// One word of pipeline text after quotes and escapes are resolved: a stage name, a positional
/// argument, or `key=value`.
struct Word: Equatable, Sendable {
    /// The whole word's value.
    var text: String
    /// The part before the first unquoted `=`, when that part is a parameter-like name.
    var key: String?
    /// The argument value: after `key=`, or the whole text.
    var value: String
    /// Whether any of the word was quoted or escaped (a quoted word is never a stage name).
    var isLiteral: Bool
    var location: SourceLocation
    var keyLocation: SourceLocation
    var valueLocation: SourceLocation
}

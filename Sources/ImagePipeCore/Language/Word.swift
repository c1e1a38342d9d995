/// One word of pipeline text after quotes and escapes are resolved: a stage name, a positional
/// argument, or `key=value`.
package struct Word: Equatable, Sendable {
    /// The whole word's value.
    package var text: String
    /// The part before the first unquoted `=`, when that part is a parameter-like name.
    package var key: String?
    /// The argument value: after `key=`, or the whole text.
    var value: String
    /// Whether any of the word was quoted or escaped (a quoted word is never a stage name).
    var isLiteral: Bool
    package var location: SourceLocation
    package var keyLocation: SourceLocation
    package var valueLocation: SourceLocation
}

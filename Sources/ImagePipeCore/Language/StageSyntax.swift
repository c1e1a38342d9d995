/// One stage as written: its name and its argument words, and the groups of stages in braces
/// after it (`branch { … } { … }`), before the registry is consulted.
package struct StageSyntax: Equatable, Sendable {
    package var name: Word
    package var arguments: [Word]
    package var groups: [[StageSyntax]] = []
    /// Where each group's `{` stands.
    package var groupLocations: [SourceLocation] = []

    package var rawArguments: [RawArgument] { arguments.map { RawArgument(key: $0.key, $0.value) } }
}

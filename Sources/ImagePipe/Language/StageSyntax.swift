/// One stage as written: its name and its argument words, and the groups of stages in braces
/// after it (`branch { … } { … }`), before the registry is consulted.
struct StageSyntax: Equatable, Sendable {
    var name: Word
    var arguments: [Word]
    var groups: [[StageSyntax]] = []
    /// Where each group's `{` stands.
    var groupLocations: [SourceLocation] = []

    var rawArguments: [RawArgument] { arguments.map { RawArgument(key: $0.key, $0.value) } }
}

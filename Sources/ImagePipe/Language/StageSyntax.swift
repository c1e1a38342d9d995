/// One stage as written: its name and its argument words, before the registry is consulted.
struct StageSyntax: Equatable, Sendable {
    var name: Word
    var arguments: [Word]

    var rawArguments: [RawArgument] { arguments.map { RawArgument(key: $0.key, $0.value) } }
}

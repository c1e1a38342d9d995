/// Groups the lexer's words into stages: the first word of each is the stage name.
struct Parser {
    static func parse(text: String, file: String, variables: [String: String] = [:]) -> (stages: [StageSyntax], diagnostics: [Diagnostic]) {
        var lexer = Lexer(text: text, file: file, variables: variables)
        lexer.run()
        var diagnostics = lexer.diagnostics
        var stages: [StageSyntax] = []
        var current: StageSyntax?
        var lastPipe: SourceLocation?
        func finish() {
            if let stage = current { stages.append(stage) }
            current = nil
        }
        for item in lexer.items {
            switch item {
            case let .separator(isPipe, location):
                if isPipe, current == nil, let previous = lastPipe ?? (stages.isEmpty ? location : nil) {
                    let message = previous == location ? "a pipeline cannot start with '|'" : "empty stage: nothing between two '|'"
                    diagnostics.append(Diagnostic(location: location, message: message, lineText: lexer.lineText(location.line)))
                }
                finish()
                lastPipe = isPipe ? location : nil
            case let .word(word):
                if current != nil {
                    // In place: copying the stage out and back made each append copy every
                    // argument before it (11 s for one stage of 20,000 arguments).
                    current!.arguments.append(word)
                } else {
                    lastPipe = nil
                    if word.isLiteral || word.key != nil || !Lexer.isName(word.text) {
                        let message = word.key != nil
                            ? "expected a stage name before '\(word.text)'"
                            : "expected a stage name (lower-case letters, digits and '-'), found '\(word.text)'"
                        diagnostics.append(Diagnostic(location: word.location, message: message, lineText: lexer.lineText(word.location.line)))
                    }
                    current = StageSyntax(name: word, arguments: [])
                }
            }
        }
        finish()
        if let lastPipe {
            diagnostics.append(Diagnostic(location: lastPipe, message: "the pipeline ends with '|': a stage should follow it",
                                          lineText: lexer.lineText(lastPipe.line)))
        }
        return (stages, diagnostics)
    }
}

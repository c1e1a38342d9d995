/// Groups the lexer's words into stages: the first word of each is the stage name. A stage may
/// be followed by groups in braces (`branch { … } { … }`), each a run of stages of its own.
package struct Parser {
    package static func parse(text: String, file: String, variables: [String: String] = [:]) -> (stages: [StageSyntax], diagnostics: [Diagnostic]) {
        var lexer = Lexer(text: text, file: file, variables: variables)
        lexer.run()
        var diagnostics = lexer.diagnostics
        let items = lexer.items
        var index = 0
        func report(_ message: String, at location: SourceLocation) {
            diagnostics.append(Diagnostic(location: location, message: message, lineText: lexer.lineText(location.line)))
        }
        /// The stages up to the end, or up to the `}` that closes the group `opening` began.
        func parseStages(opening: SourceLocation?) -> [StageSyntax] {
            var stages: [StageSyntax] = []
            var current: StageSyntax?
            var lastPipe: SourceLocation?
            func finish() {
                if let stage = current { stages.append(stage) }
                current = nil
            }
            func checkEnd() {
                if let lastPipe { report("the pipeline ends with '|': a stage should follow it", at: lastPipe) }
            }
            while index < items.count {
                let item = items[index]
                index += 1
                switch item {
                case let .separator(isPipe, location):
                    if isPipe, current == nil, let previous = lastPipe ?? (stages.isEmpty ? location : nil) {
                        let message = previous == location ? "a pipeline cannot start with '|'" : "empty stage: nothing between two '|'"
                        report(message, at: location)
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
                            report(message, at: word.location)
                        }
                        current = StageSyntax(name: word, arguments: [])
                    }
                case let .brace(opens: true, location):
                    let group = parseStages(opening: location)
                    if current != nil {
                        current!.groups.append(group)
                        current!.groupLocations.append(location)
                    } else {
                        report("'{' begins a group of stages, which follows the stage it belongs to: branch { … } { … }", at: location)
                    }
                    lastPipe = nil
                case let .brace(opens: false, location):
                    guard opening != nil else {
                        report("'}' closes no group", at: location)
                        continue
                    }
                    finish()
                    checkEnd()
                    return stages
                }
            }
            finish()
            checkEnd()
            if let opening { report("the group begun here is not closed: add '}'", at: opening) }
            return stages
        }
        let stages = parseStages(opening: nil)
        return (stages, diagnostics)
    }
}

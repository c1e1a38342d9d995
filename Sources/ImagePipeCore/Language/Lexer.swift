/// Splits pipeline text into words and stage separators.
///
/// - Stages are separated by line breaks or `|`; spaces and tabs separate words.
/// - `"…"` quotes with escapes (`\"`, `\\`, `\n`, `\t`, `\$`) and `$NAME` expansion; `'…'` quotes
///   literally; outside quotes `\` escapes the next character, and `\` at the end of a line
///   continues the stage on the next line.
/// - `$NAME` or `${NAME}` is replaced by a variable's value (`--set NAME=VALUE`); `${NAME:-TEXT}`
///   gives TEXT when the variable is unset or empty.
/// - `{` and `}` standing alone open and close a `branch` group: stages of their own.
/// - Comments: `#` where a stage name would start (the start of a line, or after `|`) begins a
///   comment to the end of the line; elsewhere `#` begins a comment only when a space or the line
///   end follows it. So `fill=#000` and `color #ff0000` are colours, and `fit 10x10 # small`
///   ends in a comment.
package struct Lexer {
    /// The most text `$VAR` expansion may add, and the longest pipeline text compiled (1 MiB
    /// each): limits that hold before the work, so that no text makes the lexer or the
    /// diagnostics grow without bound.
    package static let maxTextBytes = 1 << 20

    enum Item: Equatable {
        case word(Word)
        case separator(isPipe: Bool, location: SourceLocation)
        /// An unquoted `{` or `}` standing alone: a `branch` group opens or closes. (Inside a
        /// word, as in `{stem}.png`, braces are the word's.)
        case brace(opens: Bool, location: SourceLocation)
    }

    private let characters: [Character]
    private let file: String
    private let lines: SourceLines
    private let variables: [String: String]
    private var index = 0
    private var line = 1
    private var column = 1
    private(set) var items: [Item] = []
    private(set) var diagnostics: [Diagnostic] = []
    /// Bytes that `$VAR` expansion has added so far (bounded by `maxTextBytes`).
    private var expandedBytes = 0
    /// The names of the variables the text refers to, set or not.
    private(set) var referencedVariables: Set<String> = []

    init(text: String, file: String, variables: [String: String] = [:]) {
        characters = Array(text)
        self.file = file
        lines = SourceLines(text)
        self.variables = variables
    }

    /// The text of a 1-based line, for diagnostics.
    func lineText(_ number: Int) -> String { lines.line(number) }

    mutating func run() {
        var expectingStageName = true
        while let character = peek() {
            if Lexer.isNewline(character) {
                items.append(.separator(isPipe: false, location: here()))
                advance()
                expectingStageName = true
            } else if Lexer.isWhitespace(character) {
                advance()
            } else if character == "|" {
                items.append(.separator(isPipe: true, location: here()))
                advance()
                expectingStageName = true
            } else if character == "#", expectingStageName || peek(1).map(Lexer.isWhitespace) ?? true {
                while let next = peek(), !Lexer.isNewline(next) { advance() }
            } else if character == "\\", peek(1).map(Lexer.isNewline) == true {
                advance()
                advance() // a continued line: the break does not end the stage
            } else if character == "{" || character == "}", (peek(1).map { Lexer.isWhitespace($0) || $0 == "|" } ?? true) {
                items.append(.brace(opens: character == "{", location: here()))
                advance()
                expectingStageName = character == "{"
            } else {
                lexWord()
                expectingStageName = false
            }
        }
    }

    private func peek(_ ahead: Int = 0) -> Character? {
        index + ahead < characters.count ? characters[index + ahead] : nil
    }

    private mutating func advance() {
        if Lexer.isNewline(characters[index]) {
            line += 1
            column = 1
        } else {
            column += 1
        }
        index += 1
    }

    private func here(length: Int = 1) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column, length: length)
    }

    private mutating func error(_ message: String, at location: SourceLocation, remedy: Remedy? = nil) {
        diagnostics.append(Diagnostic(location: location, message: message, lineText: lineText(location.line), remedy: remedy))
    }

    private mutating func lexWord() {
        let start = here()
        var text = ""
        var isLiteral = false
        var equals: (offset: Int, column: Int, literalBefore: Bool)?
        scan: while let character = peek(), !Lexer.isWhitespace(character), character != "|" {
            switch character {
            case "\"":
                isLiteral = true
                lexDoubleQuoted(into: &text)
            case "'":
                isLiteral = true
                lexSingleQuoted(into: &text)
            case "\\":
                guard let next = peek(1) else {
                    advance()
                    text.append("\\")
                    continue
                }
                if Lexer.isNewline(next) { break scan } // a line continuation, handled by run()
                isLiteral = true
                advance()
                advance()
                text.append(next)
            case "$":
                text += expandVariable()
            case "=" where equals == nil:
                equals = (text.count, column, isLiteral)
                advance()
                text.append("=")
            default:
                advance()
                text.append(character)
            }
        }
        let length = column - start.column
        let location = SourceLocation(file: file, line: start.line, column: start.column, length: length)
        var word = Word(text: text, key: nil, value: text, isLiteral: isLiteral,
                        location: location, keyLocation: location, valueLocation: location)
        if let equals, !equals.literalBefore, Lexer.isName(text.prefix(equals.offset)) {
            word.key = String(text.prefix(equals.offset))
            word.value = String(text.dropFirst(equals.offset + 1))
            word.keyLocation = SourceLocation(file: file, line: start.line, column: start.column,
                                              length: equals.column - start.column)
            word.valueLocation = SourceLocation(file: file, line: start.line, column: equals.column + 1,
                                                length: start.column + length - equals.column - 1)
        }
        items.append(.word(word))
    }

    private mutating func lexDoubleQuoted(into text: inout String) {
        let opening = here()
        advance()
        while let character = peek(), !Lexer.isNewline(character) {
            switch character {
            case "\"":
                advance()
                return
            case "\\":
                let escape = here(length: 2)
                advance()
                guard let next = peek(), !Lexer.isNewline(next) else { continue }
                advance()
                switch next {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "\"", "\\", "$", "'", "|", "#", "=": text.append(next)
                default: error("unknown escape '\\\(next)' in a quoted string (use \\\\ for a backslash)", at: escape)
                }
            case "$":
                text += expandVariable()
            default:
                advance()
                text.append(character)
            }
        }
        error("unterminated string: add a closing \"", at: opening)
    }

    private mutating func lexSingleQuoted(into text: inout String) {
        let opening = here()
        advance()
        while let character = peek(), !Lexer.isNewline(character) {
            advance()
            if character == "'" { return }
            text.append(character)
        }
        error("unterminated string: add a closing '", at: opening)
    }

    /// Reads `$NAME`, `${NAME}` or `${NAME:-TEXT}` at the cursor and returns the variable's value.
    private mutating func expandVariable() -> String {
        let start = here()
        advance()
        let braced = peek() == "{"
        if braced { advance() }
        var name = ""
        while let character = peek(), character == "_" || character.isASCII && (character.isLetter || character.isNumber) {
            name.append(character)
            advance()
        }
        // `${NAME:-TEXT}` gives TEXT when NAME is unset or empty, as a POSIX shell does.
        var fallback: String?
        if braced, !name.isEmpty, peek() == ":" {
            advance()
            if peek() == "-" {
                advance()
                var text = ""
                while let character = peek(), character != "}", !Lexer.isNewline(character) {
                    text.append(character)
                    advance()
                }
                fallback = text
            } else {
                name = ""
            }
        }
        if braced {
            if peek() == "}" { advance() } else { name = "" }
        }
        let location = SourceLocation(file: file, line: start.line, column: start.column, length: column - start.column)
        guard !name.isEmpty, !name.first!.isNumber else {
            error("'$' must start a variable, like $NAME, ${NAME} or ${NAME:-DEFAULT}; write \\$ for a dollar sign", at: location)
            return ""
        }
        referencedVariables.insert(name)
        let given = variables[name]
        guard let value = fallback != nil && given?.isEmpty != false ? fallback : given else {
            error("unset variable '\(name)'", at: location, remedy: .setVariable(name))
            return ""
        }
        let limit = Self.maxTextBytes
        guard expandedBytes <= limit else { return "" } // reported once, below
        expandedBytes += value.utf8.count
        guard expandedBytes <= limit else {
            error("variables expand to more than \(limit) bytes of text here; is $\(name) meant to be this long?", at: location)
            return ""
        }
        return value
    }

    /// The names of the variables `text` refers to (`$NAME`, `${NAME}`, `${NAME:-TEXT}`), so that
    /// a value given for a name it never uses is not passed over in silence.
    package static func variableNames(in text: String) -> Set<String> {
        var lexer = Lexer(text: text, file: "")
        lexer.run()
        return lexer.referencedVariables
    }

    /// Lower-kebab-case: a letter, then letters, digits and dashes. Tested on bytes: Character
    /// properties cost a Unicode table lookup each, a third of the time of a 1 MB pipeline.
    static func isName(_ text: some StringProtocol) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    /// `Character.isWhitespace`, with ASCII answered without a Unicode table lookup.
    static func isWhitespace(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii == 0x20 || (0x09...0x0D).contains(ascii) }
        return character.isWhitespace
    }

    /// `Character.isNewline`, with ASCII answered without a Unicode table lookup (`\r\n` is one
    /// Character whose ASCII value is that of `\n`).
    static func isNewline(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return (0x0A...0x0D).contains(ascii) }
        return character.isNewline
    }
}

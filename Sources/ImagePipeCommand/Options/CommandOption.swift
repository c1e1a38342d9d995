import ImagePipe

/// An option that takes a value, with how its text becomes a `Value`: `parser.value(of:
/// RunCommand.jobs)` is an `Int`, checked as `--jobs` checks it, and a misspelt option is a
/// name the compiler does not know rather than a string nobody reads.
struct CommandOption<Value>: OptionDeclaring {
    let declaration: OptionDeclaration
    /// Reads one occurrence's text, or throws the usage message for it.
    let read: @Sendable (String) throws -> Value

    init(_ names: String..., value valueName: String, kind: OptionDeclaration.ValueKind = .text, help: String,
         read: @escaping @Sendable (String) throws -> Value) {
        declaration = OptionDeclaration(names: names, valueName: valueName, valueKind: kind, help: help)
        self.read = read
    }

    private init(declaration: OptionDeclaration, read: @escaping @Sendable (String) throws -> Value) {
        self.declaration = declaration
        self.read = read
    }

    /// The same option with another value name or help (see `OptionDeclaration.describing`).
    func describing(value valueName: String? = nil, _ help: String) -> CommandOption {
        CommandOption(declaration: declaration.describing(value: valueName, help), read: read)
    }
}

extension CommandOption where Value == String {
    /// An option whose value is its text.
    init(_ names: String..., value valueName: String, kind: OptionDeclaration.ValueKind = .text, help: String) {
        declaration = OptionDeclaration(names: names, valueName: valueName, valueKind: kind, help: help)
        read = { $0 }
    }
}

extension CommandOption where Value == Int {
    /// A whole number in `range`, refused as "--NAME needs a whole number from A to B".
    static func wholeNumber(_ name: String, value valueName: String = "N", in range: ClosedRange<Int>, help: String) -> CommandOption {
        CommandOption(name, value: valueName, help: help) { text in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError("\(name) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
            }
            return number
        }
    }
}

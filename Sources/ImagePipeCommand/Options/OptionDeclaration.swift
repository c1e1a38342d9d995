/// What the parser, `--help`, the manual page and the completions know of one option: its names,
/// the value it takes and its help. Each option is declared once (a `CommandOption` or a
/// `CommandFlag`, a static let beside the code that reads it), and everything that shows or
/// reads options is made from these, so none of them can list an option the others lack.
struct OptionDeclaration: Sendable {
    /// What a value names, for completion: a shell completes file names after `.file`.
    enum ValueKind: Sendable, Equatable {
        case text
        case file
        case directory
        /// One of these words (`--scaling fast|good|best`).
        case choices([String])
    }

    /// The names as written, short first: `["-o", "--output"]`.
    let names: [String]
    /// The value's name in help (`FILE`), or nil for a flag.
    let valueName: String?
    let valueKind: ValueKind
    /// The help text as shown, its lines broken where they break in the help's column.
    let help: String

    init(names: [String], valueName: String?, valueKind: ValueKind = .text, help: String) {
        precondition(!names.isEmpty && names.allSatisfy { $0.hasPrefix("-") && $0.count > 1 }, "an option's names begin with a dash")
        self.names = names
        self.valueName = valueName
        self.valueKind = valueKind
        self.help = help
    }

    var takesValue: Bool { valueName != nil }
    /// The name values are kept under and options are written back with: the long one.
    var key: String { names.last! }
    /// `-o, --output FILE`, as the help's left column shows it.
    var label: String { names.joined(separator: ", ") + (valueName.map { " " + $0 } ?? "") }

    /// The same option shown with another value name or help, for a command whose use of it
    /// differs (explain's `-o` names the output a run would write); how it reads is unchanged.
    func describing(value valueName: String? = nil, _ help: String) -> OptionDeclaration {
        OptionDeclaration(names: names, valueName: self.valueName == nil ? nil : valueName ?? self.valueName, valueKind: valueKind, help: help)
    }
}

/// Anything that declares an option: a typed option, a flag, or a bare declaration.
protocol OptionDeclaring: Sendable {
    var declaration: OptionDeclaration { get }
}

extension OptionDeclaration: OptionDeclaring {
    var declaration: OptionDeclaration { self }
}

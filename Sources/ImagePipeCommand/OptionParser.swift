import ImagePipe

/// A small getopt-style parser: `-o FILE`, `-oFILE`, `--output FILE`, `--output=FILE`, flags,
/// bundled short flags (`-qr`, `-qj2`), `--` and positionals, as POSIX utilities take them.
/// Swift's argument parser package cannot be fetched here, and this is all the command needs.
/// The options are declarations (`CommandOption`, `CommandFlag`), and values are read through
/// them, typed: no option is named by a string outside its declaration.
struct OptionParser {
    /// `-h, --help`, which every subcommand takes.
    static let helpFlag = CommandFlag("-h", "--help", help: "Show this help")

    let options: [OptionDeclaration]
    private var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []
    /// The arguments as given, for a message that gives the command line back changed.
    private(set) var arguments: [String] = []

    init(options: [any OptionDeclaring]) {
        self.options = options.map(\.declaration)
        assert(Set(self.options.flatMap(\.names)).count == self.options.flatMap(\.names).count, "an option name declared twice")
    }

    /// Parses `arguments`, or throws a usage message.
    mutating func parse(_ arguments: [String]) throws(UsageError) {
        self.arguments += arguments
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                positionals += remaining
                return
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append(argument)
                continue
            }
            if !argument.hasPrefix("--"), argument.count > 2 {
                // ImageMagick's `-resize 50%` would otherwise read as the bundle `-r -e size`.
                if let habit = OptionHabits.message(for: argument, next: remaining.first) { throw UsageError(habit) }
                try parseBundle(argument.dropFirst(), remaining: &remaining)
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            let option = try self.option(named: name, next: inlineValue ?? remaining.first)
            if option.takesValue {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError("option '\(name)' needs a value")
                }
                record(option, value)
            } else {
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                if let habit = OptionHabits.quietWithNumber(name, next: remaining.first) { throw UsageError(habit) }
                record(option, "")
            }
        }
    }

    /// `-qr`: one short flag after another; the first that takes a value takes the rest of the
    /// word (`-j2`, `-oout.png`), or the next argument when the word ends there.
    private mutating func parseBundle(_ letters: Substring, remaining: inout ArraySlice<String>) throws(UsageError) {
        var rest = letters[...]
        while let letter = rest.popFirst() {
            let option = try self.option(named: "-\(letter)", next: nil)
            guard option.takesValue else {
                record(option, "")
                continue
            }
            guard let value = rest.isEmpty ? remaining.popFirst() : String(rest) else {
                throw UsageError("option '-\(letter)' needs a value")
            }
            record(option, value)
            return
        }
    }

    private func option(named name: String, next: String?) throws(UsageError) -> OptionDeclaration {
        guard let option = options.first(where: { $0.names.contains(name) }) else {
            if let habit = OptionHabits.message(for: name, next: next) { throw UsageError(habit) }
            let known = options.flatMap(\.names)
            let hint = Suggestion.closestOption(to: name, in: known).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("unknown option '\(name)'\(hint)")
        }
        return option
    }

    private mutating func record(_ option: OptionDeclaration, _ value: String) {
        values[option.key, default: []].append(value)
    }

    /// Parses a subcommand's arguments with its options and `-h/--help`; prints `help` and
    /// returns nil when help was asked for.
    static func parse(_ arguments: [String], options: [any OptionDeclaring], help: String) throws(UsageError) -> OptionParser? {
        var parser = OptionParser(options: options + [helpFlag])
        try parser.parse(arguments)
        if parser.has(helpFlag) {
            Console.output(help)
            return nil
        }
        return parser
    }

    /// The options given, written out again as arguments (in the order of `options`).
    func optionArguments() -> [String] {
        options.flatMap { option -> [String] in
            (values[option.key] ?? []).flatMap { option.takesValue ? [option.key, $0] : [option.key] }
        }
    }

    /// Whether `option` was given (with any value).
    func has(_ option: some OptionDeclaring) -> Bool { values[option.declaration.key] != nil }

    /// The text of `option`'s last occurrence, as given.
    func text<Value>(of option: CommandOption<Value>) -> String? { values[option.declaration.key]?.last }

    /// `option`'s last value, read (and checked) by its declaration; nil when not given.
    func value<Value>(of option: CommandOption<Value>) throws -> Value? {
        try text(of: option).map(option.read)
    }

    /// Every value of a repeatable option, in the order given.
    func values<Value>(of option: CommandOption<Value>) throws -> [Value] {
        try (values[option.declaration.key] ?? []).map(option.read)
    }
}

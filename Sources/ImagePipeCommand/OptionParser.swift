import ImagePipe

/// A small getopt-style parser: `-o FILE`, `--output FILE`, `--output=FILE`, flags, `--` and
/// positionals. Swift's argument parser package cannot be fetched here, and this is all the
/// command needs.
struct OptionParser {
    struct Option {
        let names: [String]
        let takesValue: Bool
    }

    let options: [Option]
    private(set) var values: [String: [String]] = [:]
    private(set) var positionals: [String] = []

    init(options: [Option]) { self.options = options }

    /// Parses `arguments`, or throws a usage message.
    mutating func parse(_ arguments: [String]) throws(UsageError) {
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
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                let known = options.flatMap(\.names)
                let hint = Suggestion.closestOption(to: name, in: known).map { " (did you mean '\($0)'?)" } ?? ""
                throw UsageError("unknown option '\(name)'\(hint)")
            }
            let key = option.names.last!
            if option.takesValue {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw UsageError("option '\(name)' needs a value")
                }
                values[key, default: []].append(value)
            } else {
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                values[key, default: []].append("")
            }
        }
    }

    /// Parses a subcommand's arguments with its options and `-h/--help`; prints `help` and
    /// returns nil when help was asked for.
    static func parse(_ arguments: [String], options: [Option], help: String) throws(UsageError) -> OptionParser? {
        var parser = OptionParser(options: options + [.init(names: ["-h", "--help"], takesValue: false)])
        try parser.parse(arguments)
        if parser.has("--help") {
            Console.output(help)
            return nil
        }
        return parser
    }

    func has(_ name: String) -> Bool { values[name] != nil }
    func last(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
}

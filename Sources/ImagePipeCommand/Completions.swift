import ImagePipe

/// `imagepipe completions bash|zsh|fish`: shell completion of commands, options, stage names and
/// parameter names (`kernel=`), made from the commands' help texts and the registry, so a new
/// option or stage completes without anyone editing a script. `make install` writes all three.
struct Completions {
    let registry: Registry

    static let help = """
        usage: imagepipe completions bash|zsh|fish

        Prints a completion script for the shell: commands, options, stage names and parameter
        names (e.g. kernel=). make install puts them where each shell looks.
        """

    func main(_ arguments: [String]) throws -> Int32 {
        guard let parser = try OptionParser.parse(arguments, options: [], help: Self.help) else { return 0 }
        guard parser.positionals.count == 1 else { throw UsageError("completions takes one shell: bash, zsh or fish") }
        switch parser.positionals[0] {
        case "bash": Console.output(bash)
        case "zsh": Console.output(zsh)
        case "fish": Console.output(fish)
        case let other: throw UsageError("unknown shell '\(other)': use bash, zsh or fish")
        }
        return 0
    }

    /// The option names a help text lists: lines of its option table start with `-`.
    static func options(inHelp help: String) -> [String] {
        help.split(separator: "\n").flatMap { line -> [String] in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-"), !trimmed.hasPrefix("- ") else { return [] }
            let names = trimmed.split(separator: " ", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
            return names.map { String($0.filter { $0 != "," }) }.filter { $0.hasPrefix("-") && $0.count > 1 }
        }
    }

    /// A command's options for completion: its help's option table, and --help, each once.
    static func optionWords(_ help: String) -> String {
        var seen = Set<String>()
        return (options(inHelp: help) + ["--help"]).filter { seen.insert($0).inserted }.joined(separator: " ")
    }

    private var commandNames: [String] { Manual.commands.map(\.name) + ["completions", "man", "help"] }
    private var stageWords: String { registry.stageNames.joined(separator: " ") }
    private var parameterWords: String {
        Set(registry.stageNames.compactMap { registry.entry(named: $0) }.flatMap { $0.schema.parameters.map { $0.name + "=" } })
            .sorted().joined(separator: " ")
    }

    var bash: String {
        let cases = Manual.commands.map { "        \($0.name)) options=\"\(Self.optionWords($0.help))\" ;;" }
        return """
            # bash completion for imagepipe (made by `imagepipe completions bash`)
            _imagepipe() {
                local current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD-1]} options=""
                if [ "$COMP_CWORD" -eq 1 ]; then
                    COMPREPLY=($(compgen -W "\(commandNames.joined(separator: " ")) --help --version --plugin" -- "$current"))
                    return
                fi
                case ${COMP_WORDS[1]} in
            \(cases.joined(separator: "\n"))
                esac
                if [[ $current == -* ]]; then
                    COMPREPLY=($(compgen -W "$options" -- "$current"))
                elif [ "${COMP_WORDS[1]}" = stages ] || [ "${COMP_WORDS[1]}" = help ]; then
                    COMPREPLY=($(compgen -W "\(stageWords) \(Manual.commands.map(\.name).joined(separator: " "))" -- "$current"))
                elif [ "$previous" = -e ] || [ "$previous" = --expression ]; then
                    COMPREPLY=($(compgen -W "\(stageWords) \(parameterWords)" -- "$current"))
                else
                    COMPREPLY=($(compgen -f -- "$current"))
                fi
            }
            complete -o filenames -F _imagepipe imagepipe
            """
    }

    var zsh: String {
        let cases = Manual.commands.map { "        \($0.name)) options=(\(Self.optionWords($0.help))) ;;" }
        return """
            #compdef imagepipe
            # zsh completion for imagepipe (made by `imagepipe completions zsh`)
            _imagepipe() {
                local -a options
                if (( CURRENT == 2 )); then
                    compadd -- \(commandNames.joined(separator: " ")) --help --version --plugin
                    return
                fi
                case $words[2] in
            \(cases.joined(separator: "\n"))
                esac
                if [[ $PREFIX == -* ]]; then
                    compadd -- $options
                elif [[ $words[2] == stages || $words[2] == help ]]; then
                    compadd -- \(stageWords)
                elif [[ $words[CURRENT-1] == -e || $words[CURRENT-1] == --expression ]]; then
                    compadd -- \(stageWords) \(parameterWords)
                else
                    _files
                fi
            }
            _imagepipe "$@"
            """
    }

    var fish: String {
        var lines = ["# fish completion for imagepipe (made by `imagepipe completions fish`)",
                     "complete -c imagepipe -f -n __fish_use_subcommand -a '\(commandNames.joined(separator: " "))'"]
        for (name, help) in Manual.commands {
            for option in Self.options(inHelp: help) {
                let flag = option.hasPrefix("--") ? "-l \(option.dropFirst(2))" : "-s \(option.dropFirst())"
                lines.append("complete -c imagepipe -n '__fish_seen_subcommand_from \(name)' \(flag)")
            }
        }
        lines.append("complete -c imagepipe -f -n '__fish_seen_subcommand_from stages help' -a '\(stageWords)'")
        lines.append("complete -c imagepipe -n '__fish_seen_subcommand_from run check explain' -a '\(stageWords) \(parameterWords)'")
        return lines.joined(separator: "\n")
    }
}

import Testing
@testable import ImagePipeCommand
import ImagePipe
import ImagePipeStages
import TestSupport

/// Each option is declared once, and the parser, `--help`, the manual page and the three
/// shells' completions are all made from the declarations.
@Suite struct OptionDeclarationTests {
    /// Every option each command declares is in its help (convert's are run's, which its help
    /// sends the reader to), in the manual page, and in each shell's completions for it.
    @Test func everyDeclaredOptionIsInTheHelpTheManualAndEachShellsCompletions() throws {
        let page = try CommandRunner.run(["man"]).standardOutput
        let bash = try CommandRunner.run(["completions", "bash"]).standardOutput.split(separator: "\n").map(String.init)
        let zsh = try CommandRunner.run(["completions", "zsh"]).standardOutput.split(separator: "\n").map(String.init)
        let fish = try CommandRunner.run(["completions", "fish"]).standardOutput.split(separator: "\n").map(String.init)
        for command in ImagePipeCommand.commands {
            let (name, options) = (command.name, command.options)
            let help = try CommandRunner.run([name == "convert" ? "run" : name, "--help"]).standardOutput
            let bashWords = try #require(bash.first { $0.hasPrefix("        \(name)) options=\"") }).split(separator: "\"")[1].split(separator: " ")
            let zshWords = try #require(zsh.first { $0.hasPrefix("        \(name)) options=(") }).dropFirst("        \(name)) options=(".count)
                .prefix { $0 != ")" }.split(separator: " ")
            let fishLines = fish.filter { $0.contains("'__fish_seen_subcommand_from \(name)'") }
            #expect(!options.isEmpty || ["man", "completions"].contains(name))
            for declaration in Completions.declarations(options) {
                // A row of the option table, alone or sharing its help with the options before it.
                #expect(help.contains("\n  " + declaration.label) || help.contains(", " + declaration.label), "\(name) --help lacks \(declaration.label)")
                #expect(page.contains("\n  " + declaration.label) || page.contains(", " + declaration.label), "the manual lacks \(name) \(declaration.label)")
                for option in declaration.names {
                    #expect(bashWords.contains(Substring(option)), "bash: \(name) \(option)")
                    #expect(zshWords.contains(Substring(option)), "zsh: \(name) \(option)")
                    let fishFlag = option.hasPrefix("--") ? " -l \(option.dropFirst(2))" : " -s \(option.dropFirst())"
                    #expect(fishLines.contains { $0.contains(fishFlag + " ") }, "fish: \(name) \(option)")
                }
            }
            // No name is declared twice in one command (the parser would take the first).
            let names = Completions.declarations(options).flatMap(\.names)
            #expect(Set(names).count == names.count, "\(name) declares a name twice")
            // And the completions offer no option that is not declared.
            let declared = Set(names)
            #expect(Set(bashWords.map(String.init)) == declared, "\(name)")
        }
        // The options before a command: in the usage and completed as the first word.
        let usage = try CommandRunner.run(["--help"]).standardOutput
        let firstWords = try #require(bash.first { $0.contains("COMPREPLY=($(compgen -W \"run convert") })
        let zshFirstWords = try #require(zsh.first { $0.contains("compadd -- run convert") }).split(separator: " ")
        for declaration in ImagePipeCommand.options.map(\.declaration) {
            #expect(usage.contains("\n  " + declaration.label), "\(declaration.label)")
            for option in declaration.names {
                #expect(firstWords.contains(" \(option) ") || firstWords.contains(" \(option)\""), "bash: \(option)")
                #expect(zshFirstWords.contains(Substring(option)), "zsh: \(option)")
                let fishFlag = option.hasPrefix("--") ? " -l \(option.dropFirst(2))" : " -s \(option.dropFirst())"
                #expect(fish.contains { $0.contains("-n __fish_use_subcommand") && $0.contains(fishFlag + " ") }, "fish: \(option)")
            }
        }
        // convert's completions are run's less what its two names replace.
        let convertWords = try #require(bash.first { $0.hasPrefix("        convert) options=\"") })
        #expect(convertWords.contains(" --scaling ") && convertWords.contains(" --jobs ") && !convertWords.contains(" --expression ") && !convertWords.contains(" --out-dir "))
    }

    /// The completions are made from the declarations, not from the help text: help that lists
    /// an option nobody declared offers nothing, and help with no option table loses none.
    @Test func completionsDoNotReadTheHelp() throws {
        let declared = CommandFlag("--declared", help: "An option of the test's")
        var completions = Completions(registry: StandardPlugins.registry)
        completions.commands = [CommandDeclaration("probe", summary: "A command of the test's", help: "usage: imagepipe probe\n\nOptions:\n  --only-in-help     Listed, never declared",
                                                   options: [declared]) { _, _ in 0 }]
        for script in [completions.bash, completions.zsh, completions.fish] {
            #expect(script.contains("declared") && !script.contains("only-in-help"), "\(script)")
        }
    }

    /// Values are read through their declarations, typed, with the messages the options have
    /// always had; bundles and `--x=v` read as before.
    @Test func valuesAreReadThroughTheirDeclarations() throws {
        var parser = OptionParser(options: RunCommand.options)
        try parser.parse(["-qj2", "--max-pixels=400", "--set", "A=1", "--set", "B=x=y", "in.png"])
        #expect(parser.has(RunCommand.quiet) && !parser.has(RunCommand.json))
        #expect(try parser.value(of: RunCommand.jobs) == 2)
        #expect(try parser.value(of: PipelineArguments.maxPixels) == 400)
        #expect(try parser.values(of: PipelineArguments.set).map { "\($0.name)=\($0.value)" } == ["A=1", "B=x=y"])
        #expect(parser.positionals == ["in.png"])
        #expect(parser.optionArguments() == ["--jobs", "2", "--set", "A=1", "--set", "B=x=y", "--max-pixels", "400", "--quiet"])
        var bad = OptionParser(options: RunCommand.options)
        try bad.parse(["--max-pixels", "-3", "--scaling", "quick"])
        #expect(throws: UsageError("--max-pixels needs a whole number ≥ 0, got '-3'")) { try bad.value(of: PipelineArguments.maxPixels) }
        #expect(throws: UsageError("unknown scaling 'quick': use one of fast, good, best")) { try bad.value(of: PipelineArguments.scaling) }
        var misspelt = OptionParser(options: RunCommand.options)
        #expect(throws: UsageError("unknown option '--max-pixel' (did you mean '--max-pixels'?)")) { try misspelt.parse(["--max-pixel", "4"]) }
    }

    /// The help's option table: names and value in a column, continuation lines under the help,
    /// options with one help in one row, a label too long for the column above its help.
    @Test func theOptionTableIsMadeFromTheDeclarations() {
        let options: [any OptionDeclaring] = [
            CommandOption("-o", "--output", value: "FILE", help: "Where\nit goes"),
            CommandOption("--key", value: "HEX", help: "Shared"),
            CommandOption("--salt", value: "HEX", help: "Shared"),
            CommandFlag("--a-very-long-flag-name-indeed", help: "Below"),
        ]
        #expect(OptionTable.text(options) == """
              -o, --output FILE      Where
                                     it goes
              --key HEX, --salt HEX  Shared
              --a-very-long-flag-name-indeed
                                     Below
              -h, --help             Show this help
            """)
    }
}

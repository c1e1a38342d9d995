import Testing
@testable import ImagePipeCommand
import ImagePipe
import TestSupport

/// Each command is declared once (`CommandDeclaration`), and the dispatch, the top-level usage,
/// the suggestion for a misspelt command, the manual page and the completions are all made from
/// `ImagePipeCommand.commands`.
@Suite struct CommandDeclarationTests {
    /// Every declared command runs (its `--help` is its declared help), has its line in the usage
    /// in the declared order, its section in the manual page, and is completed by each shell.
    @Test func everyDeclaredCommandDispatchesAndIsInTheUsageTheManualAndTheCompletions() throws {
        let usage = try CommandRunner.run(["--help"]).standardOutput
        let page = try CommandRunner.run(["man"]).standardOutput
        let bash = try CommandRunner.run(["completions", "bash"]).standardOutput.split(separator: "\n").map(String.init)
        let zsh = try CommandRunner.run(["completions", "zsh"]).standardOutput.split(separator: "\n").map(String.init)
        let fish = try CommandRunner.run(["completions", "fish"]).standardOutput.split(separator: "\n").map(String.init)
        let commands = ImagePipeCommand.commands
        #expect(Set(commands.map(\.name)).count == commands.count, "a command declared twice")
        let listed = usage.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "Commands:" }.dropFirst().prefix { !$0.isEmpty }
        #expect(listed.map { String($0.split(separator: " ")[0]) } == commands.map(\.name), "\(usage)")
        let firstWords = try #require(bash.first { $0.contains("COMPREPLY=($(compgen -W \"run ") }).split(separator: "\"")[1].split(separator: " ")
        let zshFirstWords = try #require(zsh.first { $0.contains("compadd -- run ") }).split(separator: " ")
        let fishFirstWords = try #require(fish.first { $0.contains("-n __fish_use_subcommand -a '") }).split(separator: "'")[1].split(separator: " ")
        for command in commands {
            let help = try CommandRunner.run([command.name, "--help"])
            #expect(help.status == 0 && help.standardOutput == command.help + "\n", "\(command.name) --help: \(help.standardOutput)")
            #expect(listed.contains { $0.hasPrefix("  \(command.name) ") && $0.hasSuffix("  " + command.summary) }, "usage: \(command.name)")
            #expect(page.contains("\n.SS \(command.name)\n.nf\n" + Manual.verbatim(command.help).dropFirst().joined(separator: "\n")), "man: \(command.name)")
            for words in [firstWords, zshFirstWords, fishFirstWords] {
                #expect(words.contains(Substring(command.name)), "completions: \(command.name)")
            }
        }
    }

    /// A misspelt command is answered with the closest declared name, one edit from each.
    @Test func aMisspeltCommandIsSuggestedFromTheDeclaredNames() throws {
        for command in ImagePipeCommand.commands {
            let misspelt = command.name + "x"
            #expect(throws: UsageError("unknown command '\(misspelt)' (did you mean '\(command.name)'?); see imagepipe --help")) {
                try ImagePipeCommand.command(named: misspelt)
            }
            #expect(try ImagePipeCommand.command(named: command.name).name == command.name)
        }
        #expect(throws: UsageError("unknown command 'zzzz'; see imagepipe --help")) { try ImagePipeCommand.command(named: "zzzz") }
        let typed = try CommandRunner.run(["explian"])
        #expect(typed.status == 2 && typed.standardError == "imagepipe: unknown command 'explian' (did you mean 'explain'?); see imagepipe --help\n")
    }

    /// `man` is a command as the others are: `--help` tells of it, and a stray argument is refused.
    @Test func manTakesHelpAndNoArguments() throws {
        let stray = try CommandRunner.run(["man", "run"])
        #expect(stray.status == 2 && stray.standardOutput.isEmpty && stray.standardError == "imagepipe: man takes no arguments; see imagepipe man --help\n")
        #expect(try CommandRunner.run(["help", "man"]).standardOutput == Manual.help + "\n")
    }
}

import ImagePipe

/// What the dispatch, the top-level usage, the suggestion for a misspelt command, the manual page
/// and the completions know of one command: its name, its line in the usage, its help, its
/// options and how it runs. Each command is declared once (a static let beside its code, as its
/// options are), `ImagePipeCommand.commands` lists them in the usage's order, and everything that
/// shows, runs or completes a command is made from that list, so none of them can name a command
/// the others lack.
struct CommandDeclaration: Sendable {
    /// The word after `imagepipe`: `run`.
    let name: String
    /// Its line in the top-level usage: `Run a pipeline on a picture`.
    let summary: String
    /// What `imagepipe NAME --help` prints, and its section of the manual page.
    let help: String
    /// The options it takes (`--help` aside), for the completions.
    let options: [any OptionDeclaring]
    /// Runs it with the arguments after its name and the registry the plugins were loaded into;
    /// returns the exit status.
    let run: @Sendable (_ registry: Registry, _ arguments: [String]) throws -> Int32

    init(_ name: String, summary: String, help: String, options: [any OptionDeclaring] = [],
         run: @escaping @Sendable (_ registry: Registry, _ arguments: [String]) throws -> Int32) {
        (self.name, self.summary, self.help, self.options, self.run) = (name, summary, help, options, run)
    }
}
